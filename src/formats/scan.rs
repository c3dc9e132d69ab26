//! Which files of a folder are checked, as each format claims them.
//!
//! The folder is opened once, and each file found below it is later opened from it with no
//! symlink followed, and only if it is still the file the walk saw ([`Scanned::open`]).

use super::registry::FORMATS;
use super::{Format, Scan};
use crate::source::{FileIdentity, ModelFile, OpenError, ScanRoot};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An entry of a folder that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ScanError {
    /// The entry, or the folder the walk was in.
    pub path: PathBuf,
    /// Why it could not be read.
    pub message: String,
}

impl ScanError {
    fn new(path: PathBuf, e: &std::io::Error) -> Self {
        let message = e.to_string();
        ScanError { path, message }
    }

    /// An entry the walk could not read (`dir` if it names none); walkdir's own message
    /// repeats the path, so only the OS error is kept when there is one.
    fn walk(e: &walkdir::Error, dir: &Path) -> Self {
        let path = e.path().unwrap_or(dir).to_owned();
        let message = e
            .io_error()
            .map_or_else(|| e.to_string(), ToString::to_string);
        ScanError { path, message }
    }
}

/// A file a scan found: its path, and which file it was when the walk saw it.
#[derive(Debug)]
pub struct Scanned {
    /// The path, below the folder scanned.
    pub path: PathBuf,
    /// The name of the format that claims it.
    pub format: &'static str,
    /// Its size in bytes when the walk saw it.
    pub size: u64,
    identity: Option<FileIdentity>,
    root: Arc<ScanRoot>,
}

impl Scanned {
    /// Opens and maps the file from the scanned folder, following no symlink; a file
    /// swapped in since the walk saw it is refused ([`OpenError::Changed`]).
    pub fn open(&self) -> Result<ModelFile, OpenError> {
        ModelFile::open_in(&self.root, &self.path, self.identity)
    }
}

/// What a scan found: the files to check, in path order, and the entries it could not read.
#[derive(Debug, Default)]
pub struct Found {
    /// Model files, and data files that no model of their format in the folder claims.
    pub files: Vec<Scanned>,
    /// Entries that could not be read; each one is a reason for exit code 2.
    pub errors: Vec<ScanError>,
}

/// Bytes read from a file whose name alone does not decide (such as `.json`).
pub const HEAD: usize = 4096;

/// The files below `dir` that some format claims. Symlinks below `dir` are not followed.
pub fn models_in(dir: &Path) -> Found {
    claimed_by(dir, FORMATS)
}

/// How the formats claim a file, by its name.
pub struct Claim {
    /// The format that claims it: the first that claims it by name, else the first that
    /// would by its content.
    pub format: &'static dyn Format,
    /// How.
    pub scan: Scan,
    /// The formats that would claim it by content.
    by_content: Vec<&'static dyn Format>,
}

impl Claim {
    /// The format whose detector claims the file that starts with `head` (its first
    /// [`HEAD`] bytes), for a claim by content.
    pub fn detect(&self, head: &[u8]) -> Option<&'static dyn Format> {
        (self.by_content.iter().copied()).find(|f| f.detect(head) != super::Detection::No)
    }
}

/// How the formats claim the file `path`, if one does: a claim by name wins; a file several
/// formats claim only by content (`.json`) is the first one's that detects it
/// ([`Claim::detect`]). A local folder's walk and a remote repository's listing both ask.
pub fn claim(path: &Path) -> Option<Claim> {
    claim_in(path, FORMATS)
}

