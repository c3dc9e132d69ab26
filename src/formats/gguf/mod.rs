//! GGUF models (llama.cpp, Ollama, LM Studio), including models split into parts.
//!
//! A GGUF file is a header (`GGUF`, version, tensor and key-value counts), key-value pairs,
//! tensor infos (name, dimensions, GGML type, offset), then the data section at the next
//! multiple of `general.alignment`. Every length is checked against the bytes left before
//! anything is read, arrays are stepped over and left in the file (a 150,000-token
//! vocabulary costs a count and a byte range), and tensors are placed as llama.cpp places
//! them. See `../shared/reference/safetensors-gguf.md` for the layout and what the
//! reference loaders check.

mod arch;
mod dtypes;
mod file;
mod header;
mod metadata;
mod model;
mod plan;
pub mod rules;
mod split;
mod strings;
mod template;
mod tensors;
mod wire;

use crate::check::Findings;
use crate::formats::shared::context::Context;
use crate::formats::{extension, About, Detection, Format, ReadOptions, Scan};
use crate::inventory::{ByteRange, Inventory};
use crate::source::fetched::Fetched;
use crate::source::ModelFile;
use std::path::Path;

/// The GGUF format.
pub struct Gguf;

static ABOUT: About = About {
    name: "gguf",
    extensions: &["gguf"],
    rules: &rules::GROUP,
};

impl Format for Gguf {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if bytes.starts_with(header::MAGIC) {
            Detection::Magic
        } else {
            Detection::No
        }
    }

    /// The first part of a split model is checked with its other parts, which a folder
    /// scan leaves to it.
    fn scan(&self, path: &Path) -> Scan {
        match (extension(path).as_deref(), split::part_of(path)) {
            (Some("gguf"), Some((no, _))) if no > 1 => Scan::Companion,
            (Some("gguf"), _) => Scan::Model,
            _ => Scan::Skip,
        }
    }

    fn read(&self, file: &ModelFile, options: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        model::read(&mut cx, file, options);
        cx.inv
    }

    /// The header, key-value pairs and tensor infos, grown until they end.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        plan::fetch_plan(bytes, fetched)
    }
}
