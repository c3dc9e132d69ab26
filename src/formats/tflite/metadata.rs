//! What the model says about itself: `Model.metadata` (the converter's
//! `min_runtime_version`, the `TFLITE_METADATA` FlatBuffer of tflite-support with the model's
//! name, author and licence, other entries by size), signature defs, and the facts the
//! inventory shows as properties.

use super::reader::Reader;
use super::rules::{tensor_index_message, BUFFER_INDEX, SIGNATURE_SUBGRAPH, TENSOR_INDEX};
use super::schema;
use crate::check::Place;
use crate::formats::shared::bytes::range;
use crate::formats::shared::flatbuffer::{self, RawTable};
use crate::inventory::{MetadataEntry, Name, RuntimeRequirement, TensorView};

/// The identifier of tflite-support's `ModelMetadata` FlatBuffer.
const METADATA_IDENTIFIER: &[u8; 4] = b"M001";
/// `ModelMetadata` fields rtenx shows, by vtable slot.
const METADATA_FIELDS: [(u16, &str); 6] = [
    (4, "name"),
    (6, "description"),
    (8, "version"),
    (12, "author"),
    (14, "license"),
    (18, "min_parser_version"),
];
/// Tensors listed per signature in its metadata entry.
const SHOWN: usize = 32;

/// Reads metadata and signatures, then marks the buffers several constants share.
pub fn read(r: &mut Reader<'_, '_>, model: schema::Model<'_>) {
    let root = r.loc(model._tab.loc());
    if let Some(list) = model.metadata_buffer() {
        let at = r.seen(list.bytes());
        for (i, b) in list.iter().enumerate() {
            let valid = usize::try_from(b).is_ok_and(|b| b < r.buffers.len());
            if !valid {
                let message = format!(
                    "metadata_buffer[{i}] = {b}, but the model has {} buffers",
                    r.buffers.len()
                );
                r.cx.report(&BUFFER_INDEX, Place::field("metadata_buffer", at), message);
            }
        }
    }
    if let Some(list) = model.metadata() {
        r.seen(list.bytes());
        for m in list.iter() {
            entry(r, m);
        }
    }
    if let Some(list) = model.signature_defs() {
        r.seen(list.bytes());
        for (i, s) in list.iter().enumerate() {
            signature(r, i, s);
        }
    }
    shared_buffers(r);
    facts(r, root);
}

/// One `Metadata` entry.
fn entry(r: &mut Reader<'_, '_>, m: schema::Metadata<'_>) {
    let at = r.table(m._tab.loc());
    let name = m.name().unwrap_or_default();
    r.seen(name.as_bytes());
    let index = m.buffer();
    let Some(buffer) = r.buffers.get(index as usize).copied() else {
        let message = format!(
            "metadata \"{name}\" has buffer {index}, but the model has {} buffers",
            r.buffers.len()
        );
        r.cx.report(&BUFFER_INDEX, Place::field("metadata", at), message);
        return;
    };
    let bytes = (buffer.range)
        .and_then(|b| range(r.cx.bytes, b.start, b.len))
        .unwrap_or_default();
    if !r.cx.spend(1, Place::at(at)) {
        return;
    }
    let key = r.cx.name(name.as_bytes());
    match name {
        "min_runtime_version" => {
            let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
            let version = r.cx.name(text);
            r.cx.inv.runtime = Some(RuntimeRequirement {
                runtime: "TFLite",
                min_version: version.to_string(),
                reason: "the converter's min_runtime_version metadata".into(),
            });
            push(r, key, version, at);
        }
        "TFLITE_METADATA" if flatbuffer::identifier(bytes) == Some(*METADATA_IDENTIFIER) => {
            let table = RawTable::root(bytes);
            for (slot, field) in METADATA_FIELDS {
                if let Some(text) = table.bytes(slot) {
                    let key = Name::from(format!("TFLITE_METADATA.{field}"));
                    let value = r.cx.name(text);
                    push(r, key, value, at);
                }
            }
        }
        _ => {
            let value = Name::from(format!("{} bytes", bytes.len()));
            push(r, key, value, at);
        }
    }
}

