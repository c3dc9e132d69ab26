//! The one bounds-checked way readers take numbers and slices out of file bytes.
//!
//! Positions and lengths are `u64`, as files state them: nothing here casts a file's number
//! to `usize` before checking it, adds without overflow checks, or indexes a slice. Every
//! read returns `None` when it does not fit, and readers turn that into a finding: a read
//! that runs out of file is a [`Short`], worded once ([`Short::message`]), and a walk that
//! cannot go on says why with a [`Stop`].

use std::convert::Infallible;
use std::fmt::Display;

/// `len` bytes at `start`, if they lie inside `bytes`.
pub fn range(bytes: &[u8], start: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(start).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    bytes.get(start..end)
}

/// The bytes from `start` to the end, if `start` lies inside `bytes` (or at its end).
pub fn from(bytes: &[u8], start: u64) -> Option<&[u8]> {
    bytes.get(usize::try_from(start).ok()?..)
}

/// The `N` bytes at `at`.
pub fn array<const N: usize>(bytes: &[u8], at: u64) -> Option<[u8; N]> {
    range(bytes, at, N as u64)?.try_into().ok()
}

/// The byte at `at`.
pub fn u8_at(bytes: &[u8], at: u64) -> Option<u8> {
    bytes.get(usize::try_from(at).ok()?).copied()
}

/// The little-endian `u16` at `at`.
pub fn le_u16(bytes: &[u8], at: u64) -> Option<u16> {
    array(bytes, at).map(u16::from_le_bytes)
}

/// The little-endian `u32` at `at`.
pub fn le_u32(bytes: &[u8], at: u64) -> Option<u32> {
    array(bytes, at).map(u32::from_le_bytes)
}

/// The little-endian `u64` at `at`.
pub fn le_u64(bytes: &[u8], at: u64) -> Option<u64> {
    array(bytes, at).map(u64::from_le_bytes)
}

/// Where `part`, a slice of `base`, starts in `base`; `None` for a slice from elsewhere.
pub fn offset_in(base: &[u8], part: &[u8]) -> Option<u64> {
    let start = (part.as_ptr() as usize).checked_sub(base.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= base.len()).then_some(start as u64)
}

/// The first `n` bytes, or all of them if there are fewer.
pub fn head(bytes: &[u8], n: usize) -> &[u8] {
    bytes.get(..n).unwrap_or(bytes)
}

/// The length of `bytes` as a file position.
pub fn len(bytes: &[u8]) -> u64 {
    bytes.len() as u64
}

/// A read that ran out of bytes: where it started, what it needed and what was left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Short {
    /// Where the read started.
    pub at: u64,
    /// Bytes it needed (for a length-prefixed string, its declared length).
    pub needed: u64,
    /// Bytes the file had left there.
    pub left: u64,
}

impl Short {
    /// The read of `needed` bytes at `at` in a file of `size` bytes.
    pub fn of(at: u64, needed: u64, size: u64) -> Self {
        Short {
            at,
            needed,
            left: size.saturating_sub(at),
        }
    }

    /// The one wording of a truncated read, where `what` names what was read (`the key of
    /// key-value pair 3`, `the FH01 header`).
    pub fn message(&self, what: impl Display) -> String {
        format!(
            "{what} needs {} bytes at offset {}; the file has {} left",
            self.needed, self.at, self.left
        )
    }
}

/// Why a reader stopped reading part of its file before its end.
#[derive(Debug)]
pub enum Stop<P = Infallible> {
    /// The bytes at hand ran out: the caller names the read in its finding, or reads more.
    Short(Short),
    /// A problem of the format's own, which the caller reports.
    Problem(P),
    /// Reported already, or the budget ran out: stop without another finding.
    Reported,
}

impl<P> From<P> for Stop<P> {
    fn from(problem: P) -> Self {
        Stop::Problem(problem)
    }
}

impl Stop {
    /// The same stop, a short read turned into a problem by `name` (which names the read).
    pub fn naming<P>(self, name: impl FnOnce(Short) -> P) -> Stop<P> {
        match self {
            Stop::Short(short) => Stop::Problem(name(short)),
            Stop::Problem(never) => match never {},
            Stop::Reported => Stop::Reported,
        }
    }
}

/// A position in file bytes that reads forward: each read either takes its bytes and moves
/// on, or returns `None` and stays where it was.
#[derive(Debug, Clone, Copy)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos` in `bytes`.
    pub fn new(bytes: &'a [u8], pos: u64) -> Self {
        Cursor { bytes, pos }
    }

    /// The absolute position of the next byte.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// Bytes left after the position (0 past the end).
    pub fn remaining(&self) -> u64 {
        len(self.bytes).saturating_sub(self.pos)
    }

    /// The bytes from the position to the end (none past the end).
    pub fn rest(&self) -> &'a [u8] {
        from(self.bytes, self.pos).unwrap_or_default()
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: u64) -> Option<&'a [u8]> {
        let taken = range(self.bytes, self.pos, n)?;
        self.pos += n;
        Some(taken)
    }

    /// The next `n` bytes, or the [`Short`] read they would be.
    pub fn need(&mut self, n: u64) -> Result<&'a [u8], Short> {
        let short = Short::of(self.pos, n, len(self.bytes));
        self.take(n).ok_or(short)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N as u64)?.try_into().ok()
    }

    /// The next byte.
    pub fn u8(&mut self) -> Option<u8> {
        self.array::<1>().map(|[b]| b)
    }

    /// The next little-endian `u16`.
    pub fn le_u16(&mut self) -> Option<u16> {
        self.array().map(u16::from_le_bytes)
    }

    /// The next little-endian `u32`.
    pub fn le_u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }

    /// The next little-endian `u64`.
    pub fn le_u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_end_or_overflowing_are_none() {
        let bytes = [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(le_u32(&bytes, 0), Some(1));
        assert_eq!(le_u64(&bytes, 4), Some(2));
        assert_eq!(le_u64(&bytes, 5), None);
        assert_eq!(le_u32(&bytes, u64::MAX - 1), None);
        assert_eq!(range(&bytes, 8, u64::MAX), None);
        assert_eq!(range(&bytes, 12, 0), Some(&[][..]));
        assert_eq!(from(&bytes, 13), None);
        assert_eq!(u8_at(&bytes, 4), Some(2));
    }

    #[test]
    fn a_cursor_moves_only_on_success() {
        let bytes = [7, 1, 0, 0, 0];
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(c.u8(), Some(7));
        assert_eq!(c.le_u64(), None);
        assert_eq!(c.pos(), 1);
        assert_eq!(c.le_u32(), Some(1));
        assert_eq!(c.remaining(), 0);
        assert_eq!(c.take(1), None);
        let short = c.need(2).unwrap_err();
        assert_eq!(short, Short::of(5, 2, 5));
        assert_eq!(
            short.message("the count"),
            "the count needs 2 bytes at offset 5; the file has 0 left"
        );
    }

    #[test]
    fn offsets_of_slices_inside_and_outside() {
        let base = [0u8; 16];
        assert_eq!(offset_in(&base, &base[3..9]), Some(3));
        assert_eq!(offset_in(&base, &base[16..]), Some(16));
        let other = [0u8; 4];
        assert_eq!(offset_in(&base[4..], &base[..2]), None);
        // Distinct live buffers never overlap, so a non-empty slice of another is never inside.
        assert_eq!(offset_in(&base, &other), None);
    }
}
