//! The extended headers: `eh00` in a `.pte`, `FH01` in a `.ptd`. Both sit at byte 8, inside
//! the FlatBuffer's padding, and say where the FlatBuffer ends and the segments begin.

use super::rules::{
    header_too_short, HEADER_INVALID, HEADER_MAGIC_CORRUPT, PROGRAM_RANGE_INVALID,
    PROGRAM_TOO_LARGE, SEGMENT_BASE_INVALID,
};
use crate::check::Place;
use crate::formats::shared::bytes::{le_u32, le_u64, Short};
use crate::formats::shared::context::Context;
use crate::inventory::{ByteRange, Inventory, Section, SectionKind};

/// Magic of a `.pte` extended header.
pub const PROGRAM_MAGIC: &[u8; 4] = b"eh00";
/// Magic of a `.ptd` header.
pub const DATA_MAGIC: &[u8; 4] = b"FH01";
/// Where a header starts: after the FlatBuffer's root offset and file identifier.
const AT: u64 = 8;
/// The shortest `eh00` header the runtime accepts (ExecuTorch before 1.0 wrote 24 bytes).
const MIN_PROGRAM_HEADER: u32 = 24;
/// The `FH01` header's length.
const MIN_DATA_HEADER: u32 = 40;
/// FlatBuffers address with 32-bit offsets.
const FLATBUFFER_LIMIT: u64 = 1 << 31;

/// Where the parts of a file are, as far as its header could be trusted.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The FlatBuffer: `[0, flatbuffer_end)` of the file.
    pub flatbuffer_end: u64,
    /// Absolute offset of the segment data, if the file has a usable header.
    pub segment_base: Option<u64>,
    /// Bytes of segment data after `segment_base`.
    pub segment_data_size: u64,
    /// Whether the file has a header that says where segments are (even an unusable one).
    pub has_header: bool,
}

impl Layout {
    /// Whether every byte the header declares could be placed, so that unclaimed bytes are
    /// really unused.
    pub fn complete(&self) -> bool {
        self.segment_base.is_some() || self.segment_data_size == 0
    }
}

/// The `u32` header field `key` at `at`, recorded as a property.
fn u32_field(cx: &mut Context<'_>, key: &str, at: u64) -> Option<u32> {
    let value = le_u32(cx.bytes, at)?;
    cx.inv.property(key, value, Some(at));
    Some(value)
}

/// The `u64` header field `key` at `at`, recorded as a property.
fn u64_field(cx: &mut Context<'_>, key: &str, at: u64) -> Option<u64> {
    let value = le_u64(cx.bytes, at)?;
    cx.inv.property(key, value, Some(at));
    Some(value)
}

fn section(inv: &mut Inventory, kind: SectionKind, start: u64, end: u64) {
    if end > start {
        inv.sections.push(Section {
            file: 0,
            kind,
            range: ByteRange::between(start, end),
        });
    }
}

/// Reads the `eh00` header of a `.pte`, if it has one, and declares the header and program
/// sections. `None` if the program cannot be located.
pub fn program(cx: &mut Context<'_>) -> Option<Layout> {
    let bytes = cx.bytes;
    let size = bytes.len() as u64;
    let magic = bytes.get(8..12);
    if magic != Some(PROGRAM_MAGIC.as_slice()) {
        let corrupt = looks_corrupt(cx, MIN_PROGRAM_HEADER, PROGRAM_MAGIC);
        cx.inv.property("extended_header", "none", None);
        check_program_size(cx, size);
        section(&mut cx.inv, SectionKind::ModelData, 0, size);
        return Some(Layout {
            flatbuffer_end: size,
            segment_base: None,
            segment_data_size: 0,
            has_header: corrupt,
        });
    }
    let length = u32_field(cx, "header_length", 12);
    let Some(length) = length.filter(|&n| n >= MIN_PROGRAM_HEADER) else {
        let message = match length {
            Some(n) => header_too_short("eh00", n, MIN_PROGRAM_HEADER),
            None => Short::of(AT, MIN_PROGRAM_HEADER.into(), size).message("the eh00 header"),
        };
        cx.report(&HEADER_INVALID, Place::field("header_length", 12), message);
        return None;
    };
    let header_end = AT + u64::from(length);
    let (Some(program_size), Some(base)) = (
        u64_field(cx, "program_size", 16),
        u64_field(cx, "segment_base_offset", 24),
    ) else {
        let message = Short::of(AT, length.into(), size).message("the eh00 header");
        cx.report(&HEADER_INVALID, Place::field("header_length", 12), message);
        return None;
    };
    // Headers before ExecuTorch 1.0 have no segment_data_size: the segments run to the end.
    let data_size = if length >= 32 {
        u64_field(cx, "segment_data_size", 32).unwrap_or(0)
    } else {
        size.saturating_sub(base)
    };
    if program_size > size || program_size < header_end {
        let message = format!(
            "program_size {program_size} must lie between the header's end at {header_end} and the file's end at {size}"
        );
        cx.report(
            &PROGRAM_RANGE_INVALID,
            Place::field("program_size", 16),
            message,
        );
        return None;
    }
    let segments = Segments {
        base,
        data_size,
        fields_at: (24, 32),
    };
    Some(with_header(cx, header_end, program_size, segments, size))
}

