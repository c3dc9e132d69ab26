//! Attribute messages: a name, a datatype, a dataspace and the data, which must fit the
//! message; and an attribute's value read as a string.

use super::heap::GlobalHeap;
use super::object::kind;
use super::rules::HDF5_NOT_READ;
use super::superblock::File;
use super::types::{Dataspace, Datatype};
use super::{byte, need, number, report, Failed, Message, Object, Problem};
use crate::check::Place;
use crate::escape::excerpt;
use crate::formats::shared::bytes::{self, Cursor, Stop};
use crate::formats::shared::context::Context;

/// One attribute.
#[derive(Debug, Clone)]
pub struct Attribute<'a> {
    /// Its name, without the terminating NUL.
    pub name: &'a [u8],
    /// Its element type.
    pub datatype: Datatype,
    /// Its dimensions.
    pub dataspace: Dataspace,
    /// Its data.
    pub data: &'a [u8],
    /// The offset of its message.
    pub at: u64,
}

impl<'a> Attribute<'a> {
    /// Reads an attribute message.
    pub fn read(file: &File<'a>, m: &Message<'a>) -> Result<Self, Failed> {
        let mut c = m.cursor(file);
        let what = "an attribute message";
        let version = byte(&mut c, what)?;
        byte(&mut c, what)?;
        let name_len = number(&mut c, 2, what)?;
        let type_len = number(&mut c, 2, what)?;
        let space_len = number(&mut c, 2, what)?;
        let pad = |n: u64| match version {
            1 => n.saturating_add(7) & !7,
            _ => n,
        };
        match version {
            1 | 2 => {}
            3 => {
                byte(&mut c, what)?;
            }
            v => {
                let message = format!(
                    "an attribute message's version at {} is {v}; HDF5 defines versions 1 to 3",
                    m.at
                );
                return Err(Stop::Problem(Problem::malformed(m.at, message)));
            }
        }
        let name = need(&mut c, pad(name_len), "an attribute's name")?;
        let name = bytes::head(name, usize::try_from(name_len).unwrap_or_default());
        let name = name.split(|&b| b == 0).next().unwrap_or_default();
        let datatype = Datatype::read(&mut { c })?;
        need(&mut c, pad(type_len), "an attribute's datatype")?;
        let dataspace = Dataspace::read(file, &mut { c })?;
        need(&mut c, pad(space_len), "an attribute's dataspace")?;
        let needed = (dataspace.elements()).and_then(|n| n.checked_mul(datatype.size(file)));
        let Some(size) = needed.filter(|&n| n <= c.remaining()) else {
            let message = format!(
                "attribute \"{}\" at {}: its dataspace {:?} of {} needs {} bytes; its message has {} left",
                excerpt(name, 100),
                m.at,
                dataspace.dims,
                datatype.name(),
                needed.map_or_else(|| "more than 2^64".into(), |n| n.to_string()),
                c.remaining()
            );
            return Err(Stop::Problem(Problem::malformed(m.at, message)));
        };
        let data = need(&mut c, size, "an attribute's data")?;
        Ok(Attribute {
            name,
            datatype,
            dataspace,
            data,
            at: m.at,
        })
    }

    /// The value as one string, if it is a scalar (or one-element) string attribute: a
    /// fixed-length one up to its first NUL, or a variable-length one from the global heap.
    pub fn string(
        &self,
        cx: &mut Context<'_>,
        file: &File<'a>,
        heap: &mut GlobalHeap,
    ) -> Result<Option<&'a [u8]>, Failed> {
        if self.dataspace.elements() != Some(1) {
            return Ok(None);
        }
        match self.datatype {
            Datatype::String { .. } => {
                let text = self.data.split(|&b| b == 0).next().unwrap_or_default();
                Ok(Some(text))
            }
            Datatype::VarString => {
                let at = bytes::offset_in(file.bytes, self.data).unwrap_or(self.at);
                let mut c = Cursor::new(file.bytes, at);
                let len = number(&mut c, 4, "a variable-length string's length")?;
                let collection = file.address(&mut c, "a variable-length string's heap address")?;
                let index = number(&mut c, 4, "a variable-length string's heap index")?;
                let Some(collection) = collection else {
                    return Ok(Some(&[]));
                };
                let object = heap.object(cx, file, collection, index, at)?;
                // The length counts the string's bytes; the heap object may be padded.
                let text = bytes::head(object, usize::try_from(len).unwrap_or(usize::MAX));
                Ok(Some(text))
            }
            _ => Ok(None),
        }
    }
}

/// The attributes stored in `object`'s header, and whether it keeps others in dense storage,
/// which is reported as not read (HD004); one that cannot be read is reported and skipped.
pub fn attributes<'a>(
    cx: &mut Context<'_>,
    file: &File<'a>,
    object: &Object<'a>,
) -> (Vec<Attribute<'a>>, bool) {
    let mut dense = false;
    if let Some(m) = object.message(kind::ATTRIBUTE_INFO) {
        let mut c = m.cursor(file);
        let heap = (|| {
            byte(&mut c, "an attribute info message")?;
            if byte(&mut c, "an attribute info message")? & 1 != 0 {
                need(&mut c, 2, "an attribute info message")?;
            }
            file.address(&mut c, "an attribute info message's fractal heap")
        })();
        match heap {
            Ok(Some(_)) => {
                dense = true;
                let message = format!("the object at {} keeps attributes in dense storage (a fractal heap, attribute info at {}), which rtenx does not read", object.at, m.at);
                cx.report(&HDF5_NOT_READ, Place::at(m.at), message);
            }
            Ok(None) => {}
            Err(stop) => report(cx, stop),
        }
    }
    let mut found = Vec::new();
    for m in object.all(kind::ATTRIBUTE) {
        if m.shared() {
            let message = format!("the attribute message at {} is shared (stored elsewhere), which rtenx does not read", m.at);
            cx.report(&HDF5_NOT_READ, Place::at(m.at), message);
            continue;
        }
        match Attribute::read(file, m) {
            Ok(a) => found.push(a),
            Err(stop) => report(cx, stop),
        }
    }
    (found, dense)
}
