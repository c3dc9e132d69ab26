//! Format readers, and what they share.
//!
//! Each format lives in its own folder and is listed once in [`registry::FORMATS`]. A reader
//! detects its format from the content, reads the mapped bytes without trusting any offset,
//! and returns the shared [`Inventory`] plus its own findings. [`shared`] holds the pieces
//! formats are built from (protobuf, FlatBuffers, data files); [`foreign`] recognises the
//! formats rtenx does not read, so that they are named rather than misread.
//!
//! Hand-written reader code may not index, slice or cast a number without a check: bytes and
//! numbers from the file go through [`shared::bytes`], and the generated modules opt out.

#![warn(
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]
// Tests build their inputs by hand; the readers they test are held to the lints above.
#![cfg_attr(
    test,
    allow(
        clippy::indexing_slicing,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_possible_wrap
    )
)]

pub mod archive;
pub mod executorch;
pub mod foreign;
pub mod gguf;
pub mod keras;
pub mod litertlm;
pub mod numpy;
pub mod onnx;
pub mod paddle;
pub mod pickle;
pub mod pytorch;
pub mod registry;
pub mod rten;
pub mod safetensors;
pub mod scan;
pub mod shared;
pub mod tflite;

use crate::check::{Findings, RuleGroup};
use crate::inventory::{ByteRange, Inventory};
use crate::source::fetched::Fetched;
use crate::source::ModelFile;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// How sure a detector is that bytes are in its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detection {
    /// Not this format.
    No,
    /// The content is plausible but carries no magic (for example a bare FlatBuffer).
    Plausible,
    /// The content carries this format's magic.
    Magic,
}

/// What a directory scan does with a file, judged from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Not this format's file.
    Skip,
    /// A model file: check it.
    Model,
    /// A model only if its content is this format's (such as a `.json` file).
    ModelIfDetected,
    /// A data file that belongs to a model: checked with its model when the folder holds one
    /// of this format, and on its own otherwise.
    Companion,
}

/// What a format is, known without reading a file: one static value per format.
#[derive(Debug)]
pub struct About {
    /// Short name, such as `rten`; JSON output uses it.
    pub name: &'static str,
    /// File extensions (lower case, no dot) that a directory scan checks as models.
    pub extensions: &'static [&'static str],
    /// The format's rules, with their code prefix and title.
    pub rules: &'static RuleGroup,
}

/// A model format rtenx reads.
pub trait Format: Sync {
    /// The format's static facts.
    fn about(&self) -> &'static About;
    /// Decides from the content whether `bytes` are in this format.
    fn detect(&self, bytes: &[u8]) -> Detection;
    /// Reads the file into an inventory, appending findings. Never panics.
    fn read(&self, file: &ModelFile, options: &ReadOptions, findings: &mut Findings) -> Inventory;

    /// The byte ranges this reader reads of a file it is given, as far as `fetched`, the
    /// parts of `bytes` known so far, tell: a remote file is fetched by these ranges, and
    /// the plan asked again until it asks for nothing new. The rest of `bytes` reads as zeros
    /// and must not be trusted. A plan need not be exact: bytes the reader reads beyond it
    /// are fetched afterwards, at the cost of reading the file again
    /// ([`crate::source::sparse`]). By default, the whole file.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        let _ = fetched;
        vec![ByteRange::between(0, bytes.len() as u64)]
    }

    /// What a directory scan does with `path`; by default, files with one of
    /// [`About::extensions`] are models.
    fn scan(&self, path: &Path) -> Scan {
        match extension(path) {
            Some(ext) if self.about().extensions.contains(&ext.as_str()) => Scan::Model,
            _ => Scan::Skip,
        }
    }
}

/// The lower-case extension of `path`, if it has one.
pub fn extension(path: &Path) -> Option<String> {
    let ext = path.extension()?.to_str()?;
    Some(ext.to_ascii_lowercase())
}

/// What reading a model does beyond reading its structure.
pub struct ReadOptions<'a> {
    /// Hash external data files and compare them with the checksums the model records.
    /// This is the only option that reads tensor bytes.
    pub verify_checksums: bool,
    /// Called with (bytes done, bytes in all) while long work such as hashing runs.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// Data files named on the command line (`--data`), for formats whose model does not
    /// record where its data lives (ExecuTorch `.ptd`, Paddle `.pdiparams`). Readers use
    /// the ones they need and report the rest; without any, they look beside the model.
    pub data: &'a [PathBuf],
    /// Build what only the browser and `dump` show: the size tables of [`Inventory::sizes`]
    /// (by element type, file, operator type, layer, ...), and the module paths that PyTorch
    /// records in the metadata of every ONNX node ([`Graph::scopes`](crate::inventory::Graph)).
    /// On by default; `check`, `diff` and `sbom`, whose reports show neither, turn it off. No
    /// finding depends on it, short of the budget that copying module paths spends.
    pub views: bool,
    /// The runtime the model is meant for, whose own limits on top of the format's are then
    /// checked too (such as rten's on ONNX external data locations, OX024); `None` checks the
    /// format alone.
    pub target: Option<Target>,
    /// Read every tensor's values and report what they hold (NaN, infinities, dead weights:
    /// the VX rules, `check --values`); `None` reads no tensor byte.
    pub values: Option<ValueCheck<'a>>,
    /// What a file is if not in a reader's format, for a reader that meets another format's
    /// file where it expects its own (a Paddle parameter file that is an ONNX model): the
    /// registry's [`registry::identify`], which the analysis sets, so that readers never call
    /// the registry. By default, nothing.
    pub identify: Identify,
}

/// What `file` is if not in the format named: "a model in the onnx format", or the title of
/// a format rtenx recognises but does not read; `None` for the format named, or for nothing
/// known.
pub type Identify = fn(file: &ModelFile, format: &str) -> Option<String>;

impl Default for ReadOptions<'_> {
    fn default() -> Self {
        ReadOptions {
            verify_checksums: false,
            progress: None,
            data: &[],
            views: true,
            target: None,
            values: None,
            identify: |_, _| None,
        }
    }
}

/// The shortest run of zero bytes at the end of a tensor that VX005 reports, unless the
/// settings say otherwise (`zero-tail`): 1 MiB.
pub const ZERO_TAIL: u64 = 1 << 20;

/// How `check --values` runs (`values/` reads it; readers do not).
#[derive(Debug, Clone, Copy)]
pub struct ValueCheck<'a> {
    /// The shortest zero run at a tensor's end that is reported (VX005).
    pub zero_tail: u64,
    /// Set to stop reading: nothing is then reported.
    pub cancel: Option<&'a AtomicBool>,
}

impl Default for ValueCheck<'_> {
    fn default() -> Self {
        ValueCheck {
            zero_tail: ZERO_TAIL,
            cancel: None,
        }
    }
}

/// A runtime a model can be checked for, beyond its format's specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// rten, which reads ONNX models with narrower rules than the specification.
    Rten,
}
