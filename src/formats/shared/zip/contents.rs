//! Members judged by what they hold, not by their names: a member that is a pickle is read and
//! its imports judged, whatever the archive's format makes of it, since a scanner, a script or
//! a person who unpacks the archive loads it by its content. An `.npy` member's data after its
//! header is a pickle when the array holds objects, and is judged the same way.

use super::{inflate, inflate_paid, Member};
use crate::formats::shared::bytes;
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::{self, Located, Options, Pickle, Source};
use crate::inventory::{Name, Trust};

/// Bytes of a member looked at before it is inflated whole.
const HEAD: usize = 4096;

/// Opcodes that must read cleanly for a member to be a pickle: a few more than for a file,
/// since a member is often text.
const SNIFFED: u64 = 2;

/// Opcodes a pickle that does not reach `STOP` must have to be judged: fewer is text that
/// happens to start like a pickle.
const OPCODES: u64 = 8;

/// The length of an `.npy` header at the start of `bytes` (the magic, a version, a `u16` or
/// `u32` length, then that much text), if they start with one.
fn npy_header(bytes: &[u8]) -> Option<u64> {
    if !bytes.starts_with(b"\x93NUMPY") {
        return None;
    }
    match bytes::u8_at(bytes, 6)? {
        1 => Some(10 + u64::from(bytes::le_u16(bytes, 8)?)),
        _ => Some(12 + u64::from(bytes::le_u32(bytes, 8)?)),
    }
}

/// Reads `member` of the archive in `file` and judges its imports if it is a pickle by
/// content, the format judging those it knows (`known`, given the pickle and an import's
/// index); returns whether it was one. Its own defects are not reported: the format that
/// contains it does not load it.
pub fn pickle_member(
    cx: &mut Context<'_>,
    file: &[u8],
    member: &Member<'_>,
    known: &dyn Fn(&Pickle<'_>, usize) -> Option<Trust>,
) -> bool {
    if member.encrypted() {
        return false;
    }
    let head = if member.stored() {
        bytes::head(member.raw(file).unwrap_or_default(), HEAD).to_vec()
    } else {
        inflate(file, member, HEAD as u64)
            .map(|h| h.bytes)
            .unwrap_or_default()
    };
    let skip = npy_header(&head).unwrap_or(0);
    let rest = head.get(usize::try_from(skip).unwrap_or(usize::MAX)..);
    if !rest.is_some_and(|rest| pickle::sniff(rest, SNIFFED)) {
        return false;
    }
    let inflated;
    let src = if member.stored() {
        let end = member.range().end();
        let start = member.data.saturating_add(skip);
        Source::file(bytes::range(file, 0, end).unwrap_or_default(), start)
    } else {
        let Some(found) = inflate_paid(cx, file, member) else {
            return false;
        };
        inflated = found;
        Source {
            bytes: &inflated,
            start: skip,
            located: Located::Member {
                header: member.header,
                name: Name::from(member.name),
            },
            item: None,
            nth: 0,
        }
    };
    // Persistent ids are read on, so that what follows one is judged too.
    let options = Options {
        report: false,
        ..Options::reporting(true)
    };
    let p = pickle::read(cx, &src, options);
    if p.root.is_none() && p.opcodes < OPCODES {
        return false;
    }
    pickle::judge(cx, &src, &p, options, &|i| known(&p, i));
    true
}
