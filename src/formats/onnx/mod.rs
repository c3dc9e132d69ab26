//! ONNX models (`.onnx`) and their external data files.
//!
//! The model is read in place from the memory map by small views over the protobuf wire
//! format (`shared/protobuf.rs`, `views/`): names and `raw_data` are slices of the map,
//! never copies, and what the reader keeps is bounded (RX016). The views are held to prost's
//! decoding of `schema/onnx.proto` by differential tests. Every TensorProto, wherever it lives,
//! becomes an inventory tensor; external data locations are checked lexically and on the file
//! system before any data file is touched, and only `--verify-checksums` reads tensor bytes.

mod detect;
mod dtypes;
mod external;
mod graphs;
mod initializer_inputs;
mod locations;
mod node_names;
#[cfg(feature = "proto")]
pub mod proto;
pub mod rules;
mod schema;
mod shape_inputs;
mod tensors;
#[cfg(test)]
mod test_rng;
mod types;
mod views;

use crate::check::{Findings, Item, Place};
use crate::formats::shared::budget::MAX_ENTRIES;
use crate::formats::shared::bytes::{len, offset_in, range};
use crate::formats::shared::context::Context;
use crate::formats::shared::datafiles::{self, DataFiles};
use crate::formats::shared::protobuf::PROTOBUF_LIMIT;
use crate::formats::{About, Detection, Format, ReadOptions, Target};
use crate::inventory::{
    ByteRange, GraphId, Inventory, MetadataEntry, Name, Section, SectionKind, Symbol,
};
use crate::source::ModelFile;
use rules::*;
use views::model::ModelView;

/// The ONNX format.
pub struct Onnx;

/// State shared while reading one model.
struct Reader<'a> {
    /// The model file's bytes, inventory, findings, budget and names (operator types,
    /// attribute names and domains the schemas do not name, and the module paths nodes
    /// record, each copied once).
    cx: Context<'a>,
    files: DataFiles,
    /// Checksums the tensors record, for `--verify-checksums`.
    checksums: Vec<datafiles::checksum::Recorded>,
    /// Opset imports and local functions, for the schema checks.
    schemas: schema::Context,
    /// The graphs that are function bodies, in the order they were added.
    function_bodies: Vec<GraphId>,
    /// Whether to record the module paths nodes carry in their metadata
    /// ([`ReadOptions::views`]).
    modules: bool,
}

impl<'a> Reader<'a> {
    /// `bytes` as a slice of the file. prost slices the shared buffer when decoding, so every
    /// embedded message and name lies inside it; anything else reads as empty.
    fn in_file(&self, bytes: &[u8]) -> &'a [u8] {
        let base: &'a [u8] = self.cx.bytes;
        offset_in(base, bytes)
            .and_then(|start| range(base, start, len(bytes)))
            .unwrap_or_default()
    }

    /// `bytes` from the file as a symbol, copied the first time its text is met and shared
    /// after that.
    fn symbol(&mut self, bytes: &[u8], at: Option<u64>) -> Symbol {
        self.cx
            .symbol(&String::from_utf8_lossy(bytes), Place::at(at))
    }

    /// Reports a `what` (node, tensor, ...) at `at` that cannot be decoded.
    fn malformed(&mut self, what: &str, error: impl std::fmt::Display, at: Option<u64>) {
        let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        let message = format!("cannot decode {article} {what}: {error}");
        self.cx.report(&PROTOBUF_INVALID, Place::at(at), message);
    }
}

static ABOUT: About = About {
    name: "onnx",
    extensions: &["onnx"],
    rules: &rules::GROUP,
};

