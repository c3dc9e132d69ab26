//! Key-value pairs: read with every length checked, arrays left in the file, and the keys
//! the rest of the reader needs picked out.

use super::rules::{
    bool_value, not_utf8, unknown_type, ARRAY_TOO_LONG, BOOL_VALUE, DUPLICATE_KEY, EMPTY_KEY,
    KEY_NAMING, NESTED_ARRAY, STRING_NOT_UTF8, TRUNCATED, UNKNOWN_VALUE_TYPE,
};
use super::strings;
use super::wire::Wire;
use crate::check::Place;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::bytes::{Short, Stop};
use crate::formats::shared::context::Context;
use crate::formats::shared::numbers::{signed16, signed32, signed64, signed8};
use crate::inventory::{DataRange, FileId, ItemKind, ListValue, MetadataEntry, Name};
use std::collections::hash_map::{Entry, HashMap};

/// Items of a list shown in its summary.
const PREVIEW: usize = 8;
/// The longest key the naming convention allows.
const MAX_KEY: usize = 65_535;
/// llama.cpp's `GGUF_MAX_ARRAY_ELEMENTS`: it refuses a longer array unread.
const MAX_ARRAY: u64 = 1 << 30;

/// A scalar value, as read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// An unsigned integer (u8 to u64).
    Unsigned(u64),
    /// A signed integer (i8 to i64).
    Signed(i64),
    /// A float (f32 or f64).
    Float(f64),
    /// A bool's byte.
    Bool(u8),
}

impl Scalar {
    /// The value as a count, if it is a non-negative integer.
    pub fn count(self) -> Option<u64> {
        match self {
            Scalar::Unsigned(n) => Some(n),
            Scalar::Signed(n) => u64::try_from(n).ok(),
            _ => None,
        }
    }
}

/// A value, as read: scalars and strings in full, arrays as their place in the file.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    /// A number or bool, with its type's name.
    Scalar(&'static str, Scalar),
    /// A string's bytes.
    Str(&'a [u8]),
    /// An array left in the file.
    List(ListValue),
}

/// One key-value pair.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'a> {
    /// The key's bytes.
    pub key: &'a [u8],
    /// Where the pair starts.
    pub at: u64,
    /// Where its value type is.
    pub type_at: u64,
    /// Where its value starts (for a string, its length; for an array, its item type).
    pub value_at: u64,
    /// The value.
    pub value: Value<'a>,
}

/// The pairs of one file, and where they end.
pub struct Pairs<'a> {
    /// Every pair read, in file order.
    pub pairs: Vec<Pair<'a>>,
    /// Where the tensor infos start; `None` if the metadata could not be read to its end.
    pub end: Option<u64>,
}

impl<'a> Pairs<'a> {
    /// The first pair with `key`.
    pub fn get(&self, key: &[u8]) -> Option<&Pair<'a>> {
        self.pairs.iter().find(|p| p.key == key)
    }
}

/// A read of a pair's field (`value type`, `array count`) that ran out of file.
type Cut = (&'static str, Short);

/// A short read of `field`.
fn cut(field: &'static str) -> impl FnOnce(Short) -> Stop<Cut> {
    move |short| Stop::Problem((field, short))
}

/// Reads `count` pairs from `start` of `bytes` (file `file`), recording each in the
/// inventory's metadata and reporting what breaks the format; a key may start with any of
/// the `architectures` llama.cpp knows.
pub fn read<'a>(
    cx: &mut Context<'_>,
    bytes: &'a [u8],
    file: FileId,
    start: u64,
    count: u64,
    big_endian: bool,
    architectures: &HashMap<&'static str, bool>,
) -> Pairs<'a> {
    let mut wire = Wire::new(bytes, start, big_endian);
    let mut pairs = Vec::new();
    let mut seen: HashMap<&'a [u8], u64> = HashMap::new();
    for index in 0..count {
        let at = wire.pos();
        let place = Place::at(at).in_file(file);
        if !cx.spend(1, place) {
            return Pairs { pairs, end: None };
        }
        let pair = match pair(cx, &mut wire, file, index) {
            Ok(pair) => pair,
            Err(Stop::Problem((field, short))) => {
                let what = format!("the {field} of key-value pair {index}");
                let place = Place::field("kv", short.at).in_file(file);
                cx.report(&TRUNCATED, place, short.message(what));
                return Pairs { pairs, end: None };
            }
            Err(Stop::Short(_) | Stop::Reported) => return Pairs { pairs, end: None },
        };
        check_key(cx, &pair, place, &mut seen, architectures);
        if file == 0 {
            record(cx, bytes, &pair);
        }
        pairs.push(pair);
    }
    Pairs {
        pairs,
        end: Some(wire.pos()),
    }
}

