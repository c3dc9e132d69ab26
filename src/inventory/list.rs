//! List values left in the file: a count, an item kind and a byte range, read on demand.
//!
//! A GGUF vocabulary holds 150,000 strings; copying them all to show a key would cost more
//! than the rest of the model's metadata. A [`ListValue`] costs the same whatever its length,
//! and [`ListValue::items`] reads just the page someone looks at.

use super::DataRange;
use serde::Serialize;

/// How one item of a list is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)] // The variant names are the documentation.
pub enum ItemKind {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    /// One byte, 0 or 1.
    Bool,
    /// A `u64` byte count, then that many bytes of text.
    String,
}

impl ItemKind {
    /// Bytes one item takes; `None` for strings, whose length comes first.
    pub fn size(self) -> Option<u64> {
        use ItemKind::*;
        match self {
            U8 | I8 | Bool => Some(1),
            U16 | I16 => Some(2),
            U32 | I32 | F32 => Some(4),
            U64 | I64 | F64 => Some(8),
            String => None,
        }
    }

    /// Lower-case name, such as `u32`.
    pub fn name(self) -> &'static str {
        use ItemKind::*;
        match self {
            U8 => "u8",
            I8 => "i8",
            U16 => "u16",
            I16 => "i16",
            U32 => "u32",
            I32 => "i32",
            U64 => "u64",
            I64 => "i64",
            F32 => "f32",
            F64 => "f64",
            Bool => "bool",
            String => "string",
        }
    }
}

/// A list stored in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ListValue {
    /// How many items it holds.
    pub count: u64,
    /// How each is stored.
    pub item: ItemKind,
    /// Whether numbers (and string lengths) are big-endian.
    pub big_endian: bool,
    /// Where the items lie.
    pub data: DataRange,
}

impl ListValue {
    /// Items `first..first + n` as text, read from `bytes` (the content of the file that
    /// holds the list); fewer where the list or the bytes end. Text is as stored: escape it
    /// to print it. Strings are found by walking the lengths before them.
    pub fn items(&self, bytes: &[u8], first: u64, n: usize) -> Vec<String> {
        let last = first.saturating_add(n as u64).min(self.count);
        match self.item.size() {
            Some(_) => (first..last)
                .map_while(|index| self.raw(bytes, index))
                .map(|raw| self.text(raw))
                .collect(),
            None => (self
                .strings(bytes)
                .take(usize::try_from(last).unwrap_or(usize::MAX)))
            .skip(usize::try_from(first).unwrap_or(usize::MAX))
            .map(|body| String::from_utf8_lossy(body).into_owned())
            .collect(),
        }
    }

    /// Item `index` of a list of numbers, as raw bits in the list's byte order; `None` past
    /// its end, where the bytes end, or for strings.
    pub fn raw(&self, bytes: &[u8], index: u64) -> Option<u64> {
        let size = self.item.size()?;
        let end = self.data.end().unwrap_or(u64::MAX);
        let at = index.checked_mul(size)?.checked_add(self.data.offset)?;
        if index >= self.count || at.saturating_add(size) > end {
            return None;
        }
        self.number(bytes, at, size)
    }

    /// The strings of a list of strings, in order, borrowed from `bytes`; the walk stops at
    /// the count or at the first string that does not fit.
    pub fn strings<'b>(&self, bytes: &'b [u8]) -> impl Iterator<Item = &'b [u8]> + use<'b, '_> {
        let end = self.data.end().unwrap_or(u64::MAX);
        let mut at = self.data.offset;
        let count = if self.item == ItemKind::String {
            self.count
        } else {
            0
        };
        (0..count).map_while(move |_| {
            let len = self.number(bytes, at, 8)?;
            let start = at.saturating_add(8);
            let next = start.checked_add(len).filter(|&next| next <= end)?;
            at = next;
            range(bytes, start, len)
        })
    }

    /// The unsigned number of `size` bytes at `at`, in the list's byte order.
    fn number(&self, bytes: &[u8], at: u64, size: u64) -> Option<u64> {
        let part = range(bytes, at, size)?;
        let mut raw = [0u8; 8];
        let low = raw.get_mut(..part.len())?;
        low.copy_from_slice(part);
        if self.big_endian {
            low.reverse();
        }
        Some(u64::from_le_bytes(raw))
    }

    /// A number item's raw bits as text.
    fn text(&self, raw: u64) -> String {
        use ItemKind::*;
        match self.item {
            U8 | U16 | U32 | U64 => raw.to_string(),
            I8 => (raw as u8 as i8).to_string(),
            I16 => (raw as u16 as i16).to_string(),
            I32 => (raw as u32 as i32).to_string(),
            I64 => (raw as i64).to_string(),
            F32 => f32::from_bits(raw as u32).to_string(),
            F64 => f64::from_bits(raw).to_string(),
            Bool => (raw != 0).to_string(),
            String => std::string::String::new(),
        }
    }
}

/// `len` bytes at `at` in `bytes`, if they are there.
fn range(bytes: &[u8], at: u64, len: u64) -> Option<&[u8]> {
    let at = usize::try_from(at).ok()?;
    bytes.get(at..at.checked_add(usize::try_from(len).ok()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<u8> {
        let mut bytes = vec![0xAA; 3];
        for item in items {
            bytes.extend((item.len() as u64).to_le_bytes());
            bytes.extend(item.as_bytes());
        }
        bytes
    }

    #[test]
    fn pages_of_strings_and_numbers() {
        let bytes = strings(&["a", "bc", "", "def"]);
        let list = ListValue {
            count: 4,
            item: ItemKind::String,
            big_endian: false,
            data: DataRange {
                file: 0,
                offset: 3,
                len: bytes.len() as u64 - 3,
            },
        };
        assert_eq!(list.items(&bytes, 0, 2), ["a", "bc"]);
        assert_eq!(list.items(&bytes, 2, 10), ["", "def"]);
        assert!(list.items(&bytes, 9, 10).is_empty());
        let numbers: Vec<u8> = [-2i16, 7].iter().flat_map(|v| v.to_be_bytes()).collect();
        let list = ListValue {
            count: 2,
            item: ItemKind::I16,
            big_endian: true,
            data: DataRange {
                file: 0,
                offset: 0,
                len: 4,
            },
        };
        assert_eq!(list.items(&numbers, 0, 5), ["-2", "7"]);
        assert_eq!(list.items(&numbers, 1, 5), ["7"]);
    }

    #[test]
    fn a_list_that_claims_more_than_its_bytes_stops_at_them() {
        let mut bytes = strings(&["ok"]);
        bytes.extend(u64::MAX.to_le_bytes());
        let list = ListValue {
            count: 1 << 62,
            item: ItemKind::String,
            big_endian: false,
            data: DataRange {
                file: 0,
                offset: 3,
                len: u64::MAX,
            },
        };
        assert_eq!(list.items(&bytes, 0, 5), ["ok"]);
    }
}
