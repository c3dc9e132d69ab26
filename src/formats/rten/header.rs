//! The V2 header, V1 detection and the top-level sections.

use super::rules::*;
use crate::check::{Item, Place};
use crate::formats::shared::bytes::{le_u32, le_u64, Short};
use crate::formats::shared::context::Context;
use crate::inventory::{ByteRange, Inventory, Section, SectionKind};

/// Length of the V2 header.
pub const HEADER_LEN: u64 = 32;
/// The magic at the start of V2 files.
pub const MAGIC: &[u8; 4] = b"RTEN";
/// FlatBuffers and rten's verifier cannot handle model data of this size or more.
pub const FLATBUFFER_LIMIT: u64 = 1 << 31;
/// Model offset of the 28-byte header of incompatible forks.
const FORK_HEADER_LEN: u64 = 28;

/// Where the FlatBuffer and the tensor data are.
pub struct Container {
    /// Absolute offset of the FlatBuffer.
    pub model_offset: u64,
    /// Length of the FlatBuffer.
    pub model_len: u64,
    /// Absolute start of the tensor data section, when the header gives a valid one.
    pub tensor_data_offset: Option<u64>,
    /// True for V1 files.
    pub v1: bool,
}

/// Reads the container layout, records header fields and sections, and reports problems.
/// Returns `None` when the FlatBuffer cannot be located.
pub fn read(cx: &mut Context<'_>) -> Option<Container> {
    let bytes = cx.bytes;
    let size = bytes.len() as u64;
    if !bytes.starts_with(MAGIC) {
        cx.inv.format_version = "V1".into();
        push_section(&mut cx.inv, SectionKind::ModelData, 0, size);
        if size >= FLATBUFFER_LIMIT {
            cx.report(
                &MODEL_TOO_LARGE,
                Place::at(0),
                too_large(format_args!("V1 file is {size} bytes"), FLATBUFFER_LIMIT),
            );
        }
        return Some(Container {
            model_offset: 0,
            model_len: size,
            tensor_data_offset: None,
            v1: true,
        });
    }
    cx.inv.format_version = "V2".into();
    cx.inv.property("magic", "RTEN", Some(0));
    let field = |name: &'static str| Item::Field { name };
    if size < HEADER_LEN {
        push_section(&mut cx.inv, SectionKind::Header, 0, size);
        cx.report(
            &HEADER_TRUNCATED,
            Place::at(0).item(field("header")),
            Short::of(0, HEADER_LEN, size).message("the V2 header"),
        );
        return None;
    }
    push_section(&mut cx.inv, SectionKind::Header, 0, HEADER_LEN);
    let version = le_u32(bytes, 4)?;
    let model_offset = le_u64(bytes, 8)?;
    let model_len = le_u64(bytes, 16)?;
    let tdo = le_u64(bytes, 24)?;
    if version != 2 {
        let fork_offset = le_u64(bytes, 4)?;
        let fork_len = le_u64(bytes, 12)?;
        if fork_offset == FORK_HEADER_LEN
            && fork_offset.checked_add(fork_len).is_some_and(|e| e <= size)
        {
            cx.inv.format_version = "fork (28-byte header)".into();
            cx.report(&FORK_HEADER, Place::at(0).item(field("header")), format!(
                "28-byte header (model_offset {fork_offset}, model_len {fork_len}) from an rten fork; \
                 not an upstream .rten file"));
        } else {
            cx.inv.property("version", version, Some(4));
            cx.report(
                &UNSUPPORTED_VERSION,
                Place::at(4).item(field("version")),
                format!("header field version = {version}, but only version 2 exists"),
            );
        }
        return None;
    }
    cx.inv.property("version", version, Some(4));
    cx.inv.property("model_offset", model_offset, Some(8));
    cx.inv.property("model_len", model_len, Some(16));
    cx.inv.property("tensor_data_offset", tdo, Some(24));

    let mut model_ok = true;
    if !(HEADER_LEN..=size).contains(&model_offset) {
        model_ok = false;
        cx.report(&MODEL_OFFSET_INVALID, Place::at(8).item(field("model_offset")), format!(
            "header field model_offset = {model_offset} must lie in {HEADER_LEN}..={size} (header end..file size)"));
    }
    let model_end = model_offset.checked_add(model_len);
    if model_ok && model_end.is_none_or(|end| end > size) {
        model_ok = false;
        let end = model_end.map_or_else(
            || "overflows u64".to_owned(),
            |e| format!("= {e}, past the file size {size}"),
        );
        cx.report(
            &MODEL_LENGTH_INVALID,
            Place::at(16).item(field("model_len")),
            format!("header field model_len = {model_len}: model_offset + model_len {end}"),
        );
    }
    if model_len >= FLATBUFFER_LIMIT {
        let message = too_large(
            format_args!("header field model_len = {model_len}"),
            FLATBUFFER_LIMIT,
        );
        cx.report(
            &MODEL_TOO_LARGE,
            Place::at(16).item(field("model_len")),
            message,
        );
    }
    let mut tdo_ok = true;
    if !(HEADER_LEN..=size).contains(&tdo) {
        tdo_ok = false;
        cx.report(&TENSOR_DATA_OFFSET_INVALID, Place::at(24).item(field("tensor_data_offset")), format!(
            "header field tensor_data_offset = {tdo} must lie in {HEADER_LEN}..={size} (header end..file size)"));
    }
    if model_ok {
        let end = model_offset + model_len;
        push_section(&mut cx.inv, SectionKind::ModelData, model_offset, end);
        if tdo_ok && (model_offset..end).contains(&tdo) {
            cx.report(&TENSOR_DATA_INSIDE_MODEL, Place::at(24).item(field("tensor_data_offset")), format!(
                "header field tensor_data_offset = {tdo} lies inside the model data {model_offset}..{end}; \
                 rten would read weights from FlatBuffer bytes"));
        } else if tdo_ok && tdo < model_offset {
            cx.report(
                &UNUSUAL_LAYOUT,
                Place::at(24).item(field("tensor_data_offset")),
                format!("tensor data starts at {tdo}, before the model data at {model_offset}"),
            );
        }
    }
    if model_offset != HEADER_LEN && (HEADER_LEN..=size).contains(&model_offset) {
        cx.report(
            &UNUSUAL_LAYOUT,
            Place::at(8).item(field("model_offset")),
            format!("model data starts at {model_offset}; rten-convert writes it at {HEADER_LEN}"),
        );
    }
    model_ok.then_some(Container {
        model_offset,
        model_len,
        tensor_data_offset: tdo_ok.then_some(tdo),
        v1: false,
    })
}

/// Adds a section from `start` to `end`.
pub fn push_section(inv: &mut Inventory, kind: SectionKind, start: u64, end: u64) {
    inv.sections.push(Section {
        file: 0,
        kind,
        range: ByteRange::between(start, end),
    });
}
