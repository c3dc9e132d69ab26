//! The header: an 8-byte length, then that many bytes of JSON naming each tensor's dtype,
//! shape and byte range, and an optional `__metadata__` map. Read in place by the shared pull
//! parser, every key paid from the budget.

use super::dtypes::dtype;
use super::rules::*;
use crate::check::{Item, Place, Rule};
use crate::escape::{excerpt, EXCERPT, EXCERPT_SHORT};
use crate::formats::shared::bytes::{le_u64, range, Short};
use crate::formats::shared::context::Context;
use crate::formats::shared::json::{Error, Parser, Str, Token};
use crate::inventory::{
    ByteRange, DType, DataRange, FileId, MetadataEntry, Name, Section, SectionKind, Storage,
    Tensor, TensorId,
};
use std::borrow::Cow;
use std::collections::hash_map::{Entry as Slot, HashMap};

/// The parser's `MAX_HEADER_SIZE`.
pub const MAX_HEADER: u64 = 100_000_000;
/// How deep the header may nest: serde_json's recursion limit, which the reference parser
/// keeps. Entries need 3 levels; deeper values are unknown fields, which it skips.
const MAX_DEPTH: usize = 128;
/// Budget entries a tensor takes besides its dimensions and its name: an inventory tensor and
/// its place in the layout take as much memory as 8 node inputs. A tensor entry is a dozen
/// bytes of JSON, so a header of millions of empty entries runs the budget out early.
const TENSOR_ENTRIES: u64 = 8;

/// Budget entries a `__metadata__` pair takes besides its key and value: its entry in the
/// inventory and in the map of keys seen.
const METADATA_ENTRIES: u64 = 8;

/// Where one entry puts its tensor's bytes.
pub struct Layout {
    /// `data_offsets`, relative to the data section, if valid.
    pub offsets: Option<(u64, u64)>,
    /// Where `data_offsets` is.
    pub offsets_at: u64,
}

/// One tensor entry's fields, as declared.
struct Fields {
    dtype: Option<DType>,
    /// The shape, if every entry is a size.
    shape: Option<Vec<u64>>,
    layout: Layout,
}

/// What a file's header declares: its tensors, added to the inventory from `first` in header
/// order, and where each puts its bytes.
pub struct Header {
    /// The inventory's first tensor of the file.
    pub first: TensorId,
    /// Each tensor's layout, in header order.
    pub layout: Vec<Layout>,
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
        let message = Short::of(8, len, size).message("the header");
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
    let first = cx.inv.tensors.len();
    let mut reader = Reader {
        cx,
        file,
        first,
        data_start,
        layout: Vec::new(),
        valid: true,
    };
    let keys = keys(header);
    let complete = match reader.document(&mut Parser::new(header, MAX_DEPTH), keys) {
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
        first,
        layout: reader.layout,
        data_start,
        complete,
    })
}

/// How many keys the top level of `header` holds, as far as it is JSON.
fn keys(header: &[u8]) -> usize {
    let mut p = Parser::new(header, MAX_DEPTH);
    let mut keys = 0;
    let mut count = || -> Result<(), Error> {
        if let Some((_, Token::Object)) = p.token()? {
            while p.key_or_end()?.is_some() {
                keys += 1;
                if let Some((_, token)) = p.token()? {
                    p.finish_value(&token)?;
                }
            }
        }
        Ok(())
    };
    // A header that is not JSON is reported by the reading that follows.
    let _ = count();
    keys
}

/// The header's reader: tokens in, tensors, layout and metadata out.
struct Reader<'c, 'x> {
    cx: &'c mut Context<'x>,
    file: FileId,
    /// The inventory's first tensor of the file.
    first: TensorId,
    data_start: u64,
    layout: Vec<Layout>,
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

