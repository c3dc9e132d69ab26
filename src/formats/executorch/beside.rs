//! The `.ptd` files beside a program. Each is checked as a data file (a symlink out of the
//! folder, a FIFO or folder, a hard link: DX002-DX008) before it is opened, and then opened
//! from its canonical path without following symlinks, only if it is still the file that was
//! checked: a file swapped meanwhile is refused and reported, never followed.

use crate::check::{Finding, Findings, Place};
use crate::formats::shared::datafiles::rules::{cannot_open, DATA_FILE_MISSING};
use crate::formats::shared::datafiles::{DataFiles, Folder, LocationRules};
use crate::inventory::{FileFormat, FileId, Inventory};
use crate::source::ModelFile;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Data files beside a program that are looked at, at most.
const MAX_CANDIDATES: usize = 64;

/// ExecuTorch adds no location rules of its own to the shared ones.
struct Locations;

impl LocationRules for Locations {}

/// A data file found beside the program, open.
pub struct Found {
    /// The file, as checked, opened from its canonical path.
    pub file: ModelFile,
    /// Its path as the program's path names its folder, for the inventory and messages.
    pub path: PathBuf,
    /// Warnings about how it is reached (such as DX003 through a symlink inside the folder),
    /// in file 0, to report if it is paired.
    pub notes: Vec<Finding>,
}

/// The `.ptd` files beside `model`, by name, at most [`MAX_CANDIDATES`], open. One that
/// cannot be used (out of the folder, not a regular file, swapped after it was checked) is
/// reported in `out`.
pub fn find(model: &ModelFile, out: &mut Findings) -> Vec<Found> {
    let path = model.path();
    let mut files = DataFiles::new(model, &Locations);
    // DataFiles adds each usable file to an inventory; this one is thrown away.
    let mut scratch = Inventory::of_model(FileFormat::Read("executorch"), model);
    let mut found: Vec<(FileId, Found)> = Vec::new();
    for name in names(path, files.folder()) {
        let mut notes = Findings::default();
        let checked = files.file(
            name.as_encoded_bytes(),
            Place::FILE,
            &mut scratch,
            &mut notes,
        );
        let Some(id) = checked else {
            notes.into_vec().into_iter().for_each(|f| out.push(f));
            continue;
        };
        let notes: Vec<Finding> = (notes.into_vec().into_iter())
            .map(|f| Finding { file: 0, ..f })
            .collect();
        // Two names for one file (a symlink inside the folder to another .ptd) are one file.
        if let Some((_, earlier)) = found.iter_mut().find(|(seen, _)| *seen == id) {
            earlier.notes.extend(notes);
            continue;
        }
        let Some(checked_path) = scratch.files.get(id).map(|f| f.path.clone()) else {
            continue;
        };
        let identity = files.identities().get(&id).copied();
        let shown = files.folder().shown(Path::new(&name));
        match (files.folder()).open(Path::new(&name), &checked_path, identity) {
            Ok(file) => found.push((
                id,
                Found {
                    file,
                    path: shown,
                    notes,
                },
            )),
            Err(e) => out.add(&DATA_FILE_MISSING, Place::FILE, cannot_open(&shown, &e)),
        }
    }
    found.into_iter().map(|(_, f)| f).collect()
}

/// The names ending in `.ptd` in the program's folder other than its own, of any file type,
/// sorted, at most [`MAX_CANDIDATES`].
fn names(model: &Path, folder: &Folder) -> Vec<OsString> {
    let own = model.file_name();
    let ptd = |n: &std::ffi::OsStr| {
        Some(n) != own && crate::formats::extension(Path::new(n)).as_deref() == Some("ptd")
    };
    let mut names = folder.names(ptd, MAX_CANDIDATES * 16);
    names.sort();
    names.truncate(MAX_CANDIDATES);
    names
}
