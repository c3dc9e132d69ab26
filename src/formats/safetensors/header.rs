//! The header: an 8-byte length, then that many bytes of JSON naming each tensor's dtype,
//! shape and byte range, and an optional `__metadata__` map. Read in place by the shared pull
//! parser, every key paid from the budget.

use super::dtypes::dtype;
use super::rules::*;
use crate::check::{Item, Place};
use crate::escape::excerpt;
use crate::formats::shared::bytes::{le_u64, range};
use crate::formats::shared::context::Context;
use crate::formats::shared::json::{Error, Parser, Str, Token};
use crate::inventory::{
    ByteRange, DType, DataRange, FileId, MetadataEntry, Name, Section, SectionKind, Storage, Tensor,
};
use std::borrow::Cow;
use std::collections::hash_map::{Entry as Slot, HashMap};

/// The parser's `MAX_HEADER_SIZE`.
pub const MAX_HEADER: u64 = 100_000_000;
/// How deep the header may nest: serde_json's recursion limit, which the reference parser
/// keeps. Entries need 3 levels; deeper values are unknown fields, which it skips.
const MAX_DEPTH: usize = 128;

/// One tensor entry, as declared.
pub struct Entry {
    /// The tensor's name.
    pub name: Name,
    /// Where its key starts.
    pub at: u64,
    /// Its element type, if known.
    pub dtype: Option<DType>,
    /// Its shape, if every entry is a size.
    pub shape: Option<Vec<u64>>,
    /// `data_offsets`, relative to the data section, if valid.
    pub offsets: Option<(u64, u64)>,
    /// Where `data_offsets` is.
    pub offsets_at: u64,
}

/// What a file's header declares.
pub struct Header {
    /// Tensor entries in header order.
    pub entries: Vec<Entry>,
    /// Where the data section starts.
    pub data_start: u64,
    /// Whether the whole header could be read and every entry is valid, so that the layout
    /// can be checked.
    pub complete: bool,
}

/// Reads the header of safetensors file `file` (`bytes` its content), recording its
/// sections and, for the model file, its metadata.
pub fn read(cx: &mut Context<'_>, bytes: &[u8], file: FileId) -> Option<Header> {
    let len = le_u64(bytes, 0)?;
    let place = |at: u64, name| Place::field(name, at).in_file(file);
    if len > MAX_HEADER {
        let message = format!(
            "header length {len} is above the {MAX_HEADER}-byte limit of the safetensors parser"
        );
        cx.report(&HEADER_TOO_LARGE, place(0, "header length"), message);
        return None;
    }
    let size = bytes.len() as u64;
    let Some(header) = range(bytes, 8, len) else {
        let message = format!(
            "header length {len} runs to byte {}, past the end of the {size}-byte file",
            8 + len
        );
        cx.report(&HEADER_PAST_END, place(0, "header length"), message);
        return None;
    };
    let data_start = 8 + len;
    cx.inv.sections.extend([
        Section {
            file,
            kind: SectionKind::Header,
            range: ByteRange::between(0, 8),
        },
        Section {
            file,
            kind: SectionKind::ModelData,
            range: ByteRange::between(8, data_start),
        },
        Section {
            file,
            kind: SectionKind::TensorData,
            range: ByteRange::between(data_start, size),
        },
    ]);
    if let Err(e) = std::str::from_utf8(header) {
        let at = 8 + e.valid_up_to() as u64;
        let message = format!("the header is not UTF-8 from byte {at}");
        cx.report(&HEADER_NOT_UTF8, place(at, "header"), message);
        return None;
    }
    if header.first() != Some(&b'{') {
        let first = header
            .first()
            .map_or("nothing".to_owned(), |b| format!("{:?}", char::from(*b)));
        let message = format!("the header starts with {first}, not '{{' (the safetensors parser accepts leading whitespace)");
        cx.report(&HEADER_START, place(8, "header"), message);
    }
    let mut reader = Reader {
        cx,
        file,
        entries: Vec::new(),
        valid: true,
    };
    let complete = match reader.document(&mut Parser::new(header, MAX_DEPTH)) {
        Ok(()) => reader.valid,
        Err(e) => {
            let message = format!("the header is not a safetensors JSON header: {}", e.what);
            reader
                .cx
                .report(&HEADER_NOT_JSON, place(8 + e.at, "header"), message);
            false
        }
    };
    Some(Header {
        entries: reader.entries,
        data_start,
        complete,
    })
}

/// The header's reader: tokens in, entries and metadata out.
struct Reader<'c, 'x> {
    cx: &'c mut Context<'x>,
    file: FileId,
    entries: Vec<Entry>,
    /// Whether every entry so far is whole and valid.
    valid: bool,
}

impl Reader<'_, '_> {
    /// The absolute place of header offset `at`.
    fn place(&self, at: u64) -> Place {
        Place::at(8 + at).in_file(self.file)
    }

