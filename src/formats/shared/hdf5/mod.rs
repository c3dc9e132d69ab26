//! A small read-only HDF5 reader for what Keras writes: the superblock (versions 0 to 3),
//! object headers (versions 1 and 2, with their continuation blocks), attributes with
//! their datatypes and dataspaces, strings in the global heap, groups as symbol tables (a
//! version 1 B-tree over a local heap) or link messages, and datasets' layouts. It follows
//! the HDF5 File Format Specification 3.0 and reads nothing else: dense attribute and link
//! storage (fractal heaps) and chunked data are named, not read (HD004).
//!
//! Every number comes through [`bytes`](super::bytes), every entry kept is paid from the
//! budget, and every walk over a structure the file controls is bounded: continuation
//! chains and B-trees remember the blocks they visited, groups nest at most [`MAX_DEPTH`]
//! deep and each object is visited once. What cannot be read is a [`Problem`]: its rule,
//! its offset and a message naming the field, its value and the limit it breaks.

mod attribute;
mod detect;
mod group;
mod heap;
mod layout;
mod object;
pub mod rules;
mod superblock;
mod types;
mod walk;

pub use attribute::{attributes, Attribute};
pub use detect::{hint, Hint, FIRST_PAGE};
pub use heap::GlobalHeap;
pub use layout::Layout;
pub use object::{Message, Object};
pub use superblock::{File, Superblock};
pub use types::{Dataspace, Datatype};
pub use walk::{walk, Dataset, Visit};

use crate::check::{Place, Rule};
use crate::formats::shared::bytes::{Cursor, Short, Stop};
use crate::formats::shared::context::Context;
use rules::{HDF5_MALFORMED, HDF5_TRUNCATED};

/// HDF5's signature, at the start of the superblock.
pub const SIGNATURE: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

/// Groups nested deeper than this are not walked (Keras nests four or five).
pub const MAX_DEPTH: usize = 64;

/// Why part of a file could not be read: reported with this rule at this offset.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The rule it breaks.
    pub rule: &'static Rule,
    /// The offset of the field at fault.
    pub at: u64,
    /// What is wrong: the field, its value and the limit.
    pub message: String,
}

impl Problem {
    /// A problem with `rule` at `at`.
    pub fn new(rule: &'static Rule, at: u64, message: impl Into<String>) -> Self {
        Problem {
            rule,
            at,
            message: message.into(),
        }
    }

    /// A malformed field (HD002).
    pub fn malformed(at: u64, message: impl Into<String>) -> Self {
        Problem::new(&HDF5_MALFORMED, at, message)
    }

    /// A read of `what` that ran out of file (HD001).
    pub fn short(short: Short, what: &str) -> Self {
        Problem::new(&HDF5_TRUNCATED, short.at, short.message(what))
    }

    /// Reports it.
    pub fn report(self, cx: &mut Context<'_>) {
        cx.report(self.rule, Place::at(self.at), self.message);
    }
}

/// A walk that stopped: [`Stop::Problem`] to report, or [`Stop::Reported`].
pub type Failed = Stop<Problem>;

/// Reports a stop's problem, if it has one.
pub fn report(cx: &mut Context<'_>, stop: Failed) {
    match stop {
        Stop::Problem(p) => p.report(cx),
        Stop::Short(short) => Problem::short(short, "an HDF5 structure").report(cx),
        Stop::Reported => {}
    }
}

/// The next `n` bytes of `what`.
fn need<'a>(c: &mut Cursor<'a>, n: u64, what: &str) -> Result<&'a [u8], Failed> {
    c.need(n)
        .map_err(|s| Stop::Problem(Problem::short(s, what)))
}

/// A little-endian number of `width` bytes (1, 2, 4 or 8) of `what`.
fn number(c: &mut Cursor<'_>, width: u8, what: &str) -> Result<u64, Failed> {
    let bytes = need(c, u64::from(width), what)?;
    let mut value = [0u8; 8];
    for (to, from) in value.iter_mut().zip(bytes) {
        *to = *from;
    }
    Ok(u64::from_le_bytes(value))
}

/// The one-byte field `what`.
fn byte(c: &mut Cursor<'_>, what: &str) -> Result<u8, Failed> {
    Ok(need(c, 1, what)?.first().copied().unwrap_or_default())
}

/// Expects the four-byte signature `sig` of `what` at the cursor.
fn signature(c: &mut Cursor<'_>, sig: &[u8; 4], what: &str) -> Result<(), Failed> {
    let at = c.pos();
    let found = need(c, 4, what)?;
    if found != sig {
        let message = format!(
            "{what} at {at} should start with \"{}\", found {}",
            String::from_utf8_lossy(sig),
            crate::escape::excerpt(found, 8)
        );
        return Err(Stop::Problem(Problem::malformed(at, message)));
    }
    Ok(())
}
