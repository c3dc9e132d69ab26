//! Format readers. Each format lives in its own folder and is listed in [`FORMATS`].
//!
//! A reader detects its format from the content, reads the mapped bytes without trusting
//! any offset, and returns the shared [`Inventory`] plus its own findings.

pub mod onnx;
pub mod rten;

use crate::check::{Findings, Rule};
use crate::inventory::Inventory;
use crate::source::ModelFile;

/// How sure a reader is that bytes are in its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detection {
    /// Not this format.
    No,
    /// The content is plausible but carries no magic (for example a bare FlatBuffer).
    Plausible,
    /// The content carries this format's magic.
    Magic,
}

/// A model format rtenx can read.
pub trait Format: Sync {
    /// Short name, such as `rten`.
    fn name(&self) -> &'static str;
    /// File extensions (lower case, no dot) searched for in directories.
    fn extensions(&self) -> &'static [&'static str];
    /// The format's own check rules.
    fn rules(&self) -> &'static [&'static Rule];
    /// Decides from the content whether `bytes` are in this format.
    fn detect(&self, bytes: &[u8]) -> Detection;
    /// Reads the file into an inventory, appending findings. Never panics.
    fn read(&self, file: &ModelFile, options: &ReadOptions, findings: &mut Findings) -> Inventory;
}

/// What a reader does beyond reading structure.
#[derive(Default)]
pub struct ReadOptions<'a> {
    /// Hash external data files and compare them with the checksums the model records.
    /// This is the only option that reads tensor bytes.
    pub verify_checksums: bool,
    /// Called with (bytes done, bytes in all) while long work such as hashing runs.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
}

/// Every supported format.
pub static FORMATS: &[&dyn Format] = &[&rten::Rten, &onnx::Onnx];

/// The format of `file`: the strongest detection wins; among equally plausible formats the
/// one whose extension matches the file name is preferred.
pub fn detect(file: &ModelFile) -> Option<&'static dyn Format> {
    let ext = file
        .path()
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    FORMATS
        .iter()
        .map(|f| (f.detect(file.bytes()), f))
        .filter(|(d, _)| *d != Detection::No)
        .max_by_key(|(d, f)| {
            (
                *d,
                ext.as_deref().is_some_and(|e| f.extensions().contains(&e)),
            )
        })
        .map(|(_, f)| *f)
}

/// True if `path` has an extension some format reads.
pub fn is_model_path(path: &std::path::Path) -> bool {
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
        return false;
    };
    let ext = ext.to_ascii_lowercase();
    FORMATS
        .iter()
        .any(|f| f.extensions().contains(&ext.as_str()))
}
