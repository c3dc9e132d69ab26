//! Which files of a folder are checked, as each format claims them.

use super::registry::FORMATS;
use super::{Format, Scan};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// An entry of a folder that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ScanError {
    /// The entry, or the folder the walk was in.
    pub path: PathBuf,
    /// Why it could not be read.
    pub message: String,
}

/// What a scan found: the files to check, in path order, and the entries it could not read.
#[derive(Debug, Default)]
pub struct Found {
    /// Model files, and data files that no model of their format in the folder claims.
    pub files: Vec<PathBuf>,
    /// Entries that could not be read; each one is a reason for exit code 2.
    pub errors: Vec<ScanError>,
}

/// Bytes read from a file whose name alone does not decide (such as `.json`).
const HEAD: usize = 4096;

/// The files below `dir` that some format claims. Symlinks are not followed.
pub fn models_in(dir: &Path) -> Found {
    claimed_by(dir, FORMATS)
}

fn claimed_by(dir: &Path, formats: &[&'static dyn Format]) -> Found {
    let mut found = Found::default();
    let mut claimed: Vec<(PathBuf, &'static dyn Format, Scan)> = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(false) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let path = e.path().unwrap_or(dir).to_owned();
                let message = e
                    .io_error()
                    .map_or_else(|| e.to_string(), ToString::to_string);
                found.errors.push(ScanError { path, message });
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.into_path();
        let claim = formats
            .iter()
            .map(|f| (*f, f.scan(&path)))
            .find(|(_, scan)| *scan != Scan::Skip);
        let Some((format, scan)) = claim else {
            continue;
        };
        if scan == Scan::ModelIfDetected {
            match crate::source::read_head(&path, HEAD) {
                Ok(head) if format.detect(&head) != super::Detection::No => {}
                Ok(_) => continue,
                Err(e) => {
                    found.errors.push(ScanError {
                        path,
                        message: e.to_string(),
                    });
                    continue;
                }
            }
        }
        claimed.push((path, format, scan));
    }
    // The folders that hold a model of each format: a data file there goes with it.
    let with_model: HashSet<(Option<&Path>, &str)> = claimed
        .iter()
        .filter(|(_, _, scan)| *scan != Scan::Companion)
        .map(|(path, format, _)| (path.parent(), format.name()))
        .collect();
    found.files = claimed
        .iter()
        .filter(|(path, format, scan)| {
            *scan != Scan::Companion || !with_model.contains(&(path.parent(), format.name()))
        })
        .map(|(path, ..)| path.clone())
        .collect();
    found.files.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Findings, RuleGroup};
    use crate::formats::{Detection, ReadOptions};
    use crate::inventory::Inventory;
    use crate::source::ModelFile;

    /// A format with a program (`.prog`), data files (`.dat`) and JSON programs.
    struct Programs;

    impl Format for Programs {
        fn name(&self) -> &'static str {
            "programs"
        }
        fn rules(&self) -> &'static RuleGroup {
            &crate::check::generic::GROUP
        }
        fn extensions(&self) -> &'static [&'static str] {
            &["prog"]
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
            .map(|p| p.strip_prefix(dir.path()).unwrap().to_owned())
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
