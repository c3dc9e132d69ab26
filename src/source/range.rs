//! Byte ranges of a file, the unit sections, tensors and fetches are measured in.

use serde::Serialize;

/// A half-open byte range `[start, start + len)` in one file. `start + len` never overflows:
/// readers clamp or reject ranges before they become sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ByteRange {
    /// First byte.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
}

impl ByteRange {
    /// The range from `start` to `end`; empty if `end < start`.
    pub fn between(start: u64, end: u64) -> Self {
        ByteRange {
            start,
            len: end.saturating_sub(start),
        }
    }

    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.start.saturating_add(self.len)
    }
}
