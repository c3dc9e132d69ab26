//! The protobuf wire format, read in place without allocating.
//!
//! prost decodes whole messages into owned structs, allocating for every list entry: a
//! hostile file of millions of two-byte entries then costs gigabytes, and even real models
//! spend most of their read time allocating. The ONNX reader needs only slices, counts and a
//! bounded number of values, so its views (`onnx/views/`) scan fields here instead. They accept
//! and refuse exactly the encodings prost does: each view's tests compare the two on
//! thousands of random and mutated messages.

use thiserror::Error;

/// Protobuf's message size limit: its readers refuse a message of this many bytes or more, so
/// a `.onnx` or a `.pdmodel` must stay below it.
pub const PROTOBUF_LIMIT: u64 = 1 << 31;

/// prost's recursion limit, which also bounds how deeply groups may nest.
const RECURSION_LIMIT: usize = 100;

const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LENGTH_DELIMITED: u8 = 2;
const START_GROUP: u8 = 3;
const END_GROUP: u8 = 4;
const FIXED32: u8 = 5;

/// One field's value, as stored on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value<'b> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'b [u8]),
    Fixed32(u32),
    /// A (deprecated) group; its content has been skipped.
    Group,
}

impl Value<'_> {
    /// The wire type's name, for messages.
    pub(crate) fn wire_type(&self) -> &'static str {
        match self {
            Value::Varint(_) => "varint",
            Value::Fixed64(_) => "64-bit",
            Value::Bytes(_) => "length-delimited",
            Value::Fixed32(_) => "32-bit",
            Value::Group => "group",
        }
    }
}

/// Why a message cannot be read, and the byte (from the message's start) where it fails.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what} at byte {at} of the message")]
pub(crate) struct WireError {
    pub(crate) what: String,
    pub(crate) at: usize,
}

impl WireError {
    /// Field `number`, whose key starts at `at`, has a value of the wrong wire type.
    pub(crate) fn unexpected(number: u32, value: Value<'_>, at: usize) -> Self {
        Self::in_field(
            number,
            at,
            format!("unexpected {} value", value.wire_type()),
        )
    }

    /// `what` is wrong in field `number`, whose key starts at `at`.
    pub(crate) fn in_field(number: u32, at: usize, what: impl std::fmt::Display) -> Self {
        WireError {
            what: format!("field {number}: {what}"),
            at,
        }
    }
}

/// One field of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Field<'b> {
    /// Where the field's key starts, from the message's start.
    pub(crate) at: usize,
    pub(crate) number: u32,
    pub(crate) value: Value<'b>,
}

/// The fields of one message, in order. After an error the iterator ends.
pub(crate) struct Fields<'b> {
    buf: &'b [u8],
    pos: usize,
    failed: bool,
}

/// Iterates over the fields of the message encoded in `buf`.
pub(crate) fn fields(buf: &[u8]) -> Fields<'_> {
    Fields {
        buf,
        pos: 0,
        failed: false,
    }
}

impl<'b> Iterator for Fields<'b> {
    type Item = Result<Field<'b>, WireError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        let field = self.field();
        self.failed = field.is_err();
        Some(field)
    }
}

impl<'b> Fields<'b> {
    /// The next field if it is written the way nearly every field of a graph is, length-
    /// delimited with a one-byte key and a one- or two-byte length: its number and bytes, and
    /// the iterator moves past it. `None`, with nothing consumed, for any other field, which
    /// [`Iterator::next`] then reads with every check. Views call this first: it builds no
    /// [`Field`], and what it accepts `next` would return as the same number and bytes.
    #[inline(always)]
    pub(crate) fn next_bytes(&mut self) -> Option<(u32, &'b [u8])> {
        if self.failed {
            return None;
        }
        let (&key, rest) = self.buf.get(self.pos..)?.split_first()?;
        // A one-byte key of wire type 2 and a field number other than 0.
        if key >= 0x80 || key & 7 != LENGTH_DELIMITED || key >> 3 == 0 {
            return None;
        }
        let (len, size) = match *rest {
            [len, ..] if len < 0x80 => (usize::from(len), 1),
            [low, high, ..] if high < 0x80 => (usize::from(low & 0x7f) | usize::from(high) << 7, 2),
            _ => return None,
        };
        let start = self.pos + 1 + size;
        let bytes = self.buf.get(start..start.checked_add(len)?)?;
        self.pos = start + len;
        Some((u32::from(key >> 3), bytes))
    }

