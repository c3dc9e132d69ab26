//! Which parameter files belong to a program, and reading them.
//!
//! A program does not name its parameter file: by Paddle's convention `X.pdmodel` and
//! `X.json` pair with `X.pdiparams` in the same folder, a 1.x `__model__` or `model` with
//! `__params__` or `params`, and without those with one file per variable, named after it.
//! `--data FILE` overrides the convention. Files found by convention, and the
//! `.pdiparams.info` beside a combined file, are checked as data files (symlinks, special
//! files, hard links) before they are opened, and are read from the descriptor opened then.

use super::params::{self, Stream};
use super::program::Param;
use super::rules::DATA_FILE_UNUSED;
use crate::check::{Item, Place};
use crate::formats::shared::context::Context;
use crate::formats::shared::datafiles::rules::{cannot_open, DATA_FILE_MISSING};
use crate::formats::shared::datafiles::{DataFiles, Folder, LocationRules};
use crate::inventory::{FileEntry, FileId, FileRole, SectionKind};
use crate::source::ModelFile;
use std::path::Path;

/// Paddle adds no location rules of its own to the shared ones.
struct PaddleLocations;

impl LocationRules for PaddleLocations {}

/// Where a program's parameters are.
enum Plan {
    /// One combined file beside the program, by this name.
    Combined(Vec<u8>),
    /// One file per parameter, each named after its variable.
    PerVariable,
}

/// The parameter files of the program at `model`, by Paddle's naming convention, beside it
/// in `folder`.
fn plan(model: &Path, folder: &Folder) -> Plan {
    let name = model
        .file_name()
        .map(|n| n.as_encoded_bytes())
        .unwrap_or_default();
    if name == b"__model__" || name == b"model" {
        for combined in ["__params__", "params"] {
            if folder.exists(combined) {
                return Plan::Combined(combined.as_bytes().to_vec());
            }
        }
        return Plan::PerVariable;
    }
    let stem = model
        .file_stem()
        .map(|s| s.as_encoded_bytes())
        .unwrap_or_default();
    let mut combined = stem.to_vec();
    combined.extend_from_slice(b".pdiparams");
    Plan::Combined(combined)
}

/// Reads the parameters of `params`, the program in `model`, from the files `--data` names
/// (`data`) or else from those beside the program.
pub fn read(
    model: &ModelFile,
    data: &[std::path::PathBuf],
    params: &[Param],
    cx: &mut Context<'_>,
) {
    let Some((first, rest)) = data.split_first() else {
        if !params.is_empty() {
            beside(model, params, cx);
        }
        return;
    };
    let (used, unused) = if params.is_empty() {
        (None, data)
    } else {
        (Some(first), rest)
    };
    for path in unused {
        let why = match used {
            Some(first) => format!(
                "a Paddle program reads one parameter file, here {}",
                crate::escape::path(first)
            ),
            None => "the file has no parameters to pair with it".to_owned(),
        };
        let message = format!("--data {} is not used: {why}", crate::escape::path(path));
        cx.report(&DATA_FILE_UNUSED, Place::FILE, message);
    }
    if let Some(first) = used {
        given(first, params, cx);
    }
}

/// Reads the parameters from the files beside the program, by Paddle's naming convention.
fn beside(model: &ModelFile, params: &[Param], cx: &mut Context<'_>) {
    let mut files = DataFiles::new(model, &PaddleLocations);
    let mut read = Vec::new();
    match plan(model.path(), files.folder()) {
        Plan::Combined(location) => {
            if let Some(id) = files.file(&location, Place::FILE, &mut cx.inv, cx.out) {
                open(&files, id, params, cx);
                read.push(id);
                info(&mut files, location, cx);
            }
        }
        Plan::PerVariable => {
            for param in params {
                let place = Place::on(Item::Node {
                    graph: 0,
                    node: param.node,
                });
                if let Some(id) = files.file(param.name.as_bytes(), place, &mut cx.inv, cx.out) {
                    open(&files, id, std::slice::from_ref(param), cx);
                    read.push(id);
                }
            }
        }
    }
    // The headers of their records are the sections of the files read: their whole-file
    // sections go, in one pass.
    let mut whole = vec![false; cx.inv.files.len()];
    for id in read {
        if let Some(slot) = whole.get_mut(id) {
            *slot = true;
        }
    }
    cx.inv
        .sections
        .retain(|s| !(s.kind == SectionKind::ExternalData && whole.get(s.file) == Some(&true)));
}

/// Reads the `.pdiparams.info` beside the parameter file at `location`, if there is one: it
/// passes the data-file checks, and is read from the descriptor they vouch for.
fn info(files: &mut DataFiles, mut location: Vec<u8>, cx: &mut Context<'_>) {
    location.extend_from_slice(b".info");
    let present = std::str::from_utf8(&location).is_ok_and(|name| files.folder().exists(name));
    if !present {
        return;
    }
    let Some(id) = files.file(&location, Place::FILE, &mut cx.inv, cx.out) else {
        return;
    };
    // Its bytes are names, not tensor data: the section the data-file checks declared (the
    // last one) says so.
    let declared = cx.inv.sections.iter_mut().rev();
    if let Some(s) = declared
        .take_while(|s| s.file == id)
        .find(|s| s.kind == SectionKind::ExternalData)
    {
        s.kind = SectionKind::ModelData;
    }
    if let Some(file) = files.open(id, &cx.inv, cx.out) {
        super::info::read(file.bytes(), id, cx);
        DataFiles::report_change(&file, id, cx.out);
    }
}

/// Reads the data file `--data` named, trusted as the user's choice.
fn given(path: &Path, params: &[Param], cx: &mut Context<'_>) {
    let id = cx.inv.files.len();
    let file = match ModelFile::open(path) {
        Ok(f) => f,
        Err(e) => {
            return cx.report(&DATA_FILE_MISSING, Place::FILE, cannot_open(path, &e));
        }
    };
    cx.inv.files.push(FileEntry {
        path: path.to_owned(),
        size: Some(file.bytes().len() as u64),
        role: FileRole::ExternalData,
        identity: file.identity(),
    });
    stream(&file, id, params, cx);
}

/// Opens the checked data file `id` and reads its records.
fn open(files: &DataFiles, id: FileId, params: &[Param], cx: &mut Context<'_>) {
    if let Some(file) = files.open(id, &cx.inv, cx.out) {
        stream(&file, id, params, cx);
    }
}

fn stream(file: &ModelFile, id: FileId, params: &[Param], cx: &mut Context<'_>) {
    let label = file.path().file_name().map_or_else(
        || file.path().display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let stream = Stream {
        source: file,
        file: id,
        label: crate::escape::sanitize(&label).into_owned(),
    };
    params::read(&stream, Some(params), cx);
    DataFiles::report_change(file, id, cx.out);
}
