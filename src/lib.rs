//! rtenx: a read-only inspector and validator for machine-learning model files.
//!
//! Data flows one way: bytes → a [`formats`] reader → one format-neutral [`inventory`] plus
//! [`check`] findings → the text summary, the check report or the JSON dump. The library
//! never writes to a model file and never trusts an offset read from one.

#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod analysis;
pub mod check;
pub mod escape;
pub mod formats;
pub mod inventory;
pub mod json_dump;
pub mod report;
#[allow(unsafe_code)] // The memory map, the prefetch hint and openat, each documented at its call.
pub mod source;
pub mod summary;
#[cfg(feature = "synth")]
pub mod synth;
pub mod tui;

pub use analysis::{analyze, analyze_file, analyze_file_with, analyze_with, Analysis};