/// Reads the `FH01` header of a `.ptd` and declares the header and FlatBuffer sections.
pub fn data(cx: &mut Context<'_>) -> Option<Layout> {
    let bytes = cx.bytes;
    let size = bytes.len() as u64;
    if bytes.get(8..12) != Some(DATA_MAGIC.as_slice()) {
        if !looks_corrupt(cx, MIN_DATA_HEADER, DATA_MAGIC) {
            let message =
                "bytes 8..12 do not hold the FH01 magic every .ptd file starts its header with";
            cx.report(&HEADER_MAGIC_CORRUPT, Place::field("magic", 8), message);
        }
        return None;
    }
    let length = u32_field(cx, "header_length", 12);
    let fields = (
        u64_field(cx, "flatbuffer_offset", 16),
        u64_field(cx, "flatbuffer_size", 24),
        u64_field(cx, "segment_base_offset", 32),
        u64_field(cx, "segment_data_size", 40),
    );
    let (Some(length), Some(fb_offset), Some(fb_size), Some(base), Some(data_size)) =
        (length, fields.0, fields.1, fields.2, fields.3)
    else {
        let message = Short::of(AT, MIN_DATA_HEADER.into(), size).message("the FH01 header");
        cx.report(&HEADER_INVALID, Place::field("header_length", 12), message);
        return None;
    };
    if length < MIN_DATA_HEADER {
        let message = header_too_short("FH01", length, MIN_DATA_HEADER);
        cx.report(&HEADER_INVALID, Place::field("header_length", 12), message);
        return None;
    }
    let header_end = AT + u64::from(length);
    let fb_end = fb_offset.checked_add(fb_size).filter(|&end| end <= size);
    let Some(fb_end) = fb_end.filter(|_| fb_offset >= header_end) else {
        let message = format!(
            "flatbuffer_offset {fb_offset} + flatbuffer_size {fb_size} must start after the header at {header_end} and end within the file at {size}"
        );
        cx.report(
            &PROGRAM_RANGE_INVALID,
            Place::field("flatbuffer_size", 24),
            message,
        );
        return None;
    };
    let segments = Segments {
        base,
        data_size,
        fields_at: (32, 40),
    };
    Some(with_header(cx, header_end, fb_end, segments, size))
}

/// The segment fields of a header: base, data size and where the two are stored.
struct Segments {
    base: u64,
    data_size: u64,
    fields_at: (u64, u64),
}

/// The layout of a file whose header ends at `header_end` and whose FlatBuffer ends at
/// `flatbuffer_end` (both checked to lie in the file of `size` bytes), with its sections.
fn with_header(
    cx: &mut Context<'_>,
    header_end: u64,
    flatbuffer_end: u64,
    segments: Segments,
    size: u64,
) -> Layout {
    check_program_size(cx, flatbuffer_end);
    section(&mut cx.inv, SectionKind::Header, 0, header_end);
    section(
        &mut cx.inv,
        SectionKind::ModelData,
        header_end,
        flatbuffer_end,
    );
    Layout {
        flatbuffer_end,
        segment_base: segment_base(cx, &segments, flatbuffer_end, size),
        segment_data_size: segments.data_size,
        has_header: true,
    }
}

/// Checks the segment data range; `None` if it cannot be used.
fn segment_base(
    cx: &mut Context<'_>,
    segments: &Segments,
    flatbuffer_end: u64,
    size: u64,
) -> Option<u64> {
    let Segments {
        base,
        data_size,
        fields_at: (base_at, size_at),
    } = *segments;
    if base == 0 && data_size == 0 {
        return None;
    }
    let problem = if base < flatbuffer_end {
        Some(format!(
            "segment_base_offset {base} lies inside the FlatBuffer, which ends at {flatbuffer_end}"
        ))
    } else {
        match base.checked_add(data_size) {
            Some(end) if end <= size => None,
            Some(end) => Some(format!(
                "segment_base_offset {base} + segment_data_size {data_size} = {end} passes the end of the file at {size}"
            )),
            None => Some(format!(
                "segment_base_offset {base} + segment_data_size {data_size} overflows"
            )),
        }
    };
    match problem {
        Some(message) => {
            let at = if base < flatbuffer_end {
                base_at
            } else {
                size_at
            };
            cx.report(
                &SEGMENT_BASE_INVALID,
                Place::field("segment_base_offset", at),
                message,
            );
            None
        }
        None => Some(base),
    }
}

fn check_program_size(cx: &mut Context<'_>, len: u64) {
    if len >= FLATBUFFER_LIMIT {
        let message = format!(
            "the FlatBuffer is {len} bytes; 32-bit offsets reach at most {FLATBUFFER_LIMIT} (2 GiB)"
        );
        cx.report(&PROGRAM_TOO_LARGE, Place::at(0), message);
    }
}

/// Reports a header whose magic is damaged but whose fields are intact: at least two bytes of
/// the magic in place, a length the format uses and a FlatBuffer end inside the file.
/// Returns whether it did.
fn looks_corrupt(cx: &mut Context<'_>, min_length: u32, magic: &[u8; 4]) -> bool {
    let bytes = cx.bytes;
    let size = bytes.len() as u64;
    let Some(found) = bytes.get(8..12) else {
        return false;
    };
    let length = le_u32(bytes, 12).unwrap_or(0);
    let end = le_u64(bytes, 16).unwrap_or(0);
    let plausible_length = (min_length..=min_length + 8).contains(&length);
    let near = found.iter().zip(magic).filter(|(a, b)| a == b).count() >= 2;
    if !(plausible_length && near && end > u64::from(length) && end <= size) {
        return false;
    }
    let name = String::from_utf8_lossy(magic);
    let message = format!(
        "bytes 8..12 are {}, not the magic {name}, but the header fields after them are intact (length {length}); the runtime takes the file for one without a header and reads its data from the wrong place",
        crate::escape::sanitize(&format!("{found:02x?}"))
    );
    cx.report(&HEADER_MAGIC_CORRUPT, Place::field("magic", 8), message);
    true
}