    /// Reads the header, whose top level has `keys` keys.
    fn document(&mut self, p: &mut Parser<'_>, keys: usize) -> Result<(), Error> {
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
        // Room for as many tensors as the budget pays for is made at once, so that growing
        // the lists never holds two copies of them.
        let affordable = self.cx.budget.left() / (TENSOR_ENTRIES + 1);
        let room = keys.min(usize::try_from(affordable).unwrap_or(usize::MAX));
        self.cx.inv.tensors.reserve_exact(room);
        self.layout.reserve_exact(room);
        // Each key's first offset, and for a tensor its entry.
        let mut seen: HashMap<Cow<'_, str>, (u64, Option<usize>)> = HashMap::with_capacity(room);
        while let Some(key) = p.key_or_end()? {
            let value = key.unescape();
            let metadata = value == "__metadata__";
            let slot = match seen.entry(value.clone()) {
                Slot::Occupied(first) => {
                    let (at, entry) = *first.get();
                    let message = format!("key \"{}\" is already in the header at byte {}; the safetensors parser keeps this one and drops the first", excerpt(value.as_bytes(), EXCERPT), 8 + at);
                    self.cx
                        .report(&DUPLICATE_KEY, self.key_place(&key), message);
                    entry
                }
                Slot::Vacant(slot) => {
                    let entry = (!metadata).then_some(self.layout.len());
                    slot.insert((key.at.saturating_sub(1), entry));
                    None
                }
            };
            let cost = if metadata { 1 } else { TENSOR_ENTRIES };
            if !self.cx.spend(cost, self.place(key.at)) {
                // What is left unread leaves the layout unknown.
                self.valid = false;
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
            if !self.cx.spend(METADATA_ENTRIES, self.place(item.at)) {
                self.valid = false;
                return p.finish();
            }
            let shown = item.unescape();
            if let Some(first) = seen.insert(shown.clone(), item.at) {
                let message = format!("__metadata__ key \"{}\" is already set at byte {}; the safetensors parser keeps this one", excerpt(shown.as_bytes(), EXCERPT), 8 + first.saturating_sub(1));
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
                        excerpt(shown.as_bytes(), EXCERPT),
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

    /// A tensor entry: `{"dtype": ..., "shape": [...], "data_offsets": [begin, end]}`, added
    /// to the inventory. A repeated key's tensor takes the place of the earlier one
    /// (`replaces`), as the reference parser keeps the last. The tensor is kept even where the
    /// JSON breaks inside it, so that every finding about it names a tensor the inventory
    /// holds.
    fn entry(
        &mut self,
        p: &mut Parser<'_>,
        key: &Str<'_>,
        replaces: Option<usize>,
    ) -> Result<(), Error> {
        let index = replaces.unwrap_or(self.layout.len());
        let item = Item::Tensor {
            tensor: self.first + index,
        };
        let at = 8 + key.at.saturating_sub(1);
        let name = self.name(key);
        let mut fields = Fields {
            dtype: None,
            shape: None,
            layout: Layout {
                offsets: None,
                offsets_at: at,
            },
        };
        let shown = excerpt(name.as_bytes(), EXCERPT).into_owned();
        let read = self.fields(p, key, &shown, &mut fields, item);
        let Fields {
            dtype,
            shape,
            layout,
        } = fields;
        self.valid &=
            read.is_ok() && dtype.is_some() && shape.is_some() && layout.offsets.is_some();
        // A shape that is not one makes every size derived from it unknown.
        let shape = shape.unwrap_or_else(|| vec![Tensor::NOT_A_SIZE]);
        let mut tensor = Tensor::declared(name, dtype, shape, at);
        if let Some((begin, end)) = layout.offsets {
            let data = DataRange {
                file: self.file,
                offset: self.data_start.saturating_add(begin),
                len: end - begin,
            };
            tensor = tensor.stored(Storage::External, data);
        }
        let tensors = &mut self.cx.inv.tensors;
        match (
            tensors.get_mut(self.first + index),
            self.layout.get_mut(index),
        ) {
            (Some(earlier), Some(earlier_layout)) => {
                *earlier = tensor;
                *earlier_layout = layout;
            }
            _ => {
                tensors.push(tensor);
                self.layout.push(layout);
            }
        }
        read
    }

    /// Reads the fields of the entry under `key` (of the tensor `shown`) into `fields`.
    fn fields(
        &mut self,
        p: &mut Parser<'_>,
        key: &Str<'_>,
        shown: &str,
        fields: &mut Fields,
        item: Item,
    ) -> Result<(), Error> {
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
                            fields.dtype = dtype(&text.unescape());
                            if fields.dtype.is_none() {
                                let message = format!("tensor \"{shown}\" has dtype \"{}\", which safetensors does not define", excerpt(text.raw().as_bytes(), EXCERPT_SHORT));
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
                    fields.shape = self.shape(p, at, token, shown, item)?;
                }
                "data_offsets" => {
                    has_offsets = true;
                    fields.layout.offsets_at = 8 + at;
                    fields.layout.offsets = self.offsets(p, at, token, shown, item)?;
                }
                other => {
                    let message = format!("tensor \"{shown}\" has a field \"{}\" that safetensors does not define; readers ignore it", excerpt(other.as_bytes(), EXCERPT_SHORT));
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

/// Checks the tensors of `header` as the safetensors parser checks them: their layout in
/// file `file`, whose content is `size` bytes, and their sizes.
pub fn tensors(cx: &mut Context<'_>, header: &Header, file: FileId, size: u64) {
    let data_len = size.saturating_sub(header.data_start);
    let first = header.first;
    let mut order: Vec<(u64, u64, usize)> = (header.layout.iter().enumerate())
        .filter_map(|(i, l)| l.offsets.map(|(b, end)| (b, end, i)))
        .collect();
    order.sort_unstable();
    let mut end = 0;
    for (begin, stop, i) in order {
        if begin != end && header.complete {
            let shown = match cx.inv.tensors.get(first + i) {
                Some(t) => excerpt(t.name.as_bytes(), EXCERPT).into_owned(),
                None => continue,
            };
            let what = if begin > end {
                "leaving a gap after"
            } else {
                "overlapping"
            };
            let message = format!("tensor \"{shown}\" starts at data offset {begin}, {what} the tensors before it, which end at {end}; the safetensors parser refuses anything but back-to-back tensors from 0");
            let at = header.layout.get(i).map(|l| l.offsets_at);
            let place = Place::at(at)
                .in_file(file)
                .item(Item::Tensor { tensor: first + i });
            cx.report(&NOT_CONTIGUOUS, place, message);
        }
        end = end.max(stop);
    }
    if header.complete && !header.layout.is_empty() && end != data_len {
        let message = format!("the tensors end at data offset {end}, but the data section holds {data_len} bytes; the safetensors parser refuses any difference");
        let place =
            Place::field("data section", header.data_start + end.min(data_len)).in_file(file);
        cx.report(&DATA_SIZE, place, message);
    }
    for tensor in first..first + header.layout.len() {
        let problem = cx.inv.tensors.get(tensor).and_then(bits);
        if let Some((rule, at, message)) = problem {
            let place = Place::at(at).in_file(file).item(Item::Tensor { tensor });
            cx.report(rule, place, message);
        }
    }
}

/// What the safetensors parser says about the bits of `t`: a count that overflows 64 bits,
/// or one that is not whole bytes; with the tensor's declaration.
fn bits(t: &Tensor) -> Option<(&'static Rule, Option<u64>, String)> {
    // Sizes that overflow in bytes are the generic rule's (RX008); the reference counts
    // bits, which overflow first, and multiplies from the first dimension, so a 0 after a
    // product that overflowed does not empty the tensor for it.
    let dtype = t.dtype.filter(|_| t.byte_size.is_some())?;
    let bits = dtype.bits().unwrap_or(0);
    let elements = t.shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    let shown = || excerpt(t.name.as_bytes(), EXCERPT);
    match elements.and_then(|n| n.checked_mul(bits)) {
        None => Some((
            &SIZE_OVERFLOW,
            t.decl_offset,
            format!("the shape of tensor \"{}\" times {bits} bits overflows 64 bits, multiplied from the first dimension as the safetensors parser does", shown()),
        )),
        Some(total) if total % 8 != 0 => Some((
            &PARTIAL_BYTE,
            t.decl_offset,
            format!("tensor \"{}\" of {dtype} holds {total} bits, not whole bytes", shown()),
        )),
        Some(_) => None,
    }
}
