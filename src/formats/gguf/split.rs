//! Models split into parts by `llama-gguf-split`: `NAME-00001-of-00003.gguf` and so on,
//! each a GGUF file whose tensors' data it holds itself; the first part carries the
//! metadata and `split.count`, every part `split.no` (from 0).

use super::file::{self, Part};
use super::metadata::{Pairs, Value};
use super::rules::{SPLIT_MISMATCH, SPLIT_PART_MISSING};
use super::tensors::Seen;
use crate::check::Place;
use crate::formats::shared::context::Context;
use crate::formats::shared::datafiles::{DataFiles, SharedRules};
use crate::formats::ReadOptions;
use crate::inventory::FileId;
use crate::source::ModelFile;
use std::collections::HashMap;
use std::path::Path;

/// The part number and count a file name states, such as (2, 3) for
/// `model-00002-of-00003.gguf`.
pub fn part_of(path: &Path) -> Option<(u64, u64)> {
    let (_, no, count) = split_name(path)?;
    Some((no, count))
}

/// The prefix, part number and count of a split part's file name.
fn split_name(path: &Path) -> Option<(&str, u64, u64)> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".gguf")?;
    let (rest, count) = stem.rsplit_once("-of-")?;
    let (prefix, no) = rest.rsplit_once('-')?;
    let number = |s: &str| {
        (s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    Some((prefix, number(no)?, number(count)?))
}

/// A count key of `pairs`, if it is a non-negative integer, and where its value is.
fn count(pairs: &Pairs<'_>, key: &[u8]) -> Option<(u64, u64)> {
    let pair = pairs.get(key)?;
    match pair.value {
        Value::Scalar(_, scalar) => Some((scalar.count()?, pair.value_at)),
        _ => None,
    }
}

/// Whether `pairs` are those of a split model's second or later part (`split.no` > 0).
pub fn later_part(pairs: &Pairs<'_>) -> bool {
    count(pairs, b"split.no").is_some_and(|(no, _)| no > 0)
}

/// Parts of a remote split model fetched side by side before they are read, at most (as
/// many remote files as may be open at once); any more are fetched as they are read.
const MAX_PREFETCHED: u64 = 1024;

/// Reads the other parts of a split model whose first part is `file`; whether every part
/// was there and read whole. A later part checked on its own is compared with its name.
pub fn read(
    cx: &mut Context<'_>,
    file: &ModelFile,
    _: &ReadOptions,
    first: &Part<'_>,
    seen: &mut Seen,
) -> bool {
    let named = split_name(file.path());
    let no = count(&first.pairs, b"split.no");
    if named.is_some_and(|(_, k, _)| k > 1) || no.is_some_and(|(n, _)| n > 0) {
        alone(cx, first, named, no);
        return true;
    }
    let keys = count(&first.pairs, b"split.count");
    let Some(parts) = keys.map(|(n, _)| n).or(named.map(|(_, _, n)| n)) else {
        return true;
    };
    let at = keys.map(|(_, at)| at);
    if parts <= 1 {
        return true;
    }
    cx.inv.property("split.count", parts, at);
    let Some((prefix, _, named_count)) = named else {
        let message = format!("split.count = {parts}, but the file name does not follow NAME-00001-of-{parts:05}.gguf, so loaders cannot find the other parts");
        cx.report(&SPLIT_MISMATCH, Place::field("split.count", at), message);
        return false;
    };
    if named_count != parts {
        let message = format!("split.count = {parts}, but the file name says {named_count} parts");
        cx.report(&SPLIT_MISMATCH, Place::field("split.count", at), message);
    }
    // The parts are found by their names, as loaders find them.
    let parts = named_count;
    let mut files = DataFiles::new(file, &SharedRules);
    let mut total = first.tensors;
    let mut whole = true;
    // The part each data file was read as.
    let mut read: HashMap<FileId, u64> = HashMap::new();
    let name = |k: u64| format!("{prefix}-{k:05}-of-{parts:05}.gguf");
    let names: Vec<String> = (2..=parts.min(MAX_PREFETCHED)).map(name).collect();
    files.folder().prefetch(&names);
    for k in 2..=parts {
        let name = name(k);
        if !files.folder().exists(&name) {
            let message = format!(
                "part {k} of {parts}, {}, is not beside the first part",
                crate::escape::sanitize(&name)
            );
            cx.report(
                &SPLIT_PART_MISSING,
                Place::field("split.count", at),
                message,
            );
            whole = false;
            continue;
        }
        let Some(id) = files.file(name.as_bytes(), Place::FILE, &mut cx.inv, cx.out) else {
            whole = false;
            continue;
        };
        // A part that is another part under a second name (a hard link) is read once.
        if let Some(&same) = read.get(&id) {
            let name = crate::escape::sanitize(&name);
            let message = format!("part {k} of {parts}, {name}, is the same file as part {same}: it is read once, and llama.cpp refuses the split, as one file cannot be both parts");
            cx.report(&SPLIT_MISMATCH, Place::FILE.in_file(id), message);
            whole = false;
            continue;
        }
        read.insert(id, k);
        let Some(part_file) = files.open(id, &cx.inv, cx.out) else {
            whole = false;
            continue;
        };
        cx.inv.forget_whole_file_section(id);
        match file::read(cx, part_file.bytes(), id, seen) {
            Some(part) => {
                whole &= part.whole;
                total = total.saturating_add(part.tensors);
                agrees(cx, &part, id, k, parts);
            }
            None => whole = false,
        }
        DataFiles::report_change(&part_file, id, cx.out);
    }
    if let (Some((expected, at)), true) = (count(&first.pairs, b"split.tensors.count"), whole) {
        if expected != total {
            let message = format!(
                "split.tensors.count = {expected}, but the {parts} parts hold {total} tensors"
            );
            cx.report(
                &SPLIT_MISMATCH,
                Place::field("split.tensors.count", at),
                message,
            );
        }
    }
    whole
}

/// Checks a later part of a split model, read on its own (`part`), against its file name
/// (`named`): its `split.no` (`no`) and `split.count` must be the ones the name states.
fn alone(
    cx: &mut Context<'_>,
    part: &Part<'_>,
    named: Option<(&str, u64, u64)>,
    no: Option<(u64, u64)>,
) {
    // Parts are numbered from 1 in names.
    match (named.filter(|&(_, k, _)| k > 0), no) {
        (Some((_, k, parts)), _) => agrees(cx, part, 0, k, parts),
        (None, Some((no, at))) => {
            let k = no.saturating_add(1);
            let message = format!("split.no = {no}: the file is part {k} of a split model, but its name does not follow NAME-{k:05}-of-NNNNN.gguf, so loaders cannot find it");
            cx.report(&SPLIT_MISMATCH, Place::field("split.no", at), message);
        }
        (None, None) => {}
    }
}

/// Reports a part `k` of `parts` (file `id`) whose `split.no` or `split.count` say otherwise.
fn agrees(cx: &mut Context<'_>, part: &Part<'_>, id: FileId, k: u64, parts: u64) {
    for (key, want) in [("split.no", k - 1), ("split.count", parts)] {
        let said = count(&part.pairs, key.as_bytes());
        if said.map(|(n, _)| n) != Some(want) {
            let shown = said.map_or("missing".to_owned(), |(n, _)| n.to_string());
            let message = format!("part {k} of {parts} has {key} = {shown}; it should be {want}");
            let place = Place::field(key, said.map(|(_, at)| at)).in_file(id);
            cx.report(&SPLIT_MISMATCH, place, message);
        }
    }
}
