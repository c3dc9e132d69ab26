//! The model as a whole: verification, the version, then each part in turn, and the file's
//! layout (the FlatBuffer, then any offset/size buffers).

use super::buffers;
use super::operators;
use super::reader::Reader;
use super::rules::{FLATBUFFER_INVALID, MISSING_SECTION, OVER_LIMITS, VERSION};
use super::schema::{self, root_as_model_with_opts};
use super::{graph, metadata};
use crate::check::{Item, Place};
use crate::formats::shared::bytes::offset_in;
use crate::formats::shared::context::Context;
use crate::formats::shared::flatbuffer::{self, VerifyRules};
use crate::inventory::{ByteRange, Section, SectionKind};

static RULES: VerifyRules = VerifyRules {
    invalid: &FLATBUFFER_INVALID,
    over_limits: &OVER_LIMITS,
    runtime: "the TFLite interpreter",
};

/// The schema version every current converter writes and every interpreter requires.
const SCHEMA_VERSION: u32 = 3;
/// Vtable slot of `Model.version`.
const MODEL_VERSION: u16 = 4;

/// Reads the model that is the file in `cx`, and lays out the file.
pub fn read(cx: &mut Context<'_>) {
    let bytes = cx.bytes;
    if let Some(mut r) = walk(cx, bytes) {
        layout(&mut r);
    }
}

/// Reads `model`, a slice of the file in `cx` (the file, or a bundle's section), into `cx`'s
/// inventory: the graphs, operators, tensors and metadata, at offsets in the file. `None` if
/// the FlatBuffer does not verify (reported).
pub fn walk<'c, 'a>(cx: &'c mut Context<'a>, model: &'a [u8]) -> Option<Reader<'c, 'a>> {
    let base = offset_in(cx.bytes, model).unwrap_or(0);
    let model_fb =
        flatbuffer::verify_reporting(model, root_as_model_with_opts, base, &RULES, cx.out)?;
    // The verifier has paged in the FlatBuffer; the walk pages in what it reads.
    cx.file.release(model);
    let mut r = Reader {
        cx,
        model,
        base,
        flatbuffer_end: base.saturating_add(8),
        buffers: Vec::new(),
        opcodes: Vec::new(),
        large_options: Vec::new(),
        tensor_counts: Vec::new(),
        constants: Vec::new(),
        quantized: (0, 0),
        sparse: 0,
        scan_left: (model.len() as u64).saturating_mul(2),
    };
    let model = model_fb;
    r.table(model._tab.loc());
    version(&mut r, model);
    r.opcodes = operators::codes(&mut r, model);
    r.buffers = buffers::read(&mut r, model);
    graph::subgraphs(&mut r, model);
    metadata::read(&mut r, model);
    buffers::check_offsets(&mut r);
    Some(r)
}

fn version(r: &mut Reader<'_, '_>, model: schema::Model<'_>) {
    let version = model.version();
    r.cx.inv.format_version = format!("schema {version}");
    let raw = flatbuffer::RawTable::new(r.model, model._tab.loc());
    let at = r.loc(raw.field_pos(MODEL_VERSION).unwrap_or(raw.loc()));
    r.cx.inv.property("version", version, Some(at));
    if version != SCHEMA_VERSION {
        r.cx.report(
            &VERSION,
            Place::at(at).item(Item::Field { name: "version" }),
            format!("Model.version = {version}, but the interpreter reads only version {SCHEMA_VERSION}"),
        );
    }
    if let Some(description) = model.description() {
        r.cx.inv.property("description", description, None);
    }
    if model.buffers().is_none() {
        r.cx.report(
            &MISSING_SECTION,
            Place::at(at).item(Item::Field { name: "buffers" }),
            "Model.buffers is missing; buffer 0, the empty sentinel, at least must be there",
        );
    }
}

/// Declares the FlatBuffer, from the file's start to the first offset/size buffer after it
/// (or the file's end), and each offset/size buffer inside the file, then the gaps.
fn layout(r: &mut Reader<'_, '_>) {
    let size = r.cx.bytes.len() as u64;
    let mut placed: Vec<ByteRange> = (r.buffers.iter())
        .filter(|b| b.external)
        .filter_map(|b| b.range)
        .filter(|b| b.start.checked_add(b.len).is_some_and(|end| end <= size))
        .collect();
    placed.sort_by_key(|b| (b.start, b.len));
    let model_end = (placed.iter())
        .map(|b| b.start)
        .find(|&start| start >= r.flatbuffer_end)
        .unwrap_or(size);
    let sections = &mut r.cx.inv.sections;
    sections.push(Section {
        file: 0,
        kind: SectionKind::ModelData,
        range: ByteRange::between(0, model_end),
    });
    // Overlapping buffers are reported (TF017) and declared once.
    let external = placed.iter().any(|b| b.start >= model_end);
    let mut end = model_end;
    for range in placed.into_iter().filter(|b| b.start >= model_end) {
        if range.start >= end {
            end = range.end();
            sections.push(Section {
                file: 0,
                kind: SectionKind::TensorData,
                range,
            });
        }
    }
    // The converter pads a file with buffers after the FlatBuffer to a multiple of 64 bytes.
    let tail = crate::formats::shared::bytes::from(r.cx.bytes, end).unwrap_or_default();
    if external && end < size && tail.len() < 64 && tail.iter().all(|&b| b == 0) {
        sections.push(Section {
            file: 0,
            kind: SectionKind::Padding,
            range: ByteRange::between(end, size),
        });
    }
    r.cx.inv.fill_gaps();
}