fn push(r: &mut Reader<'_, '_>, key: Name, value: Name, at: u64) {
    r.cx.inv.metadata.push(MetadataEntry {
        offset: Some(at),
        ..MetadataEntry::new(key, value)
    });
}

/// One signature: its subgraph and tensors checked, and shown as a metadata entry
/// `signature.KEY`: `inputs a=0, b=1; outputs y=7 (subgraph 0)`.
fn signature(r: &mut Reader<'_, '_>, i: usize, s: schema::SignatureDef<'_>) {
    let at = r.table(s._tab.loc());
    let place = Place::field("signature_defs", at);
    let key = s.signature_key().unwrap_or_default();
    let g = s.subgraph_index();
    let count = r.tensor_counts.get(g as usize).copied();
    if count.is_none() {
        let message = format!(
            "signature_defs[{i}] (\"{key}\") names subgraph {g}, but the model has {}",
            r.tensor_counts.len()
        );
        r.cx.report(&SIGNATURE_SUBGRAPH, place, message);
    }
    let mut text = String::new();
    for (what, list) in [("inputs", s.inputs()), ("outputs", s.outputs())] {
        let Some(list) = list else { continue };
        // Paid for as read: many signatures can share one list.
        if !r.cx.spend(list.len() as u64, place) {
            return;
        }
        r.seen(list.bytes());
        text.push_str(if text.is_empty() { what } else { "; outputs" });
        for (j, m) in list.iter().enumerate() {
            let name = m.name().unwrap_or_default();
            let tensor = m.tensor_index();
            if let Some(count) = count.filter(|&c| tensor as usize >= c) {
                let message = tensor_index_message(
                    &format!("signature \"{key}\" {what} \"{name}\""),
                    i64::from(tensor),
                    count,
                );
                r.cx.report(&TENSOR_INDEX, place, message);
            }
            match j {
                0 => text.push_str(&format!(" {name}={tensor}")),
                j if j < SHOWN => text.push_str(&format!(", {name}={tensor}")),
                SHOWN => text.push_str(&format!(", ... ({} in all)", list.len())),
                _ => {}
            }
        }
    }
    text.push_str(&format!(" (subgraph {g})"));
    let key = format!("signature.{key}");
    let key = r.cx.copied(key.as_bytes(), place);
    let value = r.cx.copied(text.as_bytes(), place);
    push(r, key, value, at);
}

/// Constants that share one buffer view it rather than overlap (the converter shares the
/// buffer of equal constants).
fn shared_buffers(r: &mut Reader<'_, '_>) {
    let mut constants = std::mem::take(&mut r.constants);
    constants.sort_unstable();
    for group in constants
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|g| g.len() > 1)
    {
        for &(buffer, tensor) in group {
            let Some(t) = r.cx.inv.tensors.get(tensor) else {
                continue;
            };
            let mut strides = vec![1u64; t.shape.len()];
            let mut step = 1u64;
            for (stride, &dim) in strides.iter_mut().zip(&t.shape).rev() {
                *stride = step;
                step = step.saturating_mul(dim);
            }
            if !r.cx.spend(1, Place::FILE) {
                return;
            }
            r.cx.inv.views.push(TensorView {
                tensor,
                storage: Name::from(format!("buffer {buffer}")),
                storage_offset: 0,
                strides,
            });
        }
    }
    r.cx.inv.views.sort_by_key(|v| v.tensor);
}

/// Counts the inventory shows as properties.
fn facts(r: &mut Reader<'_, '_>, root: u64) {
    let external = r.buffers.iter().filter(|b| b.external).count();
    let facts = [
        ("operator_codes", r.opcodes.len().to_string()),
        ("subgraphs", r.tensor_counts.len().to_string()),
        (
            "buffers",
            format!("{} ({external} in the offset/size form)", r.buffers.len()),
        ),
        (
            "quantized_tensors",
            format!("{} ({} per axis)", r.quantized.0, r.quantized.1),
        ),
        ("sparse_tensors", r.sparse.to_string()),
    ];
    for (key, value) in facts {
        r.cx.inv.property(key, value, Some(root));
    }
}
