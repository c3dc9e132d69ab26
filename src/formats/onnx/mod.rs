//! ONNX models (`.onnx`) and their external data files.
//!
//! The model is read in place from the memory map by small views over the protobuf wire
//! format (`shared/protobuf.rs`, `*_view.rs`): names and `raw_data` are slices of the map,
//! never copies, and what the reader keeps is bounded (RX016). The views are held to prost's
//! decoding of `schema/onnx.proto` by differential tests. Every TensorProto, wherever it lives,
//! becomes an inventory tensor; external data locations are checked lexically and on the file
//! system before any data file is touched, and only `--verify-checksums` reads tensor bytes.

mod attribute_view;
mod detect;
mod dtypes;
mod external;
mod graph_view;
mod graphs;
mod initializer_inputs;
mod locations;
mod model_view;
mod node_names;
mod node_view;
#[cfg(feature = "proto")]
pub mod proto;
pub mod rules;
mod schema;
mod shape_inputs;
mod tensor_view;
mod tensors;
#[cfg(test)]
mod test_rng;
mod types;
mod value_view;

use crate::check::{Finding, Findings, Item, Place};
use crate::formats::shared::budget::{Budget, Interner, MAX_ENTRIES};
use crate::formats::shared::bytes::{len, offset_in, range};
use crate::formats::shared::datafiles::{self, DataFiles};
use crate::formats::{About, Detection, Format, ReadOptions, Target};
use crate::inventory::{
    ByteRange, FileFormat, GraphId, Inventory, MetadataEntry, Name, Section, SectionKind, Symbol,
};
use crate::source::ModelFile;
use model_view::ModelView;
use rules::*;

/// Protobuf's message size limit, which .onnx files must stay below.
const PROTOBUF_LIMIT: u64 = 1 << 31;

/// The ONNX format.
pub struct Onnx;

