//! `Model.buffers`: where each buffer's bytes are, inline in the FlatBuffer or, in the
//! offset/size form of models over 2 GB, after it; and the checks the verifier skips on the
//! latter (inside the file, apart from the FlatBuffer and each other).

use super::reader::{Buffer, Reader, What};
use super::rules::{OFFSET_BOUNDS, OFFSET_OVERLAP, SENTINEL};
use super::schema;
use crate::check::{Item, Place};
use crate::formats::shared::flatbuffer::RawTable;
use crate::inventory::ByteRange;

/// Vtable slot of `Buffer.offset`.
const BUFFER_OFFSET: u16 = 6;

/// Locates every buffer; checks that buffer 0 is empty.
pub fn read(r: &mut Reader<'_, '_>, model: schema::Model<'_>) -> Vec<Buffer> {
    let Some(buffers) = model.buffers() else {
        return Vec::new();
    };
    if !r
        .cx
        .spend(buffers.len() as u64, Place::at(r.at(buffers.bytes())))
    {
        return Vec::new();
    }
    r.seen(buffers.bytes());
    let mut found = Vec::with_capacity(buffers.len());
    for (index, b) in buffers.iter().enumerate() {
        let at = r.table(b._tab.loc());
        let what = What::Buffer(index);
        let buffer = match (b.data(), b.offset()) {
            (Some(data), _) if !data.is_empty() => {
                let start = r.seen(data.bytes());
                Buffer {
                    range: Some(ByteRange {
                        start,
                        len: data.len() as u64,
                    }),
                    external: false,
                    at,
                    what,
                }
            }
            (_, offset) if offset > 1 => {
                let raw = RawTable::new(r.model, b._tab.loc());
                let at = raw.field_pos(BUFFER_OFFSET).map_or(at, |p| r.loc(p));
                Buffer {
                    range: Some(ByteRange {
                        start: r.base.saturating_add(offset),
                        len: b.size(),
                    }),
                    external: true,
                    at,
                    what,
                }
            }
            _ => Buffer {
                range: None,
                external: false,
                at,
                what,
            },
        };
        if index == 0 && buffer.has_data() {
            let len = buffer.range.map_or(0, |r| r.len);
            r.cx.report(
                &SENTINEL,
                Place::at(at).item(Item::Field { name: "buffers" }),
                format!("buffers[0] holds {len} bytes, but it is the empty sentinel that every tensor without data points at"),
            );
        }
        found.push(buffer);
    }
    found
}

/// Checks every offset/size range (buffers, and operators' large custom options): inside
/// the file, after the FlatBuffer, apart from each other. Sorted once, so O(n log n).
pub fn check_offsets(r: &mut Reader<'_, '_>) {
    let size = r.model.len() as u64;
    let mut ranges: Vec<(ByteRange, Buffer)> = (r.buffers.iter())
        .chain(&r.large_options)
        .filter(|b| b.external)
        .filter_map(|b| Some((b.range?, *b)))
        .collect();
    let mut inside = Vec::with_capacity(ranges.len());
    for (range, b) in ranges.drain(..) {
        let place = Place::at(b.at).item(Item::Field { name: "offset" });
        let offset = range.start - r.base;
        match offset.checked_add(range.len) {
            Some(end) if end <= size => inside.push((range, b)),
            end => {
                let end = end.map_or_else(|| "past 2^64".to_owned(), |e| e.to_string());
                let whole = if r.base == 0 {
                    "file"
                } else {
                    "model's section"
                };
                r.cx.report(&OFFSET_BOUNDS, place, format!(
                    "{} is at offset {offset} with size {} (ending at {end}), but the {whole} is {size} bytes",
                    b.what, range.len));
            }
        }
    }
    inside.sort_by_key(|(range, _)| (range.start, range.len));
    let mut before: Option<(u64, What)> = None;
    for (range, b) in inside {
        let place = Place::at(b.at).item(Item::Field { name: "offset" });
        if range.start < r.flatbuffer_end {
            r.cx.report(
                &OFFSET_OVERLAP,
                place,
                format!(
                    "{} at {}..{} overlaps the FlatBuffer, which reaches byte {}",
                    b.what,
                    range.start,
                    range.end(),
                    r.flatbuffer_end
                ),
            );
        } else if let Some((end, what)) = before.filter(|(end, _)| range.start < *end) {
            r.cx.report(
                &OFFSET_OVERLAP,
                place,
                format!(
                    "{} at {}..{} overlaps {what}, which ends at {end}",
                    b.what,
                    range.start,
                    range.end()
                ),
            );
        }
        if before.is_none_or(|(end, _)| range.end() > end) {
            before = Some((range.end(), b.what));
        }
    }
}
