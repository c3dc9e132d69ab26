//! Data segments: byte ranges after the FlatBuffer that hold constants, blobs and named
//! data, listed by offset from the header's `segment_base_offset`.

use super::header::Layout;
use super::rules::{
    MISALIGNED, SEGMENTS_OVERLAP, SEGMENTS_UNSORTED, SEGMENTS_WITHOUT_HEADER, SEGMENT_OUT_OF_RANGE,
};
use crate::check::Place;
use crate::formats::shared::context::Context;
use crate::inventory::{ByteRange, FileId, Inventory, Section, SectionKind};

/// The alignment ExecuTorch writers give segments (`segment_alignment`).
pub const SEGMENT_ALIGNMENT: u64 = 128;

/// One segment as declared.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    /// Offset from the segment base.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// The absolute range, if the segment lies inside the segment data.
    pub range: Option<ByteRange>,
    /// Absolute offset of the segment's table.
    pub at: u64,
}

/// Reads and checks a segment list of (offset, size, table position). Returns the segments
/// read, as many as the budget allows.
pub fn read(
    cx: &mut Context<'_>,
    list: impl Iterator<Item = (u64, u64, u64)>,
    layout: &Layout,
) -> Vec<Segment> {
    let mut segments = Vec::new();
    for (index, (offset, size, at)) in list.enumerate() {
        if !cx.spend(1, Place::field("segments", at)) {
            break;
        }
        let place = Place::field("segments", at);
        let end = offset.checked_add(size);
        let range = match (layout.segment_base, end) {
            (Some(base), Some(end)) if end <= layout.segment_data_size => Some(ByteRange {
                start: base + offset,
                len: size,
            }),
            (None, _) if size == 0 || layout.has_header => None,
            (None, _) => {
                let message = format!(
                    "segment {index} holds {size} bytes, but the file has no extended header to say where segments start"
                );
                cx.report(&SEGMENTS_WITHOUT_HEADER, place, message);
                None
            }
            (Some(_), _) => {
                let message = format!(
                    "segment {index} at offset {offset} + size {size} ends past the segment data's {} bytes",
                    layout.segment_data_size
                );
                cx.report(&SEGMENT_OUT_OF_RANGE, place, message);
                None
            }
        };
        if range.is_some() && size > 0 && offset % SEGMENT_ALIGNMENT != 0 {
            let message = format!(
                "segment {index} starts at offset {offset}, not a multiple of {SEGMENT_ALIGNMENT}"
            );
            cx.report(&MISALIGNED, place, message);
        }
        segments.push(Segment {
            offset,
            size,
            range,
            at,
        });
    }
    order(cx, &segments);
    segments
}

/// Reports segments out of offset order, and non-empty segments that share bytes.
fn order(cx: &mut Context<'_>, segments: &[Segment]) {
    let mut nonempty: Vec<(usize, &Segment)> = segments
        .iter()
        .enumerate()
        .filter(|(_, s)| s.size > 0)
        .collect();
    let unsorted = nonempty.windows(2).find_map(|w| match *w {
        [first, second] if second.1.offset < first.1.offset => Some((first, second)),
        _ => None,
    });
    if let Some(((a, sa), (b, sb))) = unsorted {
        let message = format!(
            "segment {b} at offset {} comes after segment {a} at offset {}; segments are sorted by offset",
            sb.offset, sa.offset
        );
        cx.report(&SEGMENTS_UNSORTED, Place::field("segments", sb.at), message);
    }
    nonempty.sort_by_key(|(_, s)| s.offset);
    let mut widest: Option<(usize, u64)> = None;
    for (index, s) in nonempty {
        if let Some((earlier, end)) = widest.filter(|&(_, end)| s.offset < end) {
            let message = format!(
                "segment {index} at {}..{} overlaps segment {earlier}, which ends at {end}",
                s.offset,
                s.offset.saturating_add(s.size)
            );
            cx.report(&SEGMENTS_OVERLAP, Place::field("segments", s.at), message);
        }
        let end = s.offset.saturating_add(s.size);
        if widest.is_none_or(|(_, e)| end > e) {
            widest = Some((index, end));
        }
    }
}

/// Declares each usable non-empty segment as a section of `file`, of the kind `kind_of`
/// gives its index, and the alignment padding between the FlatBuffer and the segments.
pub fn declare(
    segments: &[Segment],
    layout: &Layout,
    file: FileId,
    kind_of: impl Fn(usize) -> SectionKind,
    inv: &mut Inventory,
) {
    let mut ranges: Vec<ByteRange> = Vec::new();
    for (index, segment) in segments.iter().enumerate() {
        let Some(range) = segment.range.filter(|r| r.len > 0) else {
            continue;
        };
        inv.sections.push(Section {
            file,
            kind: kind_of(index),
            range,
        });
        ranges.push(range);
    }
    if layout.segment_base.is_none() {
        return;
    }
    ranges.sort_by_key(|r| r.start);
    // Padding up to the next segment, as writers leave it: less than the segment alignment,
    // or than the alignment the next segment was placed at (writers may use up to 64 KiB).
    // Longer runs are gaps.
    let mut cursor = layout.flatbuffer_end;
    for range in ranges {
        let placed_at = 1u64 << range.start.trailing_zeros().min(16);
        if range.start > cursor && range.start - cursor < placed_at.max(SEGMENT_ALIGNMENT) {
            let range = ByteRange::between(cursor, range.start);
            inv.sections.push(Section {
                file,
                kind: SectionKind::Padding,
                range,
            });
        }
        cursor = cursor.max(range.end());
    }
}
