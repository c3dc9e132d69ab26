//! Decoding attribute tables from the schema-derived field lists in `tables_generated.rs`.

use super::table_types::{AttrTable, Field, FieldKind};
use crate::formats::shared::flatbuffer::RawTable;
use crate::inventory::{Attr, AttrValue, EnumValue, Symbol};

/// An attribute table's decoded fields and what the decoder noticed.
#[derive(Default)]
pub struct Decoded {
    /// Fields with their stored or default values; absent optional fields are left out.
    /// Subgraph fields are left to the caller.
    pub attrs: Vec<Attr>,
    /// Enum fields whose stored value has no name: (field, value).
    pub unknown_enums: Vec<(&'static str, u8)>,
    /// Present fields that were added after the first rten release.
    pub newer_fields: Vec<&'static Field>,
}

/// Decodes `raw` as an instance of `table`.
pub fn decode(table: &'static AttrTable, raw: RawTable<'_>) -> Decoded {
    let mut out = Decoded::default();
    for field in table.fields {
        if field.since.is_some() && raw.has(field.slot) {
            out.newer_fields.push(field);
        }
        if let Some(value) = value(field, raw, &mut out.unknown_enums) {
            out.attrs.push(Attr {
                name: Symbol::Static(field.name),
                value,
            });
        }
    }
    out
}

fn enum_value(
    field: &'static Field,
    names: &'static [&'static str],
    value: u8,
    unknown: &mut Vec<(&'static str, u8)>,
) -> AttrValue {
    let name = names.get(usize::from(value)).copied();
    if name.is_none() {
        unknown.push((field.name, value));
    }
    AttrValue::Enum(EnumValue {
        value: i64::from(value),
        name,
    })
}

fn value(
    field: &'static Field,
    raw: RawTable<'_>,
    unknown: &mut Vec<(&'static str, u8)>,
) -> Option<AttrValue> {
    let slot = field.slot;
    Some(match field.kind {
        FieldKind::Bool(d) => AttrValue::Bool(raw.scalar::<u8>(slot).map_or(d, |b| b != 0)),
        FieldKind::I32(d) => AttrValue::Int(i64::from(raw.scalar::<i32>(slot).unwrap_or(d))),
        FieldKind::U32(d) => AttrValue::Int(i64::from(raw.scalar::<u32>(slot).unwrap_or(d))),
        FieldKind::F32(d) => AttrValue::Float(raw.scalar::<f32>(slot).unwrap_or(d)),
        FieldKind::OptI32 => AttrValue::Int(i64::from(raw.scalar::<i32>(slot)?)),
        FieldKind::OptU32 => AttrValue::Int(i64::from(raw.scalar::<u32>(slot)?)),
        FieldKind::OptF32 => AttrValue::Float(raw.scalar::<f32>(slot)?),
        FieldKind::Enum { names, default } => enum_value(
            field,
            names,
            raw.scalar::<u8>(slot).unwrap_or(default),
            unknown,
        ),
        FieldKind::OptEnum { names } => enum_value(field, names, raw.scalar::<u8>(slot)?, unknown),
        FieldKind::VecU32 => AttrValue::Ints(
            raw.scalars::<u32>(slot)?
                .into_iter()
                .map(i64::from)
                .collect(),
        ),
        FieldKind::VecI32 => AttrValue::Ints(
            raw.scalars::<i32>(slot)?
                .into_iter()
                .map(i64::from)
                .collect(),
        ),
        FieldKind::Str => AttrValue::Str(raw.bytes(slot)?.into()),
        FieldKind::Graph => return None,
        FieldKind::Scalar => {
            let tag = raw.scalar::<u8>(slot.checked_sub(2)?)?;
            let inner = raw.table(slot)?;
            match tag {
                1 => AttrValue::Int(i64::from(inner.scalar::<i32>(4).unwrap_or(0))),
                2 => AttrValue::Float(inner.scalar::<f32>(4).unwrap_or(0.0)),
                _ => return None,
            }
        }
    })
}
