//! The one list of formats.
//!
//! Adding a format is a folder under `formats/` plus one line in [`FORMATS`]; its rules,
//! detection and directory scanning come with it. Everything that needs to know every
//! format (detection, folder scans, [`crate::catalogue`] of every rule) asks here.

use super::foreign::{self, Foreign};
use super::shared::{datafiles, hdf5, hf, pickle, zip};
use super::{extension, Detection, Format, Scan};
use crate::check::{generic, RuleGroup};
use crate::source::ModelFile;

/// Every format rtenx reads. Of two formats equally sure of a file, whose extension neither
/// claims, the later one reads it: plain pickles after PyTorch (which also takes any pickle
/// `torch.load` would unpickle), any zip last.
pub static FORMATS: &[&dyn Format] = &[
    &super::rten::Rten,
    &super::onnx::Onnx,
    &super::executorch::ExecuTorch,
    &super::tflite::TfLite,
    &super::litertlm::LiteRtLm,
    &super::paddle::Paddle,
    &super::gguf::Gguf,
    &super::safetensors::Safetensors,
    &super::pytorch::PyTorch,
    &super::pickle::Pickles,
    &super::numpy::NumPy,
    &super::keras::Keras,
    &super::archive::Archives,
];

/// Rule groups of readers that belong to no one format: the format-neutral rules readers
/// raise too, the data-file rules, and the pickle, zip and Hugging Face rules of the formats
/// built on them. Every rule of rtenx is listed by [`crate::catalogue`].
pub static SHARED_GROUPS: &[&RuleGroup] = &[
    &generic::GROUP,
    &datafiles::rules::GROUP,
    &pickle::rules::GROUP,
    &zip::rules::GROUP,
    &hdf5::rules::GROUP,
    &hf::rules::GROUP,
];

/// What a file is, as far as its content tells.
#[derive(Clone, Copy)]
pub enum Detected {
    /// A format rtenx reads.
    Read(&'static dyn Format),
    /// A known format rtenx does not read.
    NotRead(&'static Foreign),
    /// Nothing rtenx knows.
    Unknown,
}

/// The format of `file`: the strongest detection wins, and among equally strong ones, a
/// format whose extension matches the file name, then a format rtenx reads.
pub fn detect(file: &ModelFile) -> Detected {
    let bytes = file.bytes();
    let ext = extension(file.path());
    let named = |exts: &[&str]| ext.as_deref().is_some_and(|e| exts.contains(&e));
    let read: Vec<_> = (FORMATS.iter())
        .map(|f| {
            (
                (f.detect(bytes), named(f.about().extensions), true),
                Detected::Read(*f),
            )
        })
        .collect();
    // A format rtenx reads whose magic and extension both match outranks every format it
    // does not read, whose detectors then need not look (some look far into the file, which
    // a remote file would fetch).
    let sure = read
        .iter()
        .any(|(rank, _)| *rank == (Detection::Magic, true, true));
    let not_read = (foreign::FOREIGN.iter()).filter(|_| !sure).map(|f| {
        let rank = ((f.detect)(bytes), named(f.extensions), false);
        (rank, Detected::NotRead(f))
    });
    read.into_iter()
        .chain(not_read)
        .filter(|((detection, ..), _)| *detection != Detection::No)
        .max_by_key(|(rank, _)| *rank)
        .map_or(Detected::Unknown, |(_, found)| found)
}

/// What `file` is if not in `format` (see [`super::Identify`]).
pub fn identify(file: &ModelFile, format: &str) -> Option<String> {
    match detect(file) {
        Detected::Read(f) if f.about().name != format => {
            Some(format!("a model in the {} format", f.about().name))
        }
        Detected::NotRead(f) => Some(f.title.to_owned()),
        _ => None,
    }
}

/// When the extension of `path` belongs to another format than `format`, which its content
/// is in: the message that names both. An extension that formats claim only by content
/// (`.json`) names no format.
pub fn misnamed(format: &dyn Format, path: &std::path::Path) -> Option<String> {
    let ext = extension(path)?;
    if format.scan(path) != Scan::Skip
        || FORMATS
            .iter()
            .any(|f| f.scan(path) == Scan::ModelIfDetected)
    {
        return None;
    }
    let read = FORMATS.iter().find(|f| f.scan(path) != Scan::Skip);
    let owner = match read {
        Some(f) => f.about().name,
        None => {
            foreign::FOREIGN
                .iter()
                .find(|f| f.extensions.contains(&ext.as_str()))?
                .title
        }
    };
    Some(format!(
        "the extension .{ext} says {owner}, but the content is {}",
        format.about().name
    ))
}
