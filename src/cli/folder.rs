//! A folder named where one model is expected (`inspect`, `dump`, `diff`): the model files it
//! holds, found as `check` finds them, each opened from the folder with no symlink followed.

use super::{complain, Outcome};
use humansize::{format_size, BINARY};
use rtenx::formats::scan::{self, Scanned};
use rtenx::source::ModelFile;
use std::io::{self, Write};
use std::path::Path;

/// What a path given as a model names.
pub enum Named {
    /// A file, or the one model of a folder, opened.
    One(ModelFile),
    /// The models of a folder that holds several, in path order.
    Several(Vec<Scanned>),
}

/// Opens `path`, a model file or a folder; prints why not when it cannot.
pub fn open(path: &Path) -> Result<Named, Outcome> {
    if !path.is_dir() {
        return super::targets::open_named(path)
            .map(Named::One)
            .map_err(failed);
    }
    let found = scan::models_in(path);
    for e in &found.errors {
        complain(e);
    }
    let mut files = found.files;
    match (files.pop(), files.is_empty()) {
        (None, _) => {
            complain(format_args!(
                "{}: the folder holds no model file rtenx reads",
                path.display()
            ));
            Err(Outcome::Failure)
        }
        (Some(only), true) => only.open().map(Named::One).map_err(failed),
        (Some(last), false) => {
            files.push(last);
            Ok(Named::Several(files))
        }
    }
}

/// Opens `path` as one model: a folder that holds several is refused with their list.
pub fn open_one(path: &Path) -> Result<ModelFile, Outcome> {
    match open(path)? {
        Named::One(file) => Ok(file),
        Named::Several(models) => {
            // The list's names are escaped; a closed stderr leaves nothing to tell.
            let mut err = io::stderr().lock();
            let _ = write!(err, "rtenx: ").and_then(|()| write_list(&mut err, path, &models));
            Err(Outcome::Failure)
        }
    }
}

/// Writes the models of the folder `path`, one per line, and how to open one.
pub fn write_list(out: &mut impl Write, path: &Path, models: &[Scanned]) -> io::Result<()> {
    let folder = path.display().to_string();
    let folder = rtenx::escape::sanitize(&folder);
    writeln!(
        out,
        "{folder} holds {} model files; name one, or check them all with `rtenx check {folder}`:",
        models.len()
    )?;
    for row in rows(models) {
        writeln!(out, "  {row}")?;
    }
    Ok(())
}

/// Each model as a line: its path (escaped), format and size, in columns.
pub fn rows(models: &[Scanned]) -> Vec<String> {
    let names: Vec<String> = (models.iter())
        .map(|m| rtenx::escape::sanitize(&m.path.display().to_string()).into_owned())
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max();
    let width = width.unwrap_or(0).min(100);
    (models.iter().zip(names))
        .map(|(m, name)| {
            let size = format_size(m.size, BINARY);
            format!("{name:<width$}  {:<12} {size:>10}", m.format)
        })
        .collect()
}

fn failed(e: rtenx::OpenError) -> Outcome {
    complain(e);
    Outcome::Failure
}
