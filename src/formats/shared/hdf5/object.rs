//! Object headers (versions 1 and 2) and their messages, continuation blocks followed once
//! each.

use super::rules::HDF5_LOOP;
use super::superblock::File;
use super::{byte, need, number, signature, Failed, Problem};
use crate::check::Place;
use crate::formats::shared::bytes::{Cursor, Stop};
use crate::formats::shared::context::Context;
use crate::inventory::hashing::HashSet;

/// The message types the reader reads.
pub mod kind {
    /// A dataset's dimensions, or an attribute's.
    pub const DATASPACE: u16 = 0x1;
    /// A new-style group's link storage.
    pub const LINK_INFO: u16 = 0x2;
    /// A dataset's element type.
    pub const DATATYPE: u16 = 0x3;
    /// One link of a new-style group.
    pub const LINK: u16 = 0x6;
    /// Where a dataset's bytes are.
    pub const LAYOUT: u16 = 0x8;
    /// A dataset's filters (compression).
    pub const FILTERS: u16 = 0xB;
    /// One attribute.
    pub const ATTRIBUTE: u16 = 0xC;
    /// More of the header elsewhere.
    pub const CONTINUATION: u16 = 0x10;
    /// An old-style group: its B-tree and local heap.
    pub const SYMBOL_TABLE: u16 = 0x11;
    /// Dense attribute storage.
    pub const ATTRIBUTE_INFO: u16 = 0x15;
}

/// One message of an object header.
#[derive(Debug, Clone, Copy)]
pub struct Message<'a> {
    /// Its type.
    pub kind: u16,
    /// Its flags (bit 1: shared, stored elsewhere).
    pub flags: u8,
    /// Its body.
    pub data: &'a [u8],
    /// The offset of its body.
    pub at: u64,
}

impl<'a> Message<'a> {
    /// A cursor over the body, at its file offset.
    pub fn cursor(&self, file: &File<'a>) -> Cursor<'a> {
        // The body is a slice of the file: its cursor reads no further than the body.
        let start = usize::try_from(self.at).unwrap_or(usize::MAX);
        let end = start.saturating_add(self.data.len());
        Cursor::new(file.bytes.get(..end).unwrap_or_default(), self.at)
    }

    /// Whether the body is stored elsewhere (a shared message), which the reader does not
    /// follow.
    pub fn shared(&self) -> bool {
        self.flags & 0x2 != 0
    }
}

/// An object header: its messages, in order.
#[derive(Debug, Default, Clone)]
pub struct Object<'a> {
    /// Where it starts.
    pub at: u64,
    /// Its messages, continuation blocks' included.
    pub messages: Vec<Message<'a>>,
}

