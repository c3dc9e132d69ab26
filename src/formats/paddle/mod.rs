//! PaddlePaddle: programs (`.pdmodel` ProgramDesc protobufs, PIR `.json`) and their parameter
//! streams (`.pdiparams`, 1.x `__params__` and per-variable files).
//!
//! A program becomes graphs of operator and value nodes; its persistable variables, sorted
//! by name, own the records of the parameter file found beside it (or named by `--data`),
//! and each record becomes a tensor with its exact byte range. A parameter file read alone
//! is a stream of unnamed records. The structured names a `.pdiparams.info` pickle gives the
//! variables become metadata, whether it is read beside its program or alone. Only record
//! headers are read, never tensor data. An op's name scope (`op_namescope`, PIR's
//! `struct_name`) or the module its `op_callstack` names is recorded as its scope. The layout and the rules come from
//! `../shared/reference/paddle.md`.

mod detect;
mod dtypes;
mod info;
mod legacy;
mod pairing;
mod params;
mod pir;
mod program;
#[cfg(feature = "proto")]
pub mod proto;
mod record;
pub mod rules;

use crate::check::{Findings, Place};
use crate::formats::shared::bytes::len;
use crate::formats::shared::context::Context;
use crate::formats::shared::protobuf::PROTOBUF_LIMIT;
use crate::formats::{extension, About, Detection, Format, ReadOptions, Scan};
use crate::inventory::{ByteRange, Inventory, Section, SectionKind};
use crate::source::ModelFile;
use detect::Kind;
use rules::PROGRAM_TOO_LARGE;
use std::path::Path;

/// The PaddlePaddle format.
pub struct Paddle;

static ABOUT: About = About {
    name: "paddle",
    extensions: &["pdmodel", "pdiparams"],
    rules: &rules::GROUP,
};

impl Format for Paddle {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        match detect::kind(bytes) {
            Some(Kind::Pir | Kind::Params | Kind::SelectedRows | Kind::Info) => Detection::Magic,
            Some(Kind::Program | Kind::DamagedParams) => Detection::Plausible,
            None => Detection::No,
        }
    }

    fn scan(&self, path: &Path) -> Scan {
        let name = path
            .file_name()
            .map(|n| n.as_encoded_bytes())
            .unwrap_or_default();
        match (name, extension(path).as_deref()) {
            (b"__model__", _) | (_, Some("pdmodel")) => Scan::Model,
            (b"model", _) | (_, Some("json")) => Scan::ModelIfDetected,
            (b"__params__" | b"params", _) | (_, Some("pdiparams")) => Scan::Companion,
            (name, Some("info")) if name.ends_with(b".pdiparams.info") => Scan::Companion,
            _ => Scan::Skip,
        }
    }

    fn read(&self, file: &ModelFile, options: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        let bytes = cx.bytes;
        let size = len(bytes);
        // Records are packed with no alignment; Paddle copies every tensor as it loads.
        cx.inv.preferred_alignment = Some(1);
        cx.identify = options.identify;
        let kind = detect::kind(bytes);
        let whole = Section {
            file: 0,
            kind: SectionKind::ModelData,
            range: ByteRange {
                start: 0,
                len: size,
            },
        };
        match kind {
            Some(alone @ (Kind::Params | Kind::DamagedParams | Kind::SelectedRows)) => {
                let label = crate::escape::path(file.path()).into_owned();
                let stream = params::Stream {
                    source: file,
                    file: 0,
                    label,
                };
                if alone != Kind::SelectedRows {
                    cx.inv.format_version = "parameter stream".to_owned();
                    params::read(&stream, None, &mut cx);
                } else {
                    cx.inv.format_version = "SelectedRows".to_owned();
                    params::read_selected_rows(&stream, &mut cx);
                }
                pairing::read(file, options.data, &[], &mut cx);
            }
            Some(Kind::Info) => {
                cx.inv.sections.push(whole);
                cx.inv.format_version = "parameter names (.pdiparams.info)".to_owned();
                info::read(bytes, 0, &mut cx);
            }
            _ => {
                cx.inv.sections.push(whole);
                if size >= PROTOBUF_LIMIT && kind == Some(Kind::Program) {
                    let message = format!("the program is {size} bytes; protobuf refuses messages of {PROTOBUF_LIMIT} bytes (2 GiB) or more");
                    cx.report(&PROGRAM_TOO_LARGE, Place::at(0), message);
                }
                let params = if kind == Some(Kind::Pir) {
                    pir::read(&mut cx)
                } else {
                    let params = legacy::read(&mut cx);
                    legacy::mixed_half_types(&params, cx.out);
                    params
                };
                pairing::read(file, options.data, &params, &mut cx);
            }
        }
        cx.inv.fill_gaps();
        cx.inv
    }
}
