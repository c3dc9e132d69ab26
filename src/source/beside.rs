//! What is beside a remote model: the files of the repository it was listed in, which its
//! readers look up instead of a folder on this machine (`formats/shared/datafiles/folder.rs`).

use super::{ModelFile, OpenError};

/// The files beside a remote model, as its repository's listing (at the commit its revision
/// resolved to) has them. Names are relative to the model's folder, `/`-separated and
/// already safe (no root, no `..`); one that is not is not listed.
pub trait Listing: Send + Sync {
    /// The size of the file `name`, if the listing has it.
    fn size(&self, name: &str) -> Option<u64>;
    /// The names of the files directly in the model's folder, sorted.
    fn names(&self) -> Vec<String>;
    /// Whether `name` is the model file itself.
    fn is_model(&self, name: &str) -> bool;
    /// The path `name` is shown by in reports (`hf://ORG/REPO[@REVISION]/PATH`).
    fn shown(&self, name: &str) -> String;
    /// The SHA-256 the listing records for the file shown as `shown` (an LFS file's).
    fn sha256(&self, shown: &std::path::Path) -> Option<String>;
    /// Opens the file `name`, fetched as its format plans; the same file (and what was
    /// fetched of it) on every later call while the model is read.
    fn open(&self, name: &str) -> Result<ModelFile, OpenError>;
    /// Opens the files `names` (those listed and not open yet) side by side, as
    /// [`Listing::open`] would one by one, for a reader about to open them all (the shards
    /// of a checkpoint, the parts of a split model). A file that cannot be fetched is left
    /// for `open` to report.
    fn prefetch(&self, names: &[String]);
    /// What the files opened cost.
    fn cost(&self) -> super::provenance::Cost;
    /// Fetches the holes the reading met in the files opened: whether there were any, so
    /// the model must be read again. The first error met looking beside the model (a
    /// listing or a file that could not be fetched) is returned here, so that the model
    /// is not reported as checked.
    fn fetch_touched(&self) -> Result<bool, OpenError>;
}
