//! Where a lexically safe location leads on the file system.
//!
//! Each level of the path is examined with `lstat`, and the whole path must stay inside the
//! model's folder. Nothing here opens a file.

use super::location::{problem, show, Location, Problem};
use super::rules::*;
use crate::source::FileIdentity;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// A location that resolved to a regular file inside the model's folder.
#[derive(Debug)]
pub struct Resolved {
    /// The canonical path of the file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Which file it was, so that opening it later can tell if it was swapped.
    pub identity: Option<FileIdentity>,
    /// Warnings that do not prevent use (symlink inside the folder, hard links).
    pub warnings: Vec<Problem>,
    /// Whether it is the model file itself (known here for a listing's names; on this
    /// machine the identities are compared).
    pub model: bool,
}

/// Symlinks followed for one location before it counts as a loop (Linux's own limit).
const MAX_LINKS: u32 = 40;

/// Resolves a lexically safe `loc` against the canonical `model_dir`.
pub fn resolve(model_dir: &Path, loc: &Location<'_>) -> Result<Resolved, Problem> {
    let Some(location) = loc.path() else {
        return Err(problem(
            &LOCATION_NOT_PORTABLE,
            format!(
                "location \"{}\" is not UTF-8, which this platform cannot name",
                loc.shown()
            ),
        ));
    };
    let joined = model_dir.join(location);
    let (real, through_symlink) = follow(model_dir, location, &joined)?;
    let mut warnings = Vec::new();
    if through_symlink {
        warnings.push(problem(
            &SYMLINK_INSIDE,
            format!(
                "data file {} is reached through a symlink (it resolves to {})",
                show(&joined),
                show(&real)
            ),
        ));
    }
    let meta = fs::symlink_metadata(&real).map_err(|e| {
        problem(
            &DATA_FILE_MISSING,
            format!("data file {}: {e}", show(&real)),
        )
    })?;
    if !meta.is_file() {
        return Err(problem(
            &NOT_REGULAR_FILE,
            format!("data path {} is not a regular file", show(&real)),
        ));
    }
    if let Some(links) = hard_links(&meta).filter(|&n| n > 1) {
        warnings.push(problem(
            &HARD_LINK,
            format!("data file {} has {links} hard links", show(&real)),
        ));
    }
    Ok(Resolved {
        path: real,
        size: meta.len(),
        identity: FileIdentity::of(&meta),
        warnings,
        model: false,
    })
}

/// The path `location` leads to from `model_dir`, resolved one component at a time as the
/// kernel would, without `realpath`: each symlink's text is read and followed only while it
/// stays inside the model's folder, so nothing outside it is ever looked at (an automounted
/// or network folder is not woken). Also whether a symlink was on the way.
fn follow(model_dir: &Path, location: &Path, joined: &Path) -> Result<(PathBuf, bool), Problem> {
    let mut current = model_dir.to_path_buf();
    let mut pending: VecDeque<OsString> = parts(location);
    // The last symlink followed and its text, to name when the path leaves the folder.
    let mut last_link: Option<(PathBuf, PathBuf)> = None;
    let escape = |link: &Option<(PathBuf, PathBuf)>| {
        let (link, target) = link.clone().unwrap_or_default();
        let (link, target, dir) = (show(&link), show(&target), show(model_dir));
        problem(
            &SYMLINK_ESCAPE,
            format!("\"{link}\" is a symlink to {target}, outside the model's folder {dir}"),
        )
    };
    let mut links = 0;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            // Only a symlink's text brings `..` here; the location itself has none.
            if current == model_dir {
                return Err(escape(&last_link));
            }
            current.pop();
            continue;
        }
        let next = current.join(&part);
        let meta = fs::symlink_metadata(&next).map_err(|e| {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => "does not exist".to_owned(),
                _ => e.to_string(),
            };
            problem(&DATA_FILE_MISSING, missing(show(joined), why))
        })?;
        if !meta.file_type().is_symlink() {
            current = next;
            continue;
        }
        links += 1;
        if links > MAX_LINKS {
            return Err(problem(
                &NOT_REGULAR_FILE,
                format!(
                    "data path {} goes through more than {MAX_LINKS} symlinks: a symlink loop",
                    show(joined)
                ),
            ));
        }
        let target = fs::read_link(&next)
            .map_err(|e| problem(&DATA_FILE_MISSING, format!("symlink {}: {e}", show(&next))))?;
        last_link = Some((next, target.clone()));
        // An absolute text must name the folder itself before anything else: its ancestors
        // are outside and are not looked at.
        let mut rest = if target.is_absolute() {
            current = model_dir.to_path_buf();
            match target.strip_prefix(model_dir) {
                Ok(rest) => parts(rest),
                Err(_) => return Err(escape(&last_link)),
            }
        } else {
            parts(&target)
        };
        rest.extend(pending);
        pending = rest;
    }
    Ok((current, links > 0))
}

/// The names of `path`'s components, without `.`.
fn parts(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

#[cfg(unix)]
fn hard_links(meta: &fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    Some(meta.nlink())
}

#[cfg(not(unix))]
fn hard_links(_: &fs::Metadata) -> Option<u64> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A canonical model folder `m` beside a folder `outside`, each holding `w.data`.
    fn folders() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(root.path()).unwrap();
        let (model, outside) = (base.join("m"), base.join("outside"));
        fs::create_dir_all(model.join("sub")).unwrap();
        fs::create_dir(&outside).unwrap();
        fs::write(model.join("w.data"), b"in").unwrap();
        fs::write(outside.join("w.data"), b"out").unwrap();
        (root, model, outside)
    }

    fn code(model: &Path, location: &str) -> Result<PathBuf, &'static str> {
        resolve(model, &Location::new(location.as_bytes()))
            .map(|r| r.path)
            .map_err(|p| p.rule.code)
    }

    #[test]
    fn symlinks_are_followed_as_the_kernel_does_and_never_out_of_the_folder() {
        let (_root, model, outside) = folders();
        symlink("../w.data", model.join("sub/up")).unwrap();
        symlink(model.join("w.data"), model.join("abs")).unwrap();
        symlink(&outside, model.join("sub/out")).unwrap();
        // `out/..` is `outside/..` to the kernel, not `sub`: the link is followed first.
        symlink("out/../outside/w.data", model.join("sub/trick")).unwrap();
        symlink("../../outside/gone", model.join("dangling")).unwrap();
        symlink("loop", model.join("loop")).unwrap();
        assert_eq!(code(&model, "sub/up"), Ok(model.join("w.data")));
        assert_eq!(code(&model, "abs"), Ok(model.join("w.data")));
        assert_eq!(code(&model, "sub/out/w.data"), Err("DX002"));
        assert_eq!(code(&model, "sub/trick"), Err("DX002"));
        assert_eq!(code(&model, "dangling"), Err("DX002"));
        assert_eq!(code(&model, "loop"), Err("DX004"));
        assert_eq!(code(&model, "sub/none.data"), Err("DX006"));
    }
}
