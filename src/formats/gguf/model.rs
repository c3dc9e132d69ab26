//! One GGUF file read whole, and the checks that span its metadata and tensors.

use super::arch::{self, table};
use super::metadata::{self, Pairs, Scalar, Value};
use super::rules::{
    ALIGNMENT_INVALID, ALIGNMENT_UNUSUAL, ARCHITECTURE_INVALID, ARCHITECTURE_MISSING,
    CHAT_TEMPLATE, LAYER_COUNT, QUANTIZATION_VERSION,
};
use super::{dtypes, header, split, template, tensors};
use crate::check::Place;
use crate::escape::excerpt;
use crate::formats::shared::context::Context;
use crate::formats::ReadOptions;
use crate::inventory::{ByteRange, FileId, Name, Section, SectionKind};
use crate::source::ModelFile;
use std::collections::{BTreeSet, HashMap};

/// The alignment when `general.alignment` is not set.
pub const DEFAULT_ALIGNMENT: u64 = 32;

/// Tensor names already read, in every part: where each was declared.
pub type Seen = HashMap<Name, (FileId, u64)>;

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

/// Reads the model file of `cx` and, for a split model, its other parts.
pub fn read(cx: &mut Context<'_>, file: &ModelFile, options: &ReadOptions) {
    let bytes = cx.bytes;
    let mut seen = Seen::new();
    let Some(first) = read_file(cx, bytes, 0, &mut seen) else {
        return;
    };
    let parts_whole = split::read(cx, file, options, &first, &mut seen);
    check_model(cx, &first.pairs, first.whole && parts_whole);
    // Unclaimed bytes mean something only where every part of every file was placed.
    if first.whole && parts_whole {
        cx.inv.fill_gaps();
    }
}

/// Reads one file of the model: header, pairs, tensor infos, sections. `None` if the header
/// is unusable.
pub fn read_file<'a>(
    cx: &mut Context<'_>,
    bytes: &'a [u8],
    file: FileId,
    seen: &mut Seen,
) -> Option<Part<'a>> {
    let header = header::read(bytes, file, &mut cx.inv, cx.out)?;
    let pairs = metadata::read(cx, bytes, file, header.end, header.pairs, header.big_endian);
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

/// Checks what the first file's metadata says about the whole model against its tensors;
/// nothing for a later part of a split model, which holds tensors only. `whole`: every part
/// was read to its end, so that the model's tensors are all known.
fn check_model(cx: &mut Context<'_>, pairs: &Pairs<'_>, whole: bool) {
    if split::later_part(pairs) {
        return;
    }
    let architecture = pairs
        .get(b"general.architecture")
        .and_then(|pair| match pair.value {
            Value::Str(arch) => Some((arch, pair.value_at)),
            _ => None,
        });
    if architecture.is_none() && pairs.end.is_some() {
        cx.report(
            &ARCHITECTURE_MISSING,
            Place::field("general.architecture", None),
            "the file has no string key general.architecture, which llama.cpp needs to choose the model",
        );
    }
    if let Some((arch, at)) = architecture {
        let valid = !arch.is_empty()
            && arch
                .iter()
                .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit());
        let known =
            std::str::from_utf8(arch).is_ok_and(|name| table::table().known.contains_key(name));
        if !valid && !known {
            let message = format!("general.architecture is \"{}\"; GGUF allows only [a-z0-9]+, and llama.cpp knows no such architecture", excerpt(arch, 200));
            cx.report(
                &ARCHITECTURE_INVALID,
                Place::field("general.architecture", at),
                message,
            );
        }
        layer_count(cx, pairs, arch);
        if whole && pairs.end.is_some() {
            arch::check(cx, pairs, arch, at, valid);
        }
    }
    let quantized = (cx.inv.tensors.iter()).any(|t| t.dtype.is_some_and(dtypes::is_quantized));
    if quantized && pairs.get(b"general.quantization_version").is_none() && pairs.end.is_some() {
        cx.report(
            &QUANTIZATION_VERSION,
            Place::field("general.quantization_version", None),
            "the model has quantized tensors but no general.quantization_version",
        );
    }
    for pair in &pairs.pairs {
        let Value::Str(text) = pair.value else {
            continue;
        };
        if !pair.key.starts_with(b"tokenizer.chat_template") {
            continue;
        }
        if let Some((what, at)) = template::escape(text) {
            // The string's bytes start after its length.
            let start = pair.value_at + 8;
            let message = format!(
                "chat template \"{}\" uses {what} at byte {at} of the template, as Jinja sandbox escapes do",
                excerpt(pair.key, 200)
            );
            cx.report(&CHAT_TEMPLATE, Place::at(start + at), message);
        }
    }
}

/// Compares `<arch>.block_count` with the `blk.N.` layers the tensors name.
fn layer_count(cx: &mut Context<'_>, pairs: &Pairs<'_>, arch: &[u8]) {
    let key = [arch, b".block_count"].concat();
    let Some(pair) = pairs.get(&key) else {
        return;
    };
    let Value::Scalar(_, scalar) = pair.value else {
        return;
    };
    let layers: BTreeSet<u64> = (cx.inv.tensors.iter())
        .filter_map(|t| {
            let rest = t.name.as_bytes().strip_prefix(b"blk.")?;
            let digits = rest.split(|&b| b == b'.').next()?;
            std::str::from_utf8(digits).ok()?.parse().ok()
        })
        .collect();
    if cx.inv.tensors.is_empty() {
        return;
    }
    let present = layers.last().map_or(0, |n| n + 1);
    let count = scalar.count();
    if count != Some(present) || layers.len() as u64 != present {
        let shown = match scalar {
            Scalar::Float(f) => f.to_string(),
            other => other
                .count()
                .map_or_else(|| format!("{other:?}"), |n| n.to_string()),
        };
        let held = match layers.last() {
            Some(last) => format!("{} layers numbered up to blk.{last}", layers.len()),
            None => "no blk.N layer".to_owned(),
        };
        let message = format!(
            "{} = {shown}, but the tensors hold {held}",
            excerpt(&key, 200)
        );
        cx.report(
            &LAYER_COUNT,
            Place::field("block_count", pair.value_at),
            message,
        );
    }
}