/// Reads pair `index` at the wire's position.
fn pair<'a>(
    cx: &mut Context<'_>,
    wire: &mut Wire<'a>,
    file: FileId,
    index: u64,
) -> Result<Pair<'a>, Stop<Cut>> {
    let at = wire.pos();
    let key = strings::read(cx, wire, file, || {
        format!("the key of key-value pair {index}")
    })
    .map_err(|stop| stop.naming(|short| ("key", short)))?;
    let type_at = wire.pos();
    let ty = wire.u32().map_err(cut("value type"))?;
    let value_at = wire.pos();
    let place = Place::at(type_at).in_file(file);
    let shown = || excerpt(key, EXCERPT);
    let value = match ty {
        8 => {
            let what = || format!("the value of key \"{}\"", shown());
            let text = strings::read(cx, wire, file, what)
                .map_err(|stop| stop.naming(|short| ("string value", short)))?;
            strings::check_utf8(cx, text, value_at, file, what);
            Value::Str(text)
        }
        9 => Value::List(array(cx, wire, key, file)?),
        _ => match scalar(wire, ty).map_err(cut("value"))? {
            Some((name, value)) => {
                if let Scalar::Bool(b @ 2..) = value {
                    let what = format!("bool value of key \"{}\"", excerpt(key, EXCERPT));
                    let message = format!(
                        "{} (llama.cpp and gguf-py read it as true)",
                        bool_value(what, b)
                    );
                    cx.report(&BOOL_VALUE, place.offset(value_at), message);
                }
                Value::Scalar(name, value)
            }
            None => {
                let what = format!("key \"{}\" has value", excerpt(key, EXCERPT));
                let message = unknown_type(what, ty);
                cx.report(&UNKNOWN_VALUE_TYPE, place, message);
                return Err(Stop::Reported);
            }
        },
    };
    Ok(Pair {
        key,
        at,
        type_at,
        value_at,
        value,
    })
}

/// Reads a scalar of value type `ty`: its type's name and value; `None` for a type that is
/// not a scalar.
fn scalar(wire: &mut Wire<'_>, ty: u32) -> Result<Option<(&'static str, Scalar)>, Short> {
    use Scalar::*;
    Ok(Some(match ty {
        0 => ("u8", Unsigned(wire.u8()?.into())),
        1 => ("i8", Signed(signed8(wire.u8()?).into())),
        2 => ("u16", Unsigned(wire.u16()?.into())),
        3 => ("i16", Signed(signed16(wire.u16()?).into())),
        4 => ("u32", Unsigned(wire.u32()?.into())),
        5 => ("i32", Signed(signed32(wire.u32()?).into())),
        6 => ("f32", Float(f32::from_bits(wire.u32()?).into())),
        7 => ("bool", Bool(wire.u8()?)),
        10 => ("u64", Unsigned(wire.u64()?)),
        11 => ("i64", Signed(signed64(wire.u64()?))),
        12 => ("f64", Float(f64::from_bits(wire.u64()?))),
        _ => return Ok(None),
    }))
}