impl<'a> Object<'a> {
    /// The first message of `kind`.
    pub fn message(&self, kind: u16) -> Option<&Message<'a>> {
        self.messages.iter().find(|m| m.kind == kind)
    }

    /// The messages of `kind`.
    pub fn all(&self, kind: u16) -> impl Iterator<Item = &Message<'a>> {
        self.messages.iter().filter(move |m| m.kind == kind)
    }

    /// Reads the object header at `at` (read from the field at `from`), paying an entry per
    /// message.
    pub fn read(cx: &mut Context<'_>, file: &File<'a>, at: u64, from: u64) -> Result<Self, Failed> {
        let mut c = file.at(at, "an object header", from)?;
        let mut object = Object {
            at,
            messages: Vec::new(),
        };
        let v2 = c.rest().starts_with(b"OHDR");
        let (mut block, mut end, creation_order) = if v2 {
            signature(&mut c, b"OHDR", "an object header")?;
            let version = byte(&mut c, "an object header's version")?;
            if version != 2 {
                return Err(bad_version(at + 4, version));
            }
            let flags = byte(&mut c, "an object header's flags")?;
            if flags & 0x20 != 0 {
                need(&mut c, 16, "an object header's times")?;
            }
            if flags & 0x10 != 0 {
                need(&mut c, 4, "an object header's attribute phase change")?;
            }
            let size = number(
                &mut c,
                1 << (flags & 3),
                "an object header's size of chunk 0",
            )?;
            (c.pos(), c.pos().saturating_add(size), flags & 0x4 != 0)
        } else {
            let version = byte(&mut c, "an object header's version")?;
            if version != 1 {
                return Err(bad_version(at, version));
            }
            need(
                &mut c,
                7,
                "an object header's message count and reference count",
            )?;
            let size = number(&mut c, 4, "an object header's size")?;
            // Messages start at the next multiple of 8 after the 12-byte prefix.
            (at + 16, (at + 16).saturating_add(size), false)
        };
        let mut seen = HashSet::default();
        seen.insert(at);
        let mut pending = Vec::new();
        loop {
            object.blocks(cx, file, block, end, v2, creation_order, &mut pending)?;
            let Some((next, len, from)) = pending.pop() else {
                return Ok(object);
            };
            if !seen.insert(next) {
                let message = format!("the object header at {at} continues at {next} (field at {from}), a block it has read already: the chain loops");
                return Err(Stop::Problem(Problem::new(&HDF5_LOOP, from, message)));
            }
            let mut c = file.at(next, "an object header continuation block", from)?;
            if v2 {
                signature(&mut c, b"OCHK", "an object header continuation block")?;
            }
            block = c.pos();
            // A version 2 block ends with its checksum.
            end = next
                .saturating_add(len)
                .saturating_sub(if v2 { 4 } else { 0 });
        }
    }

    /// Reads the messages of one block, from `start` to `end` (before a version 2 block's
    /// checksum), queueing the continuation blocks it names.
    #[allow(clippy::too_many_arguments)]
    fn blocks(
        &mut self,
        cx: &mut Context<'_>,
        file: &File<'a>,
        start: u64,
        end: u64,
        v2: bool,
        creation_order: bool,
        pending: &mut Vec<(u64, u64, u64)>,
    ) -> Result<(), Failed> {
        let prefix: u64 = match (v2, creation_order) {
            (false, _) => 8,
            (true, false) => 4,
            (true, true) => 6,
        };
        let mut c = Cursor::new(file.bytes, start);
        let what = "an object header message";
        while c.pos().saturating_add(prefix) <= end {
            let (kind, size, flags) = if v2 {
                let kind = u16::from(byte(&mut c, what)?);
                let size = number(&mut c, 2, what)?;
                let flags = byte(&mut c, what)?;
                if creation_order {
                    need(&mut c, 2, what)?;
                }
                (kind, size, flags)
            } else {
                let kind = u16::try_from(number(&mut c, 2, what)?).unwrap_or_default();
                let size = number(&mut c, 2, what)?;
                let flags = byte(&mut c, what)?;
                need(&mut c, 3, what)?;
                (kind, size, flags)
            };
            let body = c.pos();
            if body.saturating_add(size) > end {
                let message = format!("an object header message (type {kind}) at {} declares {size} bytes; its block ends at {end}", body.saturating_sub(prefix));
                return Err(Stop::Problem(Problem::malformed(
                    body.saturating_sub(prefix),
                    message,
                )));
            }
            let data = need(&mut c, size, what)?;
            if !cx.spend(1, Place::at(body)) {
                return Err(Stop::Reported);
            }
            let message = Message {
                kind,
                flags,
                data,
                at: body,
            };
            if kind == kind::CONTINUATION {
                let mut m = message.cursor(file);
                let next = file.address(&mut m, "a continuation message's offset")?;
                let len = file.length(&mut m, "a continuation message's length")?;
                if let Some(next) = next {
                    pending.push((next, len, body));
                }
            }
            self.messages.push(message);
        }
        Ok(())
    }
}

fn bad_version(at: u64, version: u8) -> Failed {
    let message =
        format!("an object header's version at {at} is {version}; HDF5 defines versions 1 and 2");
    Stop::Problem(Problem::malformed(at, message))
}
