//! One file of a GGUF model read whole: its header, key-value pairs, tensor infos and
//! sections, for the model file and each part of a split model alike.

use super::arch::table;
use super::header;
use super::metadata::{self, Pairs, Scalar, Value};
use super::rules::{ALIGNMENT_INVALID, ALIGNMENT_UNUSUAL};
use super::tensors::{self, Seen};
use crate::check::Place;
use crate::formats::shared::context::Context;
use crate::inventory::{ByteRange, FileId, Section, SectionKind};

/// The alignment when `general.alignment` is not set.
pub const DEFAULT_ALIGNMENT: u64 = 32;

/// What one file of a model holds, beyond what went into the inventory.
pub struct Part<'a> {
    /// Its key-value pairs.
    pub pairs: Pairs<'a>,
    /// How many tensor infos its header declares.
    pub tensors: u64,
    /// Whether all of it was read and every tensor placed with its size, so that every byte
    /// is accounted for.
    pub whole: bool,
}

/// Reads one file of the model: header, pairs, tensor infos, sections. `None` if the header
/// is unusable.
pub fn read<'a>(
    cx: &mut Context<'_>,
    bytes: &'a [u8],
    file: FileId,
    seen: &mut Seen,
) -> Option<Part<'a>> {
    let header = header::read(bytes, file, &mut cx.inv, cx.out)?;
    let architectures = &table::table().known;
    let (start, count, big_endian) = (header.end, header.pairs, header.big_endian);
    let pairs = metadata::read(cx, bytes, file, start, count, big_endian, architectures);
    let alignment = alignment(cx, &pairs, file);
    if file == 0 {
        cx.inv.preferred_alignment = Some(alignment);
        cx.inv.property("alignment", alignment, None);
    }
    let section = |kind, range| Section { file, kind, range };
    let size = bytes.len() as u64;
    let Some(infos) = pairs.end else {
        let range = ByteRange::between(header.end, size);
        cx.inv.sections.push(section(SectionKind::ModelData, range));
        return Some(Part {
            pairs,
            tensors: header.tensors,
            whole: false,
        });
    };
    let first_tensor = cx.inv.tensors.len();
    let placed = tensors::read(cx, bytes, file, &header, infos, alignment, seen);
    let end = placed.infos_end.unwrap_or(size);
    let model_data = ByteRange::between(header.end, end);
    cx.inv
        .sections
        .push(section(SectionKind::ModelData, model_data));
    if let Some(start) = placed.data_start.filter(|&start| start <= size) {
        // This file's tensors only: the parts before it hold theirs in their own files.
        let last = (cx
            .inv
            .tensors
            .get(first_tensor..)
            .unwrap_or_default()
            .iter())
        .filter_map(|t| t.data.filter(|d| d.file == file)?.end())
        .filter(|&end| end <= size)
        .fold(start, u64::max);
        cx.inv.sections.push(section(
            SectionKind::TensorData,
            ByteRange::between(start, last),
        ));
        // Writers pad the last tensor to the alignment too.
        let padded = last.checked_next_multiple_of(alignment).unwrap_or(last);
        let padding = ByteRange::between(last, padded.min(size));
        if padding.len > 0 {
            cx.inv.sections.push(section(SectionKind::Padding, padding));
        }
        if file == 0 {
            cx.inv.property("data offset", start, None);
        }
    }
    Some(Part {
        pairs,
        tensors: header.tensors,
        whole: placed.sized,
    })
}

/// The alignment `general.alignment` sets, reporting one that ggml cannot use; the default
/// where it is unset or unusable.
fn alignment(cx: &mut Context<'_>, pairs: &Pairs<'_>, file: FileId) -> u64 {
    let Some(pair) = pairs.get(b"general.alignment") else {
        return DEFAULT_ALIGNMENT;
    };
    let place = Place::field("general.alignment", pair.value_at).in_file(file);
    match pair.value {
        Value::Scalar("u32", Scalar::Unsigned(n)) if n.is_power_of_two() => {
            if n % 8 != 0 {
                let message = format!("general.alignment = {n}; the specification asks for a multiple of 8 (llama.cpp accepts it)");
                cx.report(&ALIGNMENT_UNUSUAL, place, message);
            }
            n
        }
        Value::Scalar("u32", Scalar::Unsigned(n)) => {
            let message = format!("general.alignment = {n} is not a power of two; llama.cpp refuses it (rtenx places tensors at {DEFAULT_ALIGNMENT})");
            cx.report(&ALIGNMENT_INVALID, place, message);
            DEFAULT_ALIGNMENT
        }
        other => {
            let place = place.offset(pair.type_at);
            let ty = match other {
                Value::Scalar(ty, _) => ty,
                Value::Str(_) => "string",
                Value::List(_) => "array",
            };
            let message = format!("general.alignment is a {ty}; GGUF requires a u32 (rtenx places tensors at {DEFAULT_ALIGNMENT})");
            cx.report(&ALIGNMENT_INVALID, place, message);
            DEFAULT_ALIGNMENT
        }
    }
}
