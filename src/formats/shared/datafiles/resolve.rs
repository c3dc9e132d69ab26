//! Where a lexically safe location leads on the file system.
//!
//! Each level of the path is examined with `lstat`, and the whole path must stay inside the
//! model's folder. Nothing here opens a file.

use super::location::{problem, show, Location, Problem};
use super::rules::*;
use crate::source::FileIdentity;
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
}

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
    let mut warnings = Vec::new();
    let mut through_symlink = false;
    let mut prefix = model_dir.to_path_buf();
    for component in location.components() {
        let Component::Normal(part) = component else {
            continue;
        };
        prefix.push(part);
        let Ok(meta) = fs::symlink_metadata(&prefix) else {
            break;
        };
        if meta.file_type().is_symlink() {
            through_symlink = true;
            let escape = |to: &Path, note: &str| {
                let (link, to, dir) = (show(&prefix), show(to), show(model_dir));
                Err(problem(
                    &SYMLINK_ESCAPE,
                    format!(
                        "\"{link}\" is a symlink to {to}, outside the model's folder {dir}{note}"
                    ),
                ))
            };
            match fs::canonicalize(&prefix) {
                Ok(target) if !target.starts_with(model_dir) => return escape(&target, ""),
                Ok(_) => {}
                // A dangling link is judged by where its text points.
                Err(_) => {
                    let Ok(target) = fs::read_link(&prefix) else {
                        continue;
                    };
                    let base = prefix.parent().unwrap_or(model_dir);
                    if !normalize(&base.join(&target)).starts_with(model_dir) {
                        return escape(&target, " (the target does not exist)");
                    }
                }
            }
        }
    }
    let real = match fs::canonicalize(&joined) {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(problem(
                &DATA_FILE_MISSING,
                format!("data file {} does not exist", show(&joined)),
            ));
        }
        Err(e) => {
            return Err(problem(
                &DATA_FILE_MISSING,
                format!("data file {}: {e}", show(&joined)),
            ))
        }
    };
    if !real.starts_with(model_dir) {
        return Err(problem(
            &SYMLINK_ESCAPE,
            format!(
                "data file {} resolves to {}, outside the model's folder",
                show(&joined),
                show(&real)
            ),
        ));
    }
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
    let meta = fs::metadata(&real).map_err(|e| {
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
    })
}

/// `path` with `.` and `..` applied as text, without asking the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_applies_dots_as_text() {
        assert_eq!(
            normalize(Path::new("/m/d/../../etc/./x")),
            Path::new("/etc/x")
        );
        assert_eq!(normalize(Path::new("/m/./w.data")), Path::new("/m/w.data"));
        assert_eq!(normalize(Path::new("/../..")), Path::new("/"));
    }
}