    /// The next field, as [`Iterator::next`] gives it, read by [`Fields::next_bytes`] where
    /// it can be: for views whose fields are nearly all length-delimited.
    #[inline(always)]
    pub(crate) fn next_field(&mut self) -> Option<Result<Field<'b>, WireError>> {
        let at = self.pos;
        match self.next_bytes() {
            Some((number, bytes)) => Some(Ok(Field {
                at,
                number,
                value: Value::Bytes(bytes),
            })),
            None => self.next(),
        }
    }

    #[cold]
    #[inline(never)]
    fn error(&self, at: usize, what: impl Into<String>) -> WireError {
        WireError {
            what: what.into(),
            at,
        }
    }

    #[inline(always)]
    fn field(&mut self) -> Result<Field<'b>, WireError> {
        let at = self.pos;
        let (number, wire_type) = self.key()?;
        let value = match wire_type {
            START_GROUP => {
                self.skip_group(number)?;
                Value::Group
            }
            END_GROUP => return Err(self.error(self.pos, "unexpected end-group tag")),
            _ => self.value(wire_type)?,
        };
        Ok(Field { at, number, value })
    }

    /// A field key: its tag and wire type.
    #[inline(always)]
    fn key(&mut self) -> Result<(u32, u8), WireError> {
        let at = self.pos;
        let key = self.varint()?;
        let key = u32::try_from(key).map_err(|_| self.error(at, format!("field key {key}")))?;
        let wire_type = (key & 7) as u8;
        if wire_type > FIXED32 {
            return Err(self.error(at, format!("wire type {wire_type}")));
        }
        if key >> 3 == 0 {
            return Err(self.error(at, "field number 0"));
        }
        Ok((key >> 3, wire_type))
    }

    /// A value of any wire type but the group markers.
    #[inline(always)]
    fn value(&mut self, wire_type: u8) -> Result<Value<'b>, WireError> {
        Ok(match wire_type {
            VARINT => Value::Varint(self.varint()?),
            FIXED64 => Value::Fixed64(u64::from_le_bytes(self.fixed()?)),
            FIXED32 => Value::Fixed32(u32::from_le_bytes(self.fixed()?)),
            LENGTH_DELIMITED => {
                let at = self.pos;
                let len = self.varint()?;
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|len| self.pos.checked_add(len));
                let bytes = end.and_then(|end| self.buf.get(self.pos..end));
                let bytes = bytes.ok_or_else(|| {
                    let left = self.buf.len().saturating_sub(self.pos);
                    self.error(at, format!("length {len} with {left} bytes left"))
                })?;
                self.pos += bytes.len();
                Value::Bytes(bytes)
            }
            other => return Err(self.error(self.pos, format!("wire type {other} here"))),
        })
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let bytes = self
            .buf
            .get(self.pos..)
            .and_then(|rest| rest.first_chunk::<N>())
            .ok_or_else(|| self.error(self.pos, format!("{N}-byte value cut off")))?;
        self.pos += N;
        Ok(*bytes)
    }

    /// A base-128 varint of at most 10 bytes whose value fits 64 bits. Most keys and
    /// lengths are one or two bytes, which take the short paths.
    #[inline(always)]
    fn varint(&mut self) -> Result<u64, WireError> {
        match self.buf.get(self.pos..).and_then(<[u8]>::first_chunk::<2>) {
            Some(&[byte, _]) if byte < 0x80 => {
                self.pos += 1;
                Ok(u64::from(byte))
            }
            Some(&[low, high]) if high < 0x80 => {
                self.pos += 2;
                Ok(u64::from(low & 0x7f) | u64::from(high) << 7)
            }
            _ => self.long_varint(),
        }
    }

    /// [`Self::varint`] of more than one byte, or cut off.
    #[inline(never)]
    fn long_varint(&mut self) -> Result<u64, WireError> {
        let at = self.pos;
        let rest = self.buf.get(at..).unwrap_or_default();
        let mut value = 0u64;
        for (i, &byte) in rest.iter().take(10).enumerate() {
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                if i == 9 && byte > 1 {
                    break;
                }
                self.pos = at + i + 1;
                return Ok(value);
            }
        }
        Err(self.error(at, "invalid varint"))
    }

    /// Skips the group opened by `tag`, and any groups nested in it, up to prost's limit.
    fn skip_group(&mut self, tag: u32) -> Result<(), WireError> {
        let mut open = vec![tag];
        while let Some(&innermost) = open.last() {
            let at = self.pos;
            if at >= self.buf.len() {
                return Err(self.error(at, "group without its end tag"));
            }
            let (inner, wire_type) = self.key()?;
            if wire_type == END_GROUP {
                if inner != innermost {
                    return Err(self.error(at, "end-group tag of another group"));
                }
                open.pop();
                continue;
            }
            if open.len() >= RECURSION_LIMIT {
                return Err(self.error(at, "groups nest too deeply"));
            }
            if wire_type == START_GROUP {
                open.push(inner);
            } else {
                self.value(wire_type)?;
            }
        }
        Ok(())
    }
}

