//! The section table checked (bounds, overlaps, types) and each section laid out; TFLite
//! models read in place, a compressed tokenizer's declared size weighed against its data.

use super::header::Header;
use super::rules::{SECTION_BOUNDS, SECTION_OVERLAP, SECTION_TYPE, TOKENIZER_SIZE};
use super::table::{Entry, Table};
use crate::check::{Item, Place};
use crate::formats::shared::bytes::{le_u64, range};
use crate::formats::shared::context::Context;
use crate::formats::tflite;
use crate::inventory::{ByteRange, Section, SectionKind};

/// `AnySectionDataType`, by value (LiteRT-LM 1.9); 0 is `NONE`, which no section may be.
const TYPES: [&str; 12] = [
    "NONE",
    "GenericBinaryData",
    "Deprecated",
    "TFLiteModel",
    "SP_Tokenizer",
    "LlmMetadataProto",
    "HF_Tokenizer_Zlib",
    "TFLiteWeights",
    "EmbeddingMetadataProto",
    "ExecutorMetadataProto",
    "TtsMetadataProto",
    "AsrMetadataProto",
];
const TFLITE_MODEL: u8 = 3;
const HF_TOKENIZER_ZLIB: u8 = 6;
/// The most bytes zlib's deflate produces per compressed byte.
const ZLIB_MOST_RATIO: u64 = 1032;

/// Checks every section, lays out those inside the file and reads what they hold.
pub fn read(cx: &mut Context<'_>, header: &Header, table: &Table) {
    let format_version = cx.inv.format_version.clone();
    let mut inside: Vec<(ByteRange, usize)> = Vec::with_capacity(table.entries.len());
    for (i, e) in table.entries.iter().enumerate() {
        let name = TYPES.get(usize::from(e.data_type)).copied();
        let described = format!("sections[{i}] ({})", name.unwrap_or("?"));
        cx.inv.property(
            &format!("sections[{i}]"),
            format!("{} at {}..{}", name.unwrap_or("?"), e.begin, e.end),
            Some(e.at),
        );
        if name.is_none_or(|n| n == "NONE") {
            cx.report(
                &SECTION_TYPE,
                Place::at(e.at).item(Item::Field { name: "data_type" }),
                format!("sections[{i}] has data_type {}, which the runtime does not know (it knows 1 to {})", e.data_type, TYPES.len() - 1),
            );
        }
        match bounds(cx, header, &described, e) {
            Ok(range) => inside.push((range, i)),
            // What lies inside the file is the section's still, not trailing bytes.
            Err(Some(claimed)) => cx.inv.sections.push(Section {
                file: 0,
                kind: SectionKind::BlobData,
                range: claimed,
            }),
            Err(None) => {}
        }
    }
    overlaps(cx, table, &mut inside);
    for (range, i) in inside {
        let Some(e) = table.entries.get(i) else {
            continue;
        };
        // Weights are bytes no tensor rtenx reads points into: opaque, like tokenizers.
        let kind = match e.data_type {
            TFLITE_MODEL => SectionKind::ModelData,
            _ => SectionKind::BlobData,
        };
        cx.inv.sections.push(Section {
            file: 0,
            kind,
            range,
        });
        let bytes = cx.bytes;
        let data = range_of(bytes, range);
        match e.data_type {
            TFLITE_MODEL => model(cx, i, data),
            HF_TOKENIZER_ZLIB => tokenizer(cx, i, range, data),
            _ => {}
        }
    }
    cx.inv.format_version = format_version;
    cx.inv.fill_gaps();
}

