//! The metadata FlatBuffer, `LiteRTLMMetaData`, read by hand with every offset checked (the
//! runtime reads it unverified): the system metadata's key-value pairs and the section table.

use super::header::{Header, FIXED};
use super::rules::METADATA;
use crate::check::{Item, Place};
use crate::formats::shared::bytes::{le_u32, range};
use crate::formats::shared::context::Context;
use crate::formats::shared::flatbuffer::RawTable;
use crate::inventory::{MetadataEntry, Name};

/// Vtable slots of `LiteRTLMMetaData`, `SystemMetadata`/`SectionMetadata` and their items.
mod slot {
    pub const SYSTEM: u16 = 4;
    pub const SECTIONS: u16 = 6;
    pub const LIST: u16 = 4;
    pub const ITEMS: u16 = 4;
    pub const BEGIN: u16 = 6;
    pub const END: u16 = 8;
    pub const DATA_TYPE: u16 = 10;
    pub const KEY: u16 = 4;
    pub const VALUE_TYPE: u16 = 6;
    pub const VALUE: u16 = 8;
    pub const SCALAR: u16 = 4;
}

/// One entry of the section table.
pub struct Entry {
    /// `begin_offset`.
    pub begin: u64,
    /// `end_offset`.
    pub end: u64,
    /// `data_type`, an `AnySectionDataType`.
    pub data_type: u8,
    /// Offset of the entry's table in the file.
    pub at: u64,
}

/// The section table, in the file's order.
pub struct Table {
    /// Its entries.
    pub entries: Vec<Entry>,
}

/// Reads the metadata between the fixed header and `header.end`; `None` (reported) without
/// a readable section table.
pub fn read(cx: &mut Context<'_>, header: &Header) -> Option<Table> {
    let fb = range(cx.bytes, FIXED, header.end - FIXED).unwrap_or_default();
    let root = RawTable::root(fb);
    let at = |loc: usize| FIXED.saturating_add(loc as u64);
    if let Some(system) = root.table(slot::SYSTEM) {
        for (i, pair) in tables(cx, system, slot::LIST, at(system.loc()))
            .into_iter()
            .enumerate()
        {
            let (key, value) = key_value(cx, pair);
            let key = key.unwrap_or_else(|| Name::from(format!("system[{i}]")));
            let entry = MetadataEntry::new(key, value);
            cx.inv.metadata.push(MetadataEntry {
                offset: Some(at(pair.loc())),
                ..entry
            });
        }
    }
    let place = Place::at(FIXED).item(Item::Field {
        name: "section_metadata",
    });
    let Some(list) = (root.table(slot::SECTIONS)).filter(|s| s.vector(slot::LIST, 4).is_some())
    else {
        let message = "the metadata has no section table the runtime can read (LiteRTLMMetaData.section_metadata.objects)";
        cx.report(&METADATA, place, message);
        return None;
    };
    let mut entries = Vec::new();
    for (i, object) in tables(cx, list, slot::LIST, at(list.loc()))
        .into_iter()
        .enumerate()
    {
        for pair in tables(cx, object, slot::ITEMS, at(object.loc())) {
            let (key, value) = key_value(cx, pair);
            let mut text = format!("sections[{i}].").into_bytes();
            text.extend_from_slice(key.as_ref().map_or(&[][..], Name::as_bytes));
            let key = cx.copied(&text, Place::at(at(pair.loc())));
            let entry = MetadataEntry::new(key, value);
            cx.inv.metadata.push(MetadataEntry {
                offset: Some(at(pair.loc())),
                ..entry
            });
        }
        entries.push(Entry {
            begin: object.scalar(slot::BEGIN).unwrap_or(0),
            end: object.scalar(slot::END).unwrap_or(0),
            data_type: object.scalar(slot::DATA_TYPE).unwrap_or(0),
            at: at(object.loc()),
        });
    }
    cx.inv
        .property("sections", entries.len(), Some(at(list.loc())));
    Some(Table { entries })
}

/// The tables of the vector at `slot` of `table`, paid from the budget; an offset that
/// leaves the buffer is reported and ends the list.
fn tables<'a>(cx: &mut Context<'_>, table: RawTable<'a>, slot: u16, at: u64) -> Vec<RawTable<'a>> {
    let Some((start, len)) = table.vector(slot, 4) else {
        return Vec::new();
    };
    if !cx.spend(len as u64, Place::at(at)) {
        return Vec::new();
    }
    let buf = table.buf();
    let mut found = Vec::with_capacity(len);
    for i in 0..len {
        let pos = start + 4 * i;
        let loc = le_u32(buf, pos as u64).and_then(|o| pos.checked_add(o as usize));
        match loc.filter(|&l| l.checked_add(4).is_some_and(|e| e <= buf.len())) {
            Some(loc) => found.push(RawTable::new(buf, loc)),
            None => {
                let offset = FIXED.saturating_add(pos as u64);
                cx.report(&METADATA, Place::at(offset), format!("element {i} of the vector at byte {offset} points outside the metadata ({} bytes)", buf.len()));
                break;
            }
        }
    }
    found
}

/// A `KeyValuePair`: its key (if readable) and its value, as text.
fn key_value(cx: &mut Context<'_>, pair: RawTable<'_>) -> (Option<Name>, Name) {
    let key = pair.bytes(slot::KEY).map(|k| cx.name(k));
    let kind = pair.scalar::<u8>(slot::VALUE_TYPE).unwrap_or(0);
    let value = pair.table(slot::VALUE);
    let text = match (kind, value) {
        (9, Some(v)) => {
            return (
                key,
                v.bytes(slot::SCALAR)
                    .map(|s| cx.name(s))
                    .unwrap_or_default(),
            )
        }
        (_, None) => String::new(),
        (kind, Some(v)) => scalar_text(kind, v),
    };
    (key, Name::from(text))
}

/// A scalar `VData` value as text (0 where absent, as FlatBuffers defaults are).
fn scalar_text(kind: u8, v: RawTable<'_>) -> String {
    let pos = v.field_pos(slot::SCALAR).map(|p| p as u64);
    let bytes = |n: usize| -> [u8; 8] {
        let mut out = [0; 8];
        let found = pos.and_then(|p| range(v.buf(), p, n as u64));
        for (o, b) in out.iter_mut().zip(found.unwrap_or_default()) {
            *o = *b;
        }
        out
    };
    let width = match kind {
        1 | 2 | 8 => 1,
        3 | 4 => 2,
        5..=7 => 4,
        _ => 8,
    };
    let b = bytes(width);
    let [b0, b1, b2, b3, ..] = b;
    match kind {
        1 => b0.to_string(),
        2 => i8::from_le_bytes([b0]).to_string(),
        3 => u16::from_le_bytes([b0, b1]).to_string(),
        4 => i16::from_le_bytes([b0, b1]).to_string(),
        5 => u32::from_le_bytes([b0, b1, b2, b3]).to_string(),
        6 => i32::from_le_bytes([b0, b1, b2, b3]).to_string(),
        7 => f32::from_le_bytes([b0, b1, b2, b3]).to_string(),
        8 => (b0 != 0).to_string(),
        10 => u64::from_le_bytes(b).to_string(),
        11 => i64::from_le_bytes(b).to_string(),
        12 => f64::from_le_bytes(b).to_string(),
        other => format!("<value of type {other}>"),
    }
}
