//! rtenx: a read-only inspector and validator for machine-learning model files (RTen, ONNX,
//! ExecuTorch and PaddlePaddle), as a library.
//!
//! [`analyze`] opens a model, detects its format from its content, reads it into one
//! format-neutral [`Inventory`] and runs every check rule, returning an [`Analysis`]: the
//! inventory plus the [`Finding`]s. The file is memory-mapped read-only, never written to or
//! locked, and no offset read from it is trusted.
//!
//! ```
//! use rtenx::{analyze, escape::sanitize, Severity};
//! use std::path::Path;
//!
//! let analysis = analyze(Path::new("tests/fixtures/rten/mlp.rten"))?;
//! let inventory = &analysis.inventory;
//! assert_eq!(inventory.format.name(), "rten");
//! assert!(inventory.totals().parameters > 0);
//! for (op_type, count) in inventory.operator_histogram() {
//!     println!("{}: {count}", sanitize(op_type));
//! }
//! assert!(!analysis.has_errors());
//!
//! // A broken model is still an `Ok` analysis: its problems are findings.
//! let bad = analyze(Path::new(
//!     "tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten",
//! ))?;
//! let error = bad.findings.iter().find(|f| f.severity == Severity::Error).unwrap();
//! assert_eq!(error.rule.code, "RT006");
//! # Ok::<(), rtenx::OpenError>(())
//! ```
//!
//! Names in an inventory and messages in findings come from the file and are untrusted:
//! print them through [`Name::display`](inventory::Name::display) and
//! [`escape::sanitize`], which escape control characters.
//! [`write_dump`] writes the document `rtenx dump --json` writes.
//!
//! **Stability.** The library is pre-1.0: a release that changes the items shown in this
//! documentation incompatibly increases the minor version (0.1 to 0.2), and a patch release
//! never does. Modules hidden from this documentation serve the `rtenx` command and its tests
//! and are not part of the API. The JSON documents are versioned separately and more strictly
//! (see the README, "JSON schema").

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod analysis;
#[doc(hidden)]
pub mod catalogue;
pub mod check;
pub mod diff;
pub mod escape;
#[doc(hidden)]
pub mod formats;
pub mod inventory;
#[doc(hidden)]
pub mod json_dump;
#[cfg(all(unix, feature = "remote"))]
pub mod remote;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod sbom;
pub mod signing;
#[doc(hidden)]
#[allow(unsafe_code)] // The memory map, the prefetch hint and openat, each documented at its call.
pub mod source;
#[doc(hidden)]
pub mod summary;
#[cfg(feature = "synth")]
#[doc(hidden)]
pub mod synth;
#[doc(hidden)]
pub mod tui;
#[doc(hidden)]
pub mod values;

pub use analysis::{analyze, analyze_with, preview, Analysis};
#[doc(hidden)]
pub use analysis::{analyze_file, analyze_file_with, analyze_opened, not_read, preview_of};
pub use check::{Finding, Severity};
pub use formats::ReadOptions;
pub use inventory::Inventory;
pub use json_dump::write as write_dump;
pub use source::OpenError;