    /// The absolute place of `key`: its opening quote.
    fn key_place(&self, key: &Str<'_>) -> Place {
        self.place(key.at.saturating_sub(1))
    }

    /// The name `key` holds, copied once.
    fn name(&mut self, key: &Str<'_>) -> Name {
        let place = self.place(key.at);
        match key.unescape() {
            Cow::Borrowed(text) => self.cx.copied(text.as_bytes(), place),
            Cow::Owned(text) => self.cx.copied(text.as_bytes(), place),
        }
    }

    fn document(&mut self, p: &mut Parser<'_>) -> Result<(), Error> {
        match p.token()? {
            Some((_, Token::Object)) => {}
            Some((at, token)) => {
                return Err(Error {
                    at,
                    what: format!("it is {}, not an object", token.kind()),
                })
            }
            None => {
                return Err(Error {
                    at: 0,
                    what: "the header is empty".into(),
                })
            }
        }
        // Each key's first offset, and for a tensor its entry.
        let mut seen: HashMap<Cow<'_, str>, (u64, Option<usize>)> = HashMap::new();
        while let Some(key) = p.key_or_end()? {
            let value = key.unescape();
            let metadata = value == "__metadata__";
            let slot = match seen.entry(value.clone()) {
                Slot::Occupied(first) => {
                    let (at, entry) = *first.get();
                    let message = format!("key \"{}\" is already in the header at byte {}; the safetensors parser keeps this one and drops the first", excerpt(value.as_bytes(), 200), 8 + at);
                    self.cx
                        .report(&DUPLICATE_KEY, self.key_place(&key), message);
                    entry
                }
                Slot::Vacant(slot) => {
                    let entry = (!metadata).then_some(self.entries.len());
                    slot.insert((key.at.saturating_sub(1), entry));
                    None
                }
            };
            if !self.cx.spend(1, self.place(key.at)) {
                return Ok(());
            }
            if metadata {
                self.metadata(p)?;
            } else {
                self.entry(p, &key, slot)?;
            }
        }
        p.end()
    }

    /// `__metadata__`: an object of strings.
    fn metadata(&mut self, p: &mut Parser<'_>) -> Result<(), Error> {
        let invalid = |this: &mut Self, at: u64, what: String| {
            let message = format!("__metadata__ {what}; it must map strings to strings");
            this.cx.report(&METADATA_INVALID, this.place(at), message);
        };
        match p.token()? {
            Some((_, Token::Object)) => {}
            // The parser reads a null `__metadata__` as none.
            Some((_, Token::Null)) => return Ok(()),
            Some((at, token)) => {
                invalid(self, at, format!("is {}", token.kind()));
                return p.finish_value(&token);
            }
            None => return Ok(()),
        }
        let mut seen: HashMap<Cow<'_, str>, u64> = HashMap::new();
        while let Some(item) = p.key_or_end()? {
            let shown = item.unescape();
            if let Some(first) = seen.insert(shown.clone(), item.at) {
                let message = format!("__metadata__ key \"{}\" is already set at byte {}; the safetensors parser keeps this one", excerpt(shown.as_bytes(), 200), 8 + first.saturating_sub(1));
                self.cx
                    .report(&DUPLICATE_KEY, self.key_place(&item), message);
            }
            let Some((at, token)) = p.token()? else {
                return Ok(());
            };
            let Token::Str(text) = token else {
                invalid(
                    self,
                    at,
                    format!(
                        "value of \"{}\" is {}",
                        excerpt(shown.as_bytes(), 200),
                        token.kind()
                    ),
                );
                p.finish_value(&token)?;
                continue;
            };
            if self.file == 0 {
                let key = self.name(&item);
                let value = self.name(&text);
                let mut entry = MetadataEntry::new(key, value);
                entry.offset = Some(8 + item.at.saturating_sub(1));
                self.cx.inv.metadata.push(entry);
            }
        }
        Ok(())
    }

    /// A tensor entry: `{"dtype": ..., "shape": [...], "data_offsets": [begin, end]}`. A
    /// repeated key's entry takes the place of the earlier one (`replaces`), as the reference
    /// parser keeps the last. The entry is kept even where the JSON breaks inside it, so
    /// that every finding about it names a tensor the inventory holds.
    fn entry(
        &mut self,
        p: &mut Parser<'_>,
        key: &Str<'_>,
        replaces: Option<usize>,
    ) -> Result<(), Error> {
        let index = replaces.unwrap_or(self.entries.len());
        let item = Item::Tensor {
            tensor: self.cx.inv.tensors.len() + index,
        };
        let at = 8 + key.at.saturating_sub(1);
        let mut entry = Entry {
            name: self.name(key),
            at,
            dtype: None,
            shape: None,
            offsets: None,
            offsets_at: at,
        };
        let read = self.fields(p, key, &mut entry, item);
        self.valid &= read.is_ok()
            && entry.dtype.is_some()
            && entry.shape.is_some()
            && entry.offsets.is_some();
        match self.entries.get_mut(index) {
            Some(earlier) => *earlier = entry,
            None => self.entries.push(entry),
        }
        read
    }

