//! The model on disk against the signed manifest: the folder walked as `model_signing`
//! walks it (the signed ignore paths and the signature file left out), every file on disk in
//! the manifest and every resource on disk, and each file or shard hashed, memory-mapped, the
//! files spread over the cores. No symlink is followed out of the model, and files are opened
//! below the model's folder without following any (`ScanRoot`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::manifest::{self, hex, Manifest, Part};
use super::problem::Problem;
use super::Signed;
use crate::source::{FileIdentity, ModelFile, ScanRoot};

/// Checks the model at `model` (a folder, or a single file) against `signed`, whose bundle
/// is the file `signature`; the problems in the order found.
pub fn check(model: &Path, signature: Option<&Path>, signed: &Signed) -> Vec<Problem> {
    let mut problems = Vec::new();
    let Some(manifest) = manifest::of(signed, &mut problems) else {
        return problems;
    };
    if manifest.files.is_empty() {
        problems.push(Problem::NothingCovered);
    }
    let (root, disk) = match on_disk(model, signature, &manifest, &mut problems) {
        Ok(found) => found,
        Err(why) => {
            problems.push(Problem::Missing {
                name: ".".into(),
                why: format!("model cannot be listed: {why}"),
            });
            return problems;
        }
    };
    let mut jobs = Vec::new();
    let mut signed_files = manifest.files.iter().peekable();
    for file in &disk {
        while let Some((name, _)) = signed_files.next_if(|(name, _)| **name < file.path.as_str()) {
            missing(name, &mut problems);
        }
        match signed_files.next_if(|(name, _)| **name == file.path.as_str()) {
            Some((_, parts)) => jobs.push((file, parts.as_slice())),
            // Shards of an empty file are none: `model_signing` lists no resource for it.
            None if manifest.shard_size.is_some() && file.len == 0 => {}
            None => problems.push(Problem::NotSigned {
                path: file.path.clone(),
                range: None,
            }),
        }
    }
    for (name, _) in signed_files {
        missing(name, &mut problems);
    }
    problems.extend(hash_all(root.as_ref(), &jobs, &manifest));
    problems
}

fn missing(name: &str, problems: &mut Vec<Problem>) {
    problems.push(Problem::Missing {
        name: name.to_owned(),
        why: "is not in the model".into(),
    });
}

/// A file found in the model.
#[derive(Debug)]
struct DiskFile {
    /// Relative POSIX path, or `.` for a single-file model.
    path: String,
    /// Where to open it: below the root, or the named file itself.
    open: PathBuf,
    identity: Option<FileIdentity>,
    len: u64,
}

/// The files of the model as the signer saw them, sorted by path; the root they are opened
/// below (`None` for a single file).
fn on_disk(
    model: &Path,
    signature: Option<&Path>,
    manifest: &Manifest<'_>,
    problems: &mut Vec<Problem>,
) -> std::io::Result<(Option<ScanRoot>, Vec<DiskFile>)> {
    // The user named the model: a symlink naming it is followed.
    let meta = std::fs::metadata(model)?;
    if meta.is_file() {
        let file = DiskFile {
            path: ".".into(),
            open: model.to_owned(),
            identity: FileIdentity::of(&meta),
            len: meta.len(),
        };
        return Ok((None, vec![file]));
    }
    let root_path = std::fs::canonicalize(model)?;
    let root = ScanRoot::open(&root_path)?;
    let signature = signature
        .and_then(|s| std::fs::canonicalize(s).ok())
        .and_then(|s| s.strip_prefix(&root_path).ok().map(Path::to_owned));
    let mut files = Vec::new();
    let mut walk = walkdir::WalkDir::new(&root_path)
        .follow_links(false)
        .min_depth(1)
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let at = e.path().and_then(|p| p.strip_prefix(&root_path).ok());
                problems.push(Problem::Missing {
                    name: at.map_or(".".into(), |p| p.to_string_lossy().into_owned()),
                    why: format!("cannot be listed: {e}"),
                });
                continue;
            }
        };
        let rel = entry
            .path()
            .strip_prefix(&root_path)
            .unwrap_or(entry.path());
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let borrowed: Vec<&str> = parts.iter().map(String::as_str).collect();
        if manifest.ignores(&borrowed) || signature.as_deref() == Some(rel) {
            if entry.file_type().is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        let path = borrowed.join("/");
        let kind = entry.file_type();
        if kind.is_dir() {
            continue;
        }
        let meta = match entry.metadata() {
            Ok(meta) => meta,
            Err(e) => {
                problems.push(Problem::Missing {
                    name: path,
                    why: format!("cannot be read: {e}"),
                });
                continue;
            }
        };
        if kind.is_file() {
            files.push(DiskFile {
                path,
                open: entry.path().to_owned(),
                identity: FileIdentity::of(&meta),
                len: meta.len(),
            });
        } else if kind.is_symlink() {
            match symlink_target(entry.path(), &root_path, manifest.allow_symlinks) {
                Ok((open, meta)) => files.push(DiskFile {
                    path,
                    open,
                    identity: FileIdentity::of(&meta),
                    len: meta.len(),
                }),
                Err(why) => problems.push(Problem::Symlink { path, why }),
            }
        } else {
            problems.push(Problem::Symlink {
                path,
                why: "is neither a regular file nor a folder",
            });
        }
    }
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok((Some(root), files))
}