/// The varint at `*pos` in `bytes`, advancing past it; `None` if it runs past the end or
/// over 64 bits. For sniffing the start of a message that may be cut short.
pub(crate) fn varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// How the entries of a repeated scalar field are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    Varint,
    Fixed32,
    Fixed64,
}

impl<'b> Value<'b> {
    /// Calls `f` with each entry of one occurrence of a repeated scalar field of `kind`:
    /// a packed run, or a single unpacked value.
    pub(crate) fn scalars(self, kind: Scalar, mut f: impl FnMut(u64)) -> Result<(), String> {
        match (self, kind) {
            (Value::Varint(v), Scalar::Varint) | (Value::Fixed64(v), Scalar::Fixed64) => f(v),
            (Value::Fixed32(v), Scalar::Fixed32) => f(u64::from(v)),
            (Value::Bytes(packed), _) => {
                let mut run = fields(packed);
                while run.pos < packed.len() {
                    let entry = match kind {
                        Scalar::Varint => run.varint(),
                        Scalar::Fixed32 => {
                            run.fixed::<4>().map(|b| u64::from(u32::from_le_bytes(b)))
                        }
                        Scalar::Fixed64 => run.fixed::<8>().map(u64::from_le_bytes),
                    };
                    f(entry.map_err(|e| format!("packed run: {e}"))?);
                }
            }
            (other, _) => return Err(format!("{} entry", other.wire_type())),
        }
        Ok(())
    }

    /// The number of entries in one occurrence of a repeated scalar field of `kind`. Fixed
    /// size runs are counted from their length, without reading them.
    pub(crate) fn count_scalars(self, kind: Scalar) -> Result<u64, String> {
        let size = match kind {
            Scalar::Fixed32 => 4,
            Scalar::Fixed64 => 8,
            Scalar::Varint => {
                let mut n = 0;
                self.scalars(kind, |_| n += 1)?;
                return Ok(n);
            }
        };
        match self {
            Value::Bytes(packed) if packed.len() % size == 0 => Ok((packed.len() / size) as u64),
            Value::Bytes(packed) => Err(format!(
                "packed run of {} bytes is not a multiple of {size}",
                packed.len()
            )),
            other => other.scalars(kind, |_| {}).map(|()| 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fields;

    /// The short path reads a field exactly as the full one does, or leaves it to it.
    #[test]
    fn next_field_reads_what_next_reads() {
        let mut long = vec![0x0a, 0x80, 0x01];
        long.extend([7; 128]);
        let messages: [&[u8]; 10] = [
            &[0x0a, 0x02, b'h', b'i', 0x12, 0x00],
            &[0x0a, 0x80, 0x00],             // length 0 in two bytes
            &long,                           // a two-byte length
            &[0x0a, 0x05, b'c', b'u', b't'], // cut off
            &[0x02, 0x00],                   // field number 0
            &[0x82, 0x01, 0x01, b'x'],       // a two-byte key
            &[0x08, 0x96, 0x01, 0x0a, 0x01, b'v'],
            &[0x0a, 0xff, 0xff, 0x03, 0x00], // a three-byte length
            &[0x0b, 0x0c],                   // a group
            &[0x0a],
        ];
        for message in messages {
            let mut short = fields(message);
            let by_short: Vec<_> = std::iter::from_fn(|| short.next_field()).collect();
            let by_next: Vec<_> = fields(message).collect();
            assert_eq!(by_short, by_next, "{message:02x?}");
        }
    }
}