    /// Reads the fields of the entry under `key` into `entry`.
    fn fields(
        &mut self,
        p: &mut Parser<'_>,
        key: &Str<'_>,
        entry: &mut Entry,
        item: Item,
    ) -> Result<(), Error> {
        let shown = excerpt(entry.name.as_bytes(), 200).into_owned();
        let place = |this: &Self, at: u64| this.place(at).item(item);
        match p.token()? {
            Some((_, Token::Object)) => {}
            Some((at, token)) => {
                let message = format!("tensor \"{shown}\" is {}, not an object", token.kind());
                self.cx.report(&ENTRY_INVALID, place(self, at), message);
                return p.finish_value(&token);
            }
            None => return Ok(()),
        }
        let (mut has_dtype, mut has_shape, mut has_offsets) = (false, false, false);
        while let Some(field) = p.key_or_end()? {
            let Some((at, token)) = p.token()? else {
                return Ok(());
            };
            match &*field.unescape() {
                "dtype" => {
                    has_dtype = true;
                    match token {
                        Token::Str(text) => {
                            entry.dtype = dtype(&text.unescape());
                            if entry.dtype.is_none() {
                                let message = format!("tensor \"{shown}\" has dtype \"{}\", which safetensors does not define", excerpt(text.raw().as_bytes(), 100));
                                self.cx.report(&UNKNOWN_DTYPE, place(self, at), message);
                            }
                        }
                        _ => {
                            let message = format!(
                                "the dtype of tensor \"{shown}\" is {}, not a string",
                                token.kind()
                            );
                            self.cx.report(&UNKNOWN_DTYPE, place(self, at), message);
                            p.finish_value(&token)?;
                        }
                    }
                }
                "shape" => {
                    has_shape = true;
                    entry.shape = self.shape(p, at, token, &shown, item)?;
                }
                "data_offsets" => {
                    has_offsets = true;
                    entry.offsets_at = 8 + at;
                    entry.offsets = self.offsets(p, at, token, &shown, item)?;
                }
                other => {
                    let message = format!("tensor \"{shown}\" has a field \"{}\" that safetensors does not define; readers ignore it", excerpt(other.as_bytes(), 100));
                    self.cx
                        .report(&UNKNOWN_FIELD, self.key_place(&field).item(item), message);
                    p.finish_value(&token)?;
                }
            }
        }
        let missing: Vec<&str> = [
            ("dtype", has_dtype),
            ("shape", has_shape),
            ("data_offsets", has_offsets),
        ]
        .into_iter()
        .filter(|(_, has)| !has)
        .map(|(field, _)| field)
        .collect();
        if !missing.is_empty() {
            let message = format!("tensor \"{shown}\" has no {}", missing.join(", "));
            self.cx
                .report(&ENTRY_INVALID, self.key_place(key).item(item), message);
        }
        Ok(())
    }

    /// A shape: a list of sizes; `None` (reported) if any is not one.
    fn shape(
        &mut self,
        p: &mut Parser<'_>,
        at: u64,
        token: Token<'_>,
        shown: &str,
        item: Item,
    ) -> Result<Option<Vec<u64>>, Error> {
        let invalid = |this: &mut Self, at: u64, what: String| {
            let message = format!(
                "the shape of tensor \"{shown}\" {what}; dimensions are non-negative integers"
            );
            this.cx
                .report(&SHAPE_INVALID, this.place(at).item(item), message);
        };
        if token != Token::Array {
            invalid(self, at, format!("is {}", token.kind()));
            p.finish_value(&token)?;
            return Ok(None);
        }
        let mut dims = Some(Vec::new());
        while let Some((at, token)) = p.item_or_end()? {
            if !self.cx.spend(1, self.place(at)) {
                p.finish_value(&token)?;
                p.finish()?;
                return Ok(None);
            }
            match token {
                Token::Number(n) if n.as_u64().is_some() => {
                    if let (Some(dims), Some(n)) = (dims.as_mut(), n.as_u64()) {
                        dims.push(n);
                    }
                }
                _ => {
                    let text = match token {
                        Token::Number(n) => n.text().to_owned(),
                        other => other.kind().to_owned(),
                    };
                    invalid(self, at, format!("holds {text}"));
                    p.finish_value(&token)?;
                    dims = None;
                }
            }
        }
        Ok(dims)
    }