/// The section's bytes, checked against the header and the file; if reported, the part of
/// them between the header and the file's end, if any.
fn bounds(
    cx: &mut Context<'_>,
    header: &Header,
    what: &str,
    e: &Entry,
) -> Result<ByteRange, Option<ByteRange>> {
    let size = cx.bytes.len() as u64;
    let (begin, end) = (e.begin, e.end);
    let claimed = ByteRange::between(begin.max(header.end), end.min(size));
    let problem = if end < begin {
        format!("{what} ends at {end}, before it begins at {begin}: the runtime takes its size as {end} - {begin}, which wraps to {} bytes", end.wrapping_sub(begin))
    } else if end == begin {
        format!("{what} is empty ({begin}..{end}); the runtime refuses it (\"has zero size\")")
    } else if begin < header.end {
        format!(
            "{what} begins at {begin}, inside the header, which ends at {}",
            header.end
        )
    } else if end > size {
        format!("{what} ends at {end}, past the file's end ({size} bytes)")
    } else {
        return Ok(ByteRange::between(begin, end));
    };
    let place = Place::at(e.at).item(Item::Field {
        name: "begin_offset",
    });
    cx.report(&SECTION_BOUNDS, place, problem);
    Err((claimed.len > 0).then_some(claimed))
}

/// Reports sections that share bytes, and keeps the first of each overlapping run; sorted
/// once, so O(n log n).
fn overlaps(cx: &mut Context<'_>, table: &Table, inside: &mut Vec<(ByteRange, usize)>) {
    inside.sort_by_key(|(r, i)| (r.start, r.len, *i));
    let mut before: Option<(ByteRange, usize)> = None;
    inside.retain(|&(range, i)| {
        let Some((prev, j)) = before.filter(|(prev, _)| range.start < prev.end()) else {
            before = Some((range, i));
            return true;
        };
        let at = table.entries.get(i).map_or(0, |e| e.at);
        cx.report(
            &SECTION_OVERLAP,
            Place::at(at).item(Item::Field {
                name: "begin_offset",
            }),
            format!(
                "sections[{i}] at {}..{} shares bytes with sections[{j}] at {}..{}",
                range.start,
                range.end(),
                prev.start,
                prev.end()
            ),
        );
        if range.end() > prev.end() {
            // Its bytes past the one it overlaps are its own, not trailing bytes.
            cx.inv.sections.push(Section {
                file: 0,
                kind: SectionKind::BlobData,
                range: ByteRange::between(prev.end(), range.end()),
            });
            before = Some((range, i));
        }
        false
    });
}

/// Reads section `i`, a TFLite model, in place; its graphs are named after the section.
fn model<'a>(cx: &mut Context<'a>, i: usize, data: &'a [u8]) {
    let first = cx.inv.graphs.len();
    tflite::read_inside(cx, data);
    for g in first..cx.inv.graphs.len() {
        let Some(graph) = cx.inv.graphs.get(g) else {
            break;
        };
        let mut text = format!("sections[{i}]/").into_bytes();
        text.extend_from_slice(graph.name.as_bytes());
        let place = Place::at(graph.offset.unwrap_or(0));
        let name = cx.copied(&text, place);
        if let Some(graph) = cx.inv.graphs.get_mut(g) {
            graph.name = name;
        }
    }
}

/// Checks section `i`, a zlib-compressed tokenizer: its declared size must be one its data
/// can hold.
fn tokenizer(cx: &mut Context<'_>, i: usize, range: ByteRange, data: &[u8]) {
    let place = Place::at(range.start).item(Item::Field {
        name: "uncompressed_size",
    });
    let Some(declared) = le_u64(data, 0) else {
        let message = format!("sections[{i}] (HF_Tokenizer_Zlib) is {} bytes, too short for its 8-byte uncompressed size", data.len());
        cx.report(&TOKENIZER_SIZE, place, message);
        return;
    };
    let compressed = data.len() as u64 - 8;
    let most = compressed.saturating_mul(ZLIB_MOST_RATIO);
    cx.inv.property(
        &format!("sections[{i}] tokenizer"),
        format!("{declared} bytes from {compressed}"),
        Some(range.start),
    );
    if declared > most {
        let message = format!("sections[{i}] (HF_Tokenizer_Zlib) declares {declared} bytes uncompressed, more than zlib can make of its {compressed} compressed bytes ({most} at most); the runtime allocates the declared size first");
        cx.report(&TOKENIZER_SIZE, place, message);
    }
}

/// The bytes of `r`, known to be inside `bytes`.
fn range_of(bytes: &[u8], r: ByteRange) -> &[u8] {
    range(bytes, r.start, r.len).unwrap_or_default()
}
