//! ExecuTorch `.pte` programs and `.ptd` data files.
//!
//! A program is a FlatBuffer (identifier `ET12`) with an optional `eh00` header at byte 8
//! that says where segments of constants and backend blobs start after it. A data file is a
//! FlatBuffer (`FT01`) behind an `FH01` header, holding named tensors and blobs. Methods
//! become graphs, instructions nodes, delegates nodes that name their backend, and
//! constants and named data tensors with their exact bytes; the stack traces a program records
//! give each instruction its module path (`stacks.rs`). A program's external tensors
//! are resolved against the data files given with `--data` or found beside it.

mod beside;
mod breakdown;
mod data_file;
mod desc;
mod dtypes;
mod entries;
mod header;
mod instructions;
mod keys;
mod pairing;
mod plan;
mod program;
pub mod rules;
pub mod schema;
mod segments;
mod stacks;
mod verify;

use crate::check::{Findings, Place};
use crate::formats::shared::bytes::Short;
use crate::formats::shared::context::Context;
use crate::formats::shared::flatbuffer;
use crate::formats::{extension, About, Detection, Format, ReadOptions, Scan};
use crate::inventory::Inventory;
use crate::source::ModelFile;
use std::path::Path;

/// The identifier of programs the runtime reads.
const PROGRAM_ID: &[u8; 4] = b"ET12";
/// The identifier of data files the runtime reads.
const DATA_ID: &[u8; 4] = b"FT01";
/// The alignment writers give constants (`constant_tensor_alignment`).
const CONSTANT_ALIGNMENT: u64 = 16;

/// The ExecuTorch formats.
pub struct ExecuTorch;

/// Whether the file identifier is an ExecuTorch one: `ET` (programs) or `FT` (data files)
/// and a two-character version.
fn has_identifier(bytes: &[u8]) -> bool {
    flatbuffer::identifier(bytes).is_some_and(|id| {
        matches!(&id[..2], b"ET" | b"FT") && id[2..].iter().all(u8::is_ascii_alphanumeric)
    })
}

static ABOUT: About = About {
    name: "executorch",
    extensions: &["pte"],
    rules: &rules::GROUP,
};

impl Format for ExecuTorch {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        // The identifiers the runtime reads name the format even in a file cut short.
        let known = matches!(bytes.get(4..8), Some(id) if id == PROGRAM_ID || id == DATA_ID);
        if known || has_identifier(bytes) {
            Detection::Magic
        } else {
            Detection::No
        }
    }

    fn scan(&self, path: &Path) -> Scan {
        match extension(path).as_deref() {
            Some("pte") => Scan::Model,
            Some("ptd") => Scan::Companion,
            _ => Scan::Skip,
        }
    }

    fn read(&self, file: &ModelFile, options: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        let bytes = cx.bytes;
        cx.inv.preferred_alignment = Some(CONSTANT_ALIGNMENT);
        let id = bytes.get(4..8).unwrap_or_default();
        let data = bytes.get(4..6) == Some(b"FT");
        cx.inv.format_version = format!(
            "{} {}",
            if data { "data" } else { "program" },
            crate::escape::sanitize(&String::from_utf8_lossy(id))
        );
        let expected: &[u8] = if data { DATA_ID } else { PROGRAM_ID };
        if bytes.len() < 8 {
            let what = "the FlatBuffer's root offset and identifier";
            let message = Short::of(0, 8, bytes.len() as u64).message(what);
            cx.report(&rules::FLATBUFFER_INVALID, Place::at(0), message);
            return cx.inv;
        }
        if id != expected {
            let message = format!(
                "the file identifier is {}; the runtime reads {} files with {} only",
                crate::escape::sanitize(&String::from_utf8_lossy(id)),
                if data { ".ptd" } else { ".pte" },
                String::from_utf8_lossy(expected)
            );
            cx.report(
                &rules::IDENTIFIER_UNSUPPORTED,
                Place::field("file_identifier", 4),
                message,
            );
            return cx.inv;
        }
        // Unclaimed bytes are reported only when every part of the file could be placed.
        if data {
            if data_file::read(&mut cx).is_some() {
                cx.inv.fill_gaps();
            }
            if options.views {
                cx.inv.sizes = breakdown::data(&cx.inv);
            }
            return cx.inv;
        }
        let Some(program) = program::read(&mut cx) else {
            return cx.inv;
        };
        pairing::resolve(&mut cx, options, &program);
        if program.complete {
            cx.inv.fill_gaps();
        }
        if options.views {
            cx.inv.sizes = breakdown::program(&cx.inv, &program);
        }
        cx.inv
    }
}