/// The item kind of value type `ty`, if arrays may hold it.
fn item_kind(ty: u32) -> Option<ItemKind> {
    use ItemKind::*;
    Some(match ty {
        0 => U8,
        1 => I8,
        2 => U16,
        3 => I16,
        4 => U32,
        5 => I32,
        6 => F32,
        7 => Bool,
        8 => String,
        10 => U64,
        11 => I64,
        12 => F64,
        _ => return None,
    })
}

/// Reads an array's item type and count, and steps over its items without keeping them.
fn array(
    cx: &mut Context<'_>,
    wire: &mut Wire<'_>,
    key: &[u8],
    file: FileId,
) -> Result<ListValue, Stop<Cut>> {
    let type_at = wire.pos();
    let ty = wire.u32().map_err(cut("array item type"))?;
    let count_at = wire.pos();
    let count = wire.u64().map_err(cut("array count"))?;
    let place = Place::at(type_at).in_file(file);
    let key = excerpt(key, EXCERPT);
    let item = match (ty, item_kind(ty)) {
        (9, _) => {
            let message = format!("array \"{key}\" holds arrays; llama.cpp refuses nested arrays, and rtenx reads no further");
            cx.report(&NESTED_ARRAY, place, message);
            return Err(Stop::Reported);
        }
        (_, Some(item)) => item,
        (_, None) => {
            let message = unknown_type(format_args!("array \"{key}\" has item"), ty);
            cx.report(&UNKNOWN_VALUE_TYPE, place, message);
            return Err(Stop::Reported);
        }
    };
    let start = wire.pos();
    if count > MAX_ARRAY {
        let message = format!("array \"{key}\" claims {count} items (offset {count_at}); llama.cpp reads arrays of at most {MAX_ARRAY} items (GGUF_MAX_ARRAY_ELEMENTS)");
        cx.report(&ARRAY_TOO_LONG, place.offset(count_at), message);
        return Err(Stop::Reported);
    }
    // Each item takes at least its size, or a string's 8-byte length.
    let min = item.size().unwrap_or(8);
    if count.checked_mul(min).is_none_or(|n| n > wire.left()) {
        let message = format!(
            "array \"{key}\" claims {count} {} items of at least {min} bytes at offset {start}; the file has {} bytes left",
            item.name(),
            wire.left()
        );
        cx.report(
            &super::rules::COUNT_TOO_LARGE,
            place.offset(count_at),
            message,
        );
        return Err(Stop::Reported);
    }
    match item.size() {
        Some(size) => {
            let items = wire.take(count * size).map_err(cut("array items"))?;
            if item == ItemKind::Bool {
                if let Some((pos, b)) = (0u64..).zip(items).find(|(_, &b)| b > 1) {
                    let message =
                        bool_value(format_args!("item {pos} of bool array \"{key}\""), *b);
                    cx.report(&BOOL_VALUE, Place::at(start + pos).in_file(file), message);
                }
            }
        }
        None => {
            // The first string that is not UTF-8, and how many are not.
            let mut not_text: Option<(u64, u64)> = None;
            let mut bad = 0u64;
            for index in 0..count {
                let at = wire.pos();
                let what = || format!("string {index} of array \"{key}\"");
                match strings::read(cx, wire, file, what) {
                    Ok(text) => {
                        if let Some(byte) = strings::not_utf8_at(text, at) {
                            not_text = not_text.or(Some((index, byte)));
                            bad += 1;
                        }
                    }
                    Err(Stop::Short(short)) => {
                        let place = Place::at(short.at).in_file(file);
                        cx.report(&TRUNCATED, place, short.message(what()));
                        return Err(Stop::Reported);
                    }
                    Err(Stop::Problem(never)) => match never {},
                    Err(Stop::Reported) => return Err(Stop::Reported),
                }
            }
            if let Some((index, byte)) = not_text {
                let more = match bad - 1 {
                    0 => String::new(),
                    more => format!(" (and {more} more of its {count})"),
                };
                let what = format!("string {index} of array \"{key}\"{more}");
                let place = Place::at(byte).in_file(file);
                cx.report(&STRING_NOT_UTF8, place, not_utf8(what, byte));
            }
        }
    }
    let data = DataRange {
        file,
        offset: start,
        len: wire.pos() - start,
    };
    Ok(ListValue {
        count,
        item,
        big_endian: wire.big_endian(),
        data,
    })
}