    /// `data_offsets`: `[begin, end]` with end ≥ begin; `None` (reported) otherwise.
    fn offsets(
        &mut self,
        p: &mut Parser<'_>,
        at: u64,
        token: Token<'_>,
        shown: &str,
        item: Item,
    ) -> Result<Option<(u64, u64)>, Error> {
        let mut values = Vec::new();
        let mut valid = token == Token::Array;
        if valid {
            while let Some((_, token)) = p.item_or_end()? {
                match token {
                    Token::Number(n) if n.as_u64().is_some() && values.len() < 2 => {
                        values.extend(n.as_u64());
                    }
                    _ => {
                        valid = false;
                        p.finish_value(&token)?;
                    }
                }
            }
        } else {
            p.finish_value(&token)?;
        }
        let place = self.place(at).item(item);
        match values[..] {
            [begin, end] if valid && end >= begin => Ok(Some((begin, end))),
            [begin, end] if valid => {
                let message = format!("tensor \"{shown}\" has data_offsets [{begin}, {end}]: the end is before the begin");
                self.cx.report(&OFFSETS_INVALID, place, message);
                Ok(None)
            }
            _ => {
                let message = format!(
                    "the data_offsets of tensor \"{shown}\" are not two non-negative integers"
                );
                self.cx.report(&OFFSETS_INVALID, place, message);
                Ok(None)
            }
        }
    }
}

/// The tensors of `header`, checked as the safetensors parser checks them, placed in file
/// `file` whose content is `size` bytes.
pub fn tensors(cx: &mut Context<'_>, header: Header, file: FileId, size: u64) {
    let data_len = size.saturating_sub(header.data_start);
    let mut order: Vec<(u64, u64, usize)> = (header.entries.iter().enumerate())
        .filter_map(|(i, e)| e.offsets.map(|(b, end)| (b, end, i)))
        .collect();
    order.sort_unstable();
    let first = cx.inv.tensors.len();
    let mut end = 0;
    for &(begin, stop, i) in &order {
        let Some(entry) = header.entries.get(i) else {
            continue;
        };
        if begin != end && header.complete {
            let shown = excerpt(entry.name.as_bytes(), 200);
            let what = if begin > end {
                "leaving a gap after"
            } else {
                "overlapping"
            };
            let message = format!("tensor \"{shown}\" starts at data offset {begin}, {what} the tensors before it, which end at {end}; the safetensors parser refuses anything but back-to-back tensors from 0");
            let place = Place::at(entry.offsets_at)
                .in_file(file)
                .item(Item::Tensor { tensor: first + i });
            cx.report(&NOT_CONTIGUOUS, place, message);
        }
        end = end.max(stop);
    }
    if header.complete && !order.is_empty() && end != data_len {
        let message = format!("the tensors end at data offset {end}, but the data section holds {data_len} bytes; the safetensors parser refuses any difference");
        let place =
            Place::field("data section", header.data_start + end.min(data_len)).in_file(file);
        cx.report(&DATA_SIZE, place, message);
    }
    for (i, entry) in header.entries.into_iter().enumerate() {
        let item = Item::Tensor { tensor: first + i };
        let place = Place::at(entry.at).in_file(file).item(item);
        // A shape that is not one makes every size derived from it unknown.
        let shape = entry.shape.unwrap_or_else(|| vec![Tensor::NOT_A_SIZE]);
        let bytes = Tensor::sizes(&shape, entry.dtype).1;
        if let (Some(dtype), Some(_)) = (entry.dtype, bytes) {
            let bits = dtype.bits().unwrap_or(0);
            let elements = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
            // Sizes that overflow in bytes are the generic rule's (RX008); the reference
            // counts bits, which overflow first, and multiplies from the first dimension,
            // so a 0 after a product that overflowed does not empty the tensor for it.
            match elements.and_then(|n| n.checked_mul(bits)) {
                None => {
                    let message = format!(
                        "the shape of tensor \"{}\" times {bits} bits overflows 64 bits, multiplied from the first dimension as the safetensors parser does",
                        excerpt(entry.name.as_bytes(), 200)
                    );
                    cx.report(&SIZE_OVERFLOW, place, message);
                }
                Some(total) if total % 8 != 0 => {
                    let message = format!(
                        "tensor \"{}\" of {dtype} holds {total} bits, not whole bytes",
                        excerpt(entry.name.as_bytes(), 200)
                    );
                    cx.report(&PARTIAL_BYTE, place, message);
                }
                Some(_) => {}
            }
        }
        let tensor = Tensor::declared(entry.name, entry.dtype, shape, entry.at);
        let tensor = match entry.offsets {
            Some((begin, stop)) => {
                let data = DataRange {
                    file,
                    offset: header.data_start.saturating_add(begin),
                    len: stop - begin,
                };
                tensor.stored(Storage::External, data)
            }
            None => tensor,
        };
        cx.inv.tensors.push(tensor);
    }
}