/// The file a symlink in the model leads to, if the signature allows symlinks and the file
/// is a regular one inside the model.
fn symlink_target(
    link: &Path,
    root: &Path,
    allowed: bool,
) -> Result<(PathBuf, std::fs::Metadata), &'static str> {
    if !allowed {
        return Err("is a symlink, which the signature does not allow");
    }
    let target = std::fs::canonicalize(link).map_err(|_| "is a symlink that leads nowhere")?;
    if !target.starts_with(root) {
        return Err("is a symlink to a path outside the model");
    }
    let meta = std::fs::metadata(&target).map_err(|_| "is a symlink that leads nowhere")?;
    if !meta.is_file() {
        return Err("is a symlink to something other than a regular file");
    }
    Ok((target, meta))
}

/// Hashes every file that is both on disk and signed, across the cores; the problems in the
/// order of `jobs`.
fn hash_all(
    root: Option<&ScanRoot>,
    jobs: &[(&DiskFile, &[Part<'_>])],
    manifest: &Manifest<'_>,
) -> Vec<Problem> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(jobs.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Vec<Problem>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((file, parts)) = jobs.get(i) else {
                            break out;
                        };
                        out.push((i, hash_file(root, file, parts, manifest)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().flat_map(|(_, p)| p).collect()
}

/// One file against its signed parts.
fn hash_file(
    root: Option<&ScanRoot>,
    file: &DiskFile,
    parts: &[Part<'_>],
    manifest: &Manifest<'_>,
) -> Vec<Problem> {
    let opened = match root {
        Some(root) => ModelFile::open_in(root, &file.open, file.identity),
        None => ModelFile::open_same(&file.open, file.identity),
    };
    let opened = match opened {
        Ok(opened) => opened,
        Err(e) => {
            return vec![Problem::Missing {
                name: file.path.clone(),
                why: format!("cannot be opened: {e}"),
            }]
        }
    };
    let bytes = opened.bytes();
    let digest = |range: std::ops::Range<usize>| {
        manifest
            .hash
            .digest(&bytes[range], |block| opened.release(block))
    };
    let mut problems = Vec::new();
    match manifest.shard_size {
        None => {
            if let Some(part) = parts.first() {
                compare(part, &digest(0..bytes.len()), &mut problems);
            }
        }
        Some(size) => {
            let len = bytes.len() as u64;
            let mut signed = parts.iter().peekable();
            let mut start = 0u64;
            while start < len {
                let end = start.saturating_add(size).min(len);
                while let Some(part) = signed.next_if(|p| p.range < Some((start, end))) {
                    compare_missing_shard(part, len, &mut problems);
                }
                if let Some(part) = signed.next_if(|p| p.range == Some((start, end))) {
                    // Both offsets are at most the map's length.
                    compare(part, &digest(start as usize..end as usize), &mut problems);
                    start = end;
                    continue;
                }
                // Shards no part signs, up to the shard where the next signed part starts:
                // one problem and one step, however small the signed shard size.
                let next = signed.peek().and_then(|p| p.range).map_or(len, |(s, _)| s);
                let shards = next.saturating_sub(start).div_ceil(size).max(1);
                let gap_end = start.saturating_add(shards.saturating_mul(size)).min(len);
                problems.push(Problem::NotSigned {
                    path: file.path.clone(),
                    range: Some((start, gap_end)),
                });
                start = gap_end;
            }
            for part in signed {
                compare_missing_shard(part, len, &mut problems);
            }
        }
    }
    if let Some(change) = opened.changed() {
        problems.push(Problem::Missing {
            name: file.path.clone(),
            why: format!("changed while it was read: {change}"),
        });
    }
    problems
}

/// The signed digest against the one computed.
fn compare(part: &Part<'_>, actual: &[u8], problems: &mut Vec<Problem>) {
    if actual != part.digest {
        problems.push(Problem::Digest {
            name: part.name.to_owned(),
            expected: hex(part.digest),
            actual: hex(actual),
        });
    }
}

/// A signed shard that is not a shard of the file as it is.
fn compare_missing_shard(part: &Part<'_>, len: u64, problems: &mut Vec<Problem>) {
    problems.push(Problem::Missing {
        name: part.name.to_owned(),
        why: format!("is not a shard of the file as it is now ({len} bytes)"),
    });
}