/// Reports an empty, repeated or unconventional key.
fn check_key<'a>(
    cx: &mut Context<'_>,
    pair: &Pair<'a>,
    place: Place,
    seen: &mut HashMap<&'a [u8], u64>,
    architectures: &HashMap<&'static str, bool>,
) {
    let key = pair.key;
    let shown = excerpt(key, EXCERPT);
    if key.is_empty() {
        cx.report(&EMPTY_KEY, place, "a key-value pair has an empty key");
        return;
    }
    let not_text = strings::not_utf8_at(key, pair.at);
    if let Some(byte) = not_text {
        let message = not_utf8(format!("key \"{shown}\""), byte);
        cx.report(&STRING_NOT_UTF8, place.offset(byte), message);
    }
    match seen.entry(key) {
        Entry::Occupied(first) => {
            let message = format!(
                "key \"{shown}\" is already set at offset {}; llama.cpp refuses duplicate keys",
                first.get()
            );
            cx.report(&DUPLICATE_KEY, place, message);
        }
        Entry::Vacant(slot) => {
            slot.insert(pair.at);
        }
    }
    // A key that is not text is reported as such above, not for its naming. The first
    // segment may be an architecture llama.cpp names otherwise (`command-r.block_count`).
    let segments = key.split(|&b| b == b'.');
    let conventional = not_text.is_some()
        || (key.len() <= MAX_KEY
            && segments.enumerate().all(|(i, segment)| {
                let known = i == 0
                    && std::str::from_utf8(segment).is_ok_and(|s| architectures.contains_key(s));
                known
                    || !segment.is_empty()
                        && segment
                            .iter()
                            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            }));
    if !conventional {
        let message =
            format!("key \"{shown}\" is not lower_snake_case ASCII segments separated by '.'");
        cx.report(&KEY_NAMING, place, message);
    }
}

/// Adds the pair to the inventory's metadata.
fn record(cx: &mut Context<'_>, bytes: &[u8], pair: &Pair<'_>) {
    let key = cx.name(pair.key);
    let (value, list) = match pair.value {
        Value::Scalar(_, Scalar::Unsigned(n)) => (Name::from(n.to_string()), None),
        Value::Scalar(_, Scalar::Signed(n)) => (Name::from(n.to_string()), None),
        // An f32 as f32 prints it, shortest: 1e-6 as `0.000001`, not as its f64 widening
        // (which the cast back undoes exactly).
        #[allow(clippy::cast_possible_truncation)]
        Value::Scalar("f32", Scalar::Float(f)) => (Name::from((f as f32).to_string()), None),
        Value::Scalar(_, Scalar::Float(f)) => (Name::from(f.to_string()), None),
        Value::Scalar(_, Scalar::Bool(b)) => (Name::from((b != 0).to_string()), None),
        Value::Str(text) => (cx.name(text), None),
        Value::List(list) => {
            let preview = list.items(bytes, 0, PREVIEW);
            let mut text = format!("[{} × {}]", list.count, list.item.name());
            for (i, item) in preview.iter().enumerate() {
                text.push_str(if i == 0 { " " } else { ", " });
                match list.item {
                    ItemKind::String => text.push_str(&format!("{item:?}")),
                    _ => text.push_str(item),
                }
            }
            if list.count > preview.len() as u64 {
                text.push_str(", …");
            }
            (Name::from(text), Some(list))
        }
    };
    cx.inv.metadata.push(MetadataEntry {
        key,
        value,
        offset: Some(pair.at),
        list,
    });
}