impl Format for Onnx {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if detect::looks_like_model(bytes) {
            Detection::Plausible
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, options: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        let size = len(cx.bytes);
        cx.inv.sections.push(Section {
            file: 0,
            kind: SectionKind::ModelData,
            range: ByteRange {
                start: 0,
                len: size,
            },
        });
        if size >= PROTOBUF_LIMIT {
            cx.report(&MODEL_TOO_LARGE, Place::at(0), format!(
                "the .onnx file is {size} bytes; protobuf readers refuse {PROTOBUF_LIMIT} bytes (2 GiB) or more"));
        }
        let model = match ModelView::read(cx.bytes, MAX_ENTRIES / PROPERTY_ENTRIES) {
            Ok(model) => model,
            Err(e) => {
                let message = format!("cannot decode the model: {e}");
                cx.report(&PROTOBUF_INVALID, Place::at(0), message);
                return cx.inv;
            }
        };
        if model.dropped > 0 {
            cx.spend(u64::MAX, Place::at(0));
        }
        model_info(&model, &mut cx);
        let mut reader = Reader {
            cx,
            files: DataFiles::new(file, &locations::OnnxLocations),
            checksums: Vec::new(),
            schemas: schema::Context::default(),
            function_bodies: Vec::new(),
            modules: options.views,
        };
        graphs::read(&model, &mut reader);
        let Reader {
            mut cx,
            files,
            checksums,
            schemas,
            function_bodies,
            ..
        } = reader;
        node_names::check(&cx.inv, &function_bodies, cx.out);
        shape_inputs::check(&cx.inv, schemas.of(0).version(b""), cx.out);
        initializer_inputs::check(&cx.inv, model.ir_version, cx.out);
        if options.target == Some(Target::Rten) {
            locations::rten(&files, cx.out);
        }
        if options.verify_checksums && !checksums.is_empty() {
            datafiles::checksum::verify(&cx.inv, &checksums, &files, options.progress, cx.out);
        }
        types::check(&cx.inv, &schemas, cx.out);
        cx.inv.fill_gaps();
        cx.inv
    }
}

fn text(b: Option<&[u8]>) -> String {
    crate::escape::sanitize(&String::from_utf8_lossy(b.unwrap_or_default())).into_owned()
}

/// Budget entries a model-level list entry (an opset import or metadata entry, which become
/// properties of two strings each, or a function) takes at least; the model's lists are read
/// no further than the budget could pay for.
const PROPERTY_ENTRIES: u64 = 4;

/// Model-level fields: properties, metadata, ir_version and opsets.
fn model_info(m: &ModelView<'_>, cx: &mut Context<'_>) {
    let field = |name| Item::Field { name };
    match m.ir_version {
        Some(v) if v > 0 => {
            cx.inv.format_version = format!("IR v{v}");
            cx.inv.property("ir_version", v, None);
        }
        other => cx.report(
            &IR_VERSION_MISSING,
            Place::on(field("ir_version")),
            match other {
                Some(v) => format!("ir_version is {v}"),
                None => "ir_version is absent".to_owned(),
            },
        ),
    }
    for (key, value) in [
        ("producer_name", m.producer_name),
        ("producer_version", m.producer_version),
        ("domain", m.domain),
        ("doc_string", m.doc_string),
    ] {
        if value.is_some_and(|v| !v.is_empty()) {
            cx.inv.property(key, text(value), None);
        }
    }
    if let Some(v) = m.model_version {
        cx.inv.property("model_version", v, None);
    }
    if m.opset_import.is_empty() {
        cx.report(
            &OPSET_MISSING,
            Place::on(field("opset_import")),
            "opset_import is empty; no operator set is imported",
        );
    }
    for &(domain, version) in &m.opset_import {
        if !cx.spend(PROPERTY_ENTRIES, Place::field("opset_import", None)) {
            break;
        }
        let domain = text(domain);
        let domain = if domain.is_empty() {
            "ai.onnx".to_owned()
        } else {
            domain
        };
        cx.inv
            .property(&format!("opset {domain}"), version.unwrap_or(0), None);
    }
    let mut keys = std::collections::HashSet::new();
    for &(key, value) in &m.metadata_props {
        if !cx.spend(PROPERTY_ENTRIES, Place::field("metadata_props", None)) {
            break;
        }
        let key = key.unwrap_or_default();
        if !keys.insert(key) {
            cx.report(
                &DUPLICATE_METADATA_KEY,
                Place::on(field("metadata_props")),
                format!(
                    "metadata key \"{}\" appears more than once",
                    Name::from(key)
                ),
            );
        }
        cx.inv
            .metadata
            .push(MetadataEntry::new(key, value.unwrap_or_default()));
    }
}