fn claim_in(path: &Path, formats: &[&'static dyn Format]) -> Option<Claim> {
    let claims: Vec<_> = (formats.iter())
        .map(|f| (*f, f.scan(path)))
        .filter(|(_, scan)| *scan != Scan::Skip)
        .collect();
    let by_name = (claims.iter()).find(|(_, scan)| matches!(scan, Scan::Model | Scan::Companion));
    let &(format, scan) = by_name.or(claims.first())?;
    let by_content = (claims.iter())
        .filter(|(_, scan)| *scan == Scan::ModelIfDetected)
        .map(|(f, _)| *f)
        .collect();
    Some(Claim {
        format,
        scan,
        by_content,
    })
}

/// Which of the files `claimed` (each its path, format and claim) are checked: the models,
/// and the data files that no model of their format in the same folder claims, which go
/// with it.
pub fn checked(claimed: &[(&Path, &'static dyn Format, Scan)]) -> Vec<bool> {
    let with_model: HashSet<(Option<&Path>, &str)> = (claimed.iter())
        .filter(|(_, _, scan)| *scan != Scan::Companion)
        .map(|(path, format, _)| (path.parent(), format.about().name))
        .collect();
    (claimed.iter())
        .map(|(path, format, scan)| {
            *scan != Scan::Companion || !with_model.contains(&(path.parent(), format.about().name))
        })
        .collect()
}

fn claimed_by(dir: &Path, formats: &[&'static dyn Format]) -> Found {
    let mut found = Found::default();
    let root = match ScanRoot::open(dir) {
        Ok(root) => Arc::new(root),
        Err(e) => {
            found.errors.push(ScanError::new(dir.to_owned(), &e));
            return found;
        }
    };
    let mut claimed: Vec<(Scanned, &'static dyn Format, Scan)> = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(false) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                found.errors.push(ScanError::walk(&e, dir));
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(claim) = claim_in(entry.path(), formats) else {
            continue;
        };
        let (mut format, scan) = (claim.format, claim.scan);
        // The file as the walk sees it (lstat): what it must still be when it is opened.
        let (identity, size) = match entry.metadata() {
            Ok(meta) if meta.is_file() => (FileIdentity::of(&meta), meta.len()),
            Ok(_) => continue,
            Err(e) => {
                found.errors.push(ScanError::walk(&e, dir));
                continue;
            }
        };
        let path = entry.into_path();
        if scan == Scan::ModelIfDetected {
            let head = match crate::source::read_head(&root, &path, identity, HEAD) {
                Ok(head) => head,
                Err(e) => {
                    found.errors.push(ScanError::new(path, &e));
                    continue;
                }
            };
            let Some(detector) = claim.detect(&head) else {
                continue;
            };
            format = detector;
        }
        let root = Arc::clone(&root);
        let file = Scanned {
            path,
            format: format.about().name,
            size,
            identity,
            root,
        };
        claimed.push((file, format, scan));
    }
    let keep = checked(
        &(claimed.iter())
            .map(|(file, format, scan)| (file.path.as_path(), *format, *scan))
            .collect::<Vec<_>>(),
    );
    found.files = claimed
        .into_iter()
        .zip(keep)
        .filter_map(|((file, ..), keep)| keep.then_some(file))
        .collect();
    found.files.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Findings;
    use crate::formats::{About, Detection, ReadOptions};
    use crate::inventory::Inventory;

    /// A format with a program (`.prog`), data files (`.dat`) and JSON programs.
    struct Programs;

    static ABOUT: About = About {
        name: "programs",
        extensions: &["prog"],
        rules: &crate::check::generic::GROUP,
    };

    impl Format for Programs {
        fn about(&self) -> &'static About {
            &ABOUT
        }
        fn detect(&self, bytes: &[u8]) -> Detection {
            if bytes.starts_with(b"{\"program\"") {
                Detection::Magic
            } else {
                Detection::No
            }
        }
        fn read(&self, _: &ModelFile, _: &ReadOptions, _: &mut Findings) -> Inventory {
            unreachable!("a scan reads no file")
        }
        fn scan(&self, path: &Path) -> Scan {
            match crate::formats::extension(path).as_deref() {
                Some("prog") => Scan::Model,
                Some("dat") => Scan::Companion,
                Some("json") => Scan::ModelIfDetected,
                _ => Scan::Skip,
            }
        }
    }

    #[test]
    fn data_files_go_with_their_program_and_json_needs_content() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, content: &[u8]| {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        };
        write("a/model.prog", b"");
        write("a/model.dat", b"");
        write("a/config.json", b"{\"name\": 1}");
        write("b/lonely.dat", b"");
        write("c/net.json", b"{\"program\": 2}");
        write("c/notes.txt", b"");
        let found = claimed_by(dir.path(), &[&Programs]);
        let names: Vec<_> = found
            .files
            .iter()
            .map(|f| f.path.strip_prefix(dir.path()).unwrap().to_owned())
            .collect();
        let expected = ["a/model.prog", "b/lonely.dat", "c/net.json"];
        assert_eq!(names, expected.map(PathBuf::from));
        assert!(found.errors.is_empty());
    }

    #[test]
    fn entries_that_cannot_be_read_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone");
        let found = models_in(&missing);
        assert!(found.files.is_empty());
        assert_eq!(found.errors.len(), 1);
        assert_eq!(found.errors[0].path, missing);
    }
}
