//! One GGUF file read whole, and the checks that span its metadata and tensors.

use super::arch::{self, table};
use super::file;
use super::metadata::{Pairs, Scalar, Value};
use super::rules::{
    ARCHITECTURE_INVALID, ARCHITECTURE_MISSING, CHAT_TEMPLATE, LAYER_COUNT, QUANTIZATION_VERSION,
};
use super::tensors::Seen;
use super::{dtypes, split, template};
use crate::check::Place;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::context::Context;
use crate::formats::ReadOptions;
use crate::source::ModelFile;
use std::collections::BTreeSet;

/// Reads the model file of `cx` and, for a split model, its other parts.
pub fn read(cx: &mut Context<'_>, file: &ModelFile, options: &ReadOptions) {
    let bytes = cx.bytes;
    let mut seen = Seen::default();
    let Some(first) = file::read(cx, bytes, 0, &mut seen) else {
        return;
    };
    let parts_whole = split::read(cx, file, options, &first, &mut seen);
    check_model(cx, &first.pairs, first.whole && parts_whole);
    // Unclaimed bytes mean something only where every part of every file was placed.
    if first.whole && parts_whole {
        cx.inv.fill_gaps();
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
            let message = format!("general.architecture is \"{}\"; GGUF allows only [a-z0-9]+, and llama.cpp knows no such architecture", excerpt(arch, EXCERPT));
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
                excerpt(pair.key, EXCERPT)
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
            excerpt(&key, EXCERPT)
        );
        cx.report(
            &LAYER_COUNT,
            Place::field("block_count", pair.value_at),
            message,
        );
    }
}