/// State shared while reading one model.
struct Reader<'a> {
    /// The model file's bytes, to locate raw_data slices.
    base: &'a [u8],
    inv: &'a mut Inventory,
    out: &'a mut Findings,
    files: DataFiles,
    /// Checksums the tensors record, for `--verify-checksums`.
    checksums: Vec<datafiles::checksum::Recorded>,
    /// Entries the model may still add.
    budget: Budget,
    /// Opset imports and local functions, for the schema checks.
    schemas: schema::Context,
    /// Operator types, attribute names and domains the schemas do not name, and the module
    /// paths nodes record, each copied once.
    symbols: Interner,
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
        let base: &'a [u8] = self.base;
        offset_in(base, bytes)
            .and_then(|start| range(base, start, len(bytes)))
            .unwrap_or_default()
    }

    /// `bytes` from the file as a symbol, copied the first time its text is met and shared
    /// after that.
    fn symbol(&mut self, bytes: &[u8], at: Option<u64>) -> Symbol {
        let text = String::from_utf8_lossy(bytes);
        (self.symbols).symbol(&text, Place::at(at), &mut self.budget, self.out)
    }

    /// Takes `n` entries from the budget; false once it has run out (see [`Budget`]).
    fn spend(&mut self, n: u64, at: Option<u64>) -> bool {
        self.budget.spend(n, Place::at(at), self.out)
    }

    /// `n` entries the file declares, at most as many as the budget can still pay for: what
    /// room to make for them, each entry costing at least one.
    fn affordable(&self, n: usize) -> usize {
        n.min(usize::try_from(self.budget.left()).unwrap_or(usize::MAX))
    }

    /// The module path `path` (a slice of the file) as a shared name, copied and paid for the
    /// first time it is met; `None` once the budget has run out.
    fn module(&mut self, path: &[u8], at: Option<u64>) -> Option<Name> {
        (self.symbols).spelled(path, Place::at(at), &mut self.budget, self.out)
    }

    /// Reports a `what` (node, tensor, ...) at `at` that cannot be decoded.
    fn malformed(&mut self, what: &str, error: impl std::fmt::Display, at: Option<u64>) {
        let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        let message = format!("cannot decode {article} {what}: {error}");
        self.out
            .push(Finding::new(&PROTOBUF_INVALID, Place::at(at), message));
    }

    /// Whether the budget ran out.
    fn exhausted(&self) -> bool {
        self.budget.exhausted()
    }

    /// Absolute offset of `bytes` in the model file.
    fn offset(&self, bytes: &[u8]) -> Option<u64> {
        offset_in(self.base, bytes)
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
        let size = file.bytes().len() as u64;
        let mut inv = Inventory::of_model(FileFormat::Read(self.about().name), file);
        inv.sections.push(Section {
            file: 0,
            kind: SectionKind::ModelData,
            range: ByteRange {
                start: 0,
                len: size,
            },
        });
        if size >= PROTOBUF_LIMIT {
            out.add(&MODEL_TOO_LARGE, Place::at(0), format!(
                "the .onnx file is {size} bytes; protobuf readers refuse {PROTOBUF_LIMIT} bytes (2 GiB) or more"));
        }
        let model = match ModelView::read(file.bytes(), MAX_ENTRIES / PROPERTY_ENTRIES) {
            Ok(model) => model,
            Err(e) => {
                let message = format!("cannot decode the model: {e}");
                out.add(&PROTOBUF_INVALID, Place::at(0), message);
                return inv;
            }
        };
        let mut budget = Budget::for_file(size);
        if model.dropped > 0 {
            budget.spend(u64::MAX, Place::at(0), out);
        }
        model_info(&model, &mut inv, &mut budget, out);
        let mut reader = Reader {
            base: file.bytes(),
            inv: &mut inv,
            out,
            files: DataFiles::new(file, &locations::OnnxLocations),
            checksums: Vec::new(),
            budget,
            schemas: schema::Context::default(),
            symbols: Interner::default(),
            function_bodies: Vec::new(),
            modules: options.views,
        };
        graphs::read(&model, &mut reader);
        node_names::check(reader.inv, &reader.function_bodies, reader.out);
        shape_inputs::check(reader.inv, reader.schemas.of(0).version(b""), reader.out);
        initializer_inputs::check(reader.inv, model.ir_version, reader.out);
        if options.target == Some(Target::Rten) {
            locations::rten(&reader.files, reader.out);
        }
        let schemas = std::mem::take(&mut reader.schemas);
        let checksums = std::mem::take(&mut reader.checksums);
        if options.verify_checksums && !checksums.is_empty() {
            let identities = reader.files.identities();
            datafiles::checksum::verify(&inv, &checksums, identities, options.progress, out);
        }
        types::check(&inv, &schemas, out);
        inv.fill_gaps();
        inv
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
fn model_info(m: &ModelView<'_>, inv: &mut Inventory, budget: &mut Budget, out: &mut Findings) {
    let field = |name| Item::Field { name };
    match m.ir_version {
        Some(v) if v > 0 => {
            inv.format_version = format!("IR v{v}");
            inv.property("ir_version", v, None);
        }
        other => out.add(
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
            inv.property(key, text(value), None);
        }
    }
    if let Some(v) = m.model_version {
        inv.property("model_version", v, None);
    }
    if m.opset_import.is_empty() {
        out.add(
            &OPSET_MISSING,
            Place::on(field("opset_import")),
            "opset_import is empty; no operator set is imported",
        );
    }
    for &(domain, version) in &m.opset_import {
        if !budget.spend(PROPERTY_ENTRIES, Place::field("opset_import", None), out) {
            break;
        }
        let domain = text(domain);
        let domain = if domain.is_empty() {
            "ai.onnx".to_owned()
        } else {
            domain
        };
        inv.property(&format!("opset {domain}"), version.unwrap_or(0), None);
    }
    let mut keys = std::collections::HashSet::new();
    for &(key, value) in &m.metadata_props {
        if !budget.spend(PROPERTY_ENTRIES, Place::field("metadata_props", None), out) {
            break;
        }
        let key = key.unwrap_or_default();
        if !keys.insert(key) {
            out.add(
                &DUPLICATE_METADATA_KEY,
                Place::on(field("metadata_props")),
                format!(
                    "metadata key \"{}\" appears more than once",
                    Name::from(key)
                ),
            );
        }
        inv.metadata
            .push(MetadataEntry::new(key, value.unwrap_or_default()));
    }
}
