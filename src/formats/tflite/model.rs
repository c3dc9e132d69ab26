//! The model as a whole: verification, the version, then each part in turn, and the file's
//! layout (the FlatBuffer, then any offset/size buffers).

use super::buffers;
use super::operators;
use super::reader::Reader;
use super::rules::{FLATBUFFER_INVALID, MISSING_SECTION, OVER_LIMITS, VERSION};
use super::schema::{self, root_as_model_with_opts};
use super::{graph, metadata};
use crate::check::{Item, Place};
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

/// Reads the model in `cx`.
pub fn read(cx: &mut Context<'_>) {
    let bytes = cx.bytes;
    let Some(model) =
        flatbuffer::verify_reporting(bytes, root_as_model_with_opts, 0, &RULES, cx.out)
    else {
        return;
    };
    // The verifier has paged in the FlatBuffer; the walk pages in what it reads.
    cx.file.release_all();
    let mut r = Reader {
        cx,
        flatbuffer_end: 8,
        buffers: Vec::new(),
        opcodes: Vec::new(),
        large_options: Vec::new(),
        tensor_counts: Vec::new(),
        constants: Vec::new(),
        quantized: (0, 0),
        sparse: 0,
        scan_left: (bytes.len() as u64).saturating_mul(2),
    };
    r.table(model._tab.loc());
    version(&mut r, model);
    r.opcodes = operators::codes(&mut r, model);
    r.buffers = buffers::read(&mut r, model);
    graph::subgraphs(&mut r, model);
    metadata::read(&mut r, model);
    buffers::check_offsets(&mut r);
    layout(&mut r);
}

fn version(r: &mut Reader<'_, '_>, model: schema::Model<'_>) {
    let version = model.version();
    r.cx.inv.format_version = format!("schema {version}");
    let raw = flatbuffer::RawTable::new(r.cx.bytes, model._tab.loc());
    let at = raw.field_pos(MODEL_VERSION).unwrap_or(raw.loc()) as u64;
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
