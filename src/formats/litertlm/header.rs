//! The fixed 32-byte header: magic, versions, and where the header (the metadata FlatBuffer
//! after it) ends.

use super::rules::{HEADER, VERSION};
use crate::check::{Item, Place};
use crate::formats::shared::bytes::{le_u32, le_u64, Short};
use crate::formats::shared::context::Context;
use crate::inventory::{ByteRange, Section, SectionKind};

/// Length of the fixed header; the metadata FlatBuffer starts here.
pub const FIXED: u64 = 32;
/// The only major version the runtime reads.
const MAJOR: u32 = 1;
/// Byte offset of the end-of-header field.
const END_FIELD: u64 = 24;

/// The fixed header, read.
pub struct Header {
    /// One past the metadata FlatBuffer's last byte.
    pub end: u64,
}

/// Reads and checks the header; `None` (reported) if the metadata cannot be located.
pub fn read(cx: &mut Context<'_>) -> Option<Header> {
    let bytes = cx.bytes;
    let size = bytes.len() as u64;
    let (Some(major), Some(minor), Some(patch), Some(end)) = (
        le_u32(bytes, 8),
        le_u32(bytes, 12),
        le_u32(bytes, 16),
        le_u64(bytes, END_FIELD),
    ) else {
        let short = Short::of(0, FIXED, size);
        cx.report(&HEADER, Place::at(0), short.message("the LiteRT-LM header"));
        return None;
    };
    let version = format!("{major}.{minor}.{patch}");
    cx.inv.property("version", &version, Some(8));
    cx.inv.format_version = version;
    cx.inv.preferred_alignment = Some(16 << 10);
    if major != MAJOR {
        cx.report(
            &VERSION,
            Place::field("major_version", 8),
            format!("major version {major}, but the LiteRT-LM runtime reads only version {MAJOR}"),
        );
    }
    let place = Place::at(END_FIELD).item(Item::Field {
        name: "header_end_offset",
    });
    if end < FIXED || end > size {
        let why = if end < FIXED {
            format!("before the metadata's start at byte {FIXED}")
        } else {
            format!("past the file's end ({size} bytes)")
        };
        cx.report(
            &HEADER,
            place,
            format!("the header ends at byte {end}, {why}; the runtime allocates {end} bytes less 32 for it before reading"),
        );
        return None;
    }
    cx.inv.property("header end", end, Some(END_FIELD));
    for (kind, range) in [
        (SectionKind::Header, ByteRange::between(0, FIXED)),
        (SectionKind::ModelData, ByteRange::between(FIXED, end)),
    ] {
        cx.inv.sections.push(Section {
            file: 0,
            kind,
            range,
        });
    }
    Some(Header { end })
}
