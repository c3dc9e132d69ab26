//! The bytes the machine reads, and the frames (`FRAME`, protocol 4) they are grouped in.
//!
//! A frame says that its next N bytes hold whole opcodes. What a reader does with an opcode
//! whose argument runs past the frame's end differs: the pure-Python unpickler refuses it
//! ("pickle exhausted before end of frame"), `pickletools` and the scanners read straight on,
//! and CPython's C unpickler, reading from a stream without `peek` (an `io.BytesIO`, as
//! `torch.load` reads `data.pkl`), may drop the frame's last bytes and read the whole argument
//! from after the frame, so the opcodes it runs next are not the ones a linear reader sees
//! (python/cpython#154848; which arguments it does this for depends on the release: every one
//! in 3.6 and 3.7, `BINUNICODE` and the other text arguments up to 3.13.0). rtenx reads a
//! pickle linearly ([`Frames::Stream`]), reports the first read that crosses a frame's end, and
//! then reads it again as the old C unpickler does ([`Frames::Discard`]), so that what either
//! reaches is judged.

use super::value::Span;
use crate::formats::shared::bytes;

/// How reads that cross a frame's end are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frames {
    /// On, as if there were no frames (`pickletools`, fickling).
    Stream,
    /// From the frame's end, dropping the frame's last bytes (CPython's C unpickler reading
    /// from a stream without `peek`).
    Discard,
}

/// The first read that crossed a frame's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Straddle {
    /// The opcode whose read it was.
    pub opcode: u64,
    /// Where the frame ended.
    pub frame_end: u64,
    /// Whether the read was a `FRAME` opening inside another.
    pub nested: bool,
}

/// A position in a buffer, and the frame it is in.
pub struct Input<'s> {
    bytes: &'s [u8],
    /// The next byte to read.
    pub pos: u64,
    mode: Frames,
    /// The end of the frame's bytes, while a read could still fall inside them.
    frame: Option<u64>,
    /// The opcode being read, for [`Straddle::opcode`].
    opcode: u64,
    /// The first read that crossed a frame's end.
    pub straddle: Option<Straddle>,
}

impl<'s> Input<'s> {
    /// Reading `bytes` from `pos`.
    pub fn new(bytes: &'s [u8], pos: u64, mode: Frames) -> Self {
        Input {
            bytes,
            pos,
            mode,
            frame: None,
            opcode: pos,
            straddle: None,
        }
    }

    /// Bytes left after the position.
    pub fn left(&self) -> u64 {
        bytes::len(self.bytes).saturating_sub(self.pos)
    }

    /// Starts reading the opcode at the position.
    pub fn opcode(&mut self) -> Option<u8> {
        self.opcode = self.pos;
        let code = self.take(1)?;
        bytes::u8_at(self.bytes, code.start)
    }

    /// The next `n` bytes, as a span of the buffer; `None` if fewer are left.
    pub fn take(&mut self, n: u64) -> Option<Span> {
        self.cross(|end, pos| pos.checked_add(n).is_none_or(|e| e > end));
        let start = self.pos;
        let end = start.checked_add(n)?;
        if end > bytes::len(self.bytes) {
            return None;
        }
        self.pos = end;
        Some(Span { start, len: n })
    }

    /// The next line, without its newline (which is read too); `None` if no newline follows.
    pub fn line(&mut self) -> Option<Span> {
        let newline = |from: u64| {
            let rest = bytes::from(self.bytes, from)?;
            memchr::memchr(b'\n', rest).map(|i| from + i as u64)
        };
        let found = newline(self.pos);
        self.cross(|end, _| found.is_none_or(|at| at >= end));
        // In [`Frames::Discard`] the line is read again from the frame's end.
        let at = newline(self.pos)?;
        let span = Span {
            start: self.pos,
            len: at - self.pos,
        };
        self.pos = at + 1;
        Some(span)
    }

    /// `FRAME` of `len` bytes: its bytes must all be there. A frame opening before the last
    /// one ended is a crossing.
    pub fn frame(&mut self, len: u64) -> bool {
        let inside = self.frame.is_some_and(|end| self.pos < end);
        if inside && self.straddle.is_none() {
            self.straddle = Some(Straddle {
                opcode: self.opcode,
                frame_end: self.frame.unwrap_or(self.pos),
                nested: true,
            });
        }
        // Its bytes are read as one read, then served from the buffer.
        let start = self.pos;
        let Some(span) = self.take(len) else {
            return false;
        };
        self.pos = span.start;
        let end = span.end();
        self.frame = match self.frame {
            // A nested frame that fits is served from the old buffer, which ends later.
            Some(old) if self.mode == Frames::Discard && start == span.start && old > end => {
                Some(old)
            }
            _ => Some(end),
        };
        true
    }

    /// Before a read: if it crosses the frame's end (`crosses(end, pos)`), records it, and in
    /// [`Frames::Discard`] moves to the frame's end. A read from the frame's end on is outside
    /// the frame either way.
    fn cross(&mut self, crosses: impl Fn(u64, u64) -> bool) {
        let Some(end) = self.frame else { return };
        if self.pos >= end {
            self.frame = None;
            return;
        }
        if !crosses(end, self.pos) {
            return;
        }
        if self.straddle.is_none() {
            self.straddle = Some(Straddle {
                opcode: self.opcode,
                frame_end: end,
                nested: false,
            });
        }
        self.frame = None;
        if self.mode == Frames::Discard {
            self.pos = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_across_a_frame_is_taken_on_or_from_the_frames_end() {
        // FRAME's bytes are 0..6; a read of 4 at 4 crosses its end.
        let bytes = b"abcdefghijkl";
        for (mode, start) in [(Frames::Stream, 4), (Frames::Discard, 6)] {
            let mut input = Input::new(bytes, 0, mode);
            assert!(input.frame(6));
            assert_eq!(input.take(4).map(|s| s.start), Some(0));
            let read = input.take(4).unwrap();
            assert_eq!(read.start, start, "{mode:?}");
            assert_eq!(input.straddle.map(|s| s.frame_end), Some(6));
        }
        // Reads that end on the frame's end, and reads after it, cross nothing.
        let mut input = Input::new(bytes, 0, Frames::Discard);
        assert!(input.frame(4));
        assert_eq!(input.take(4).map(|s| s.start), Some(0));
        assert_eq!(input.take(4).map(|s| s.start), Some(4));
        assert_eq!(input.straddle, None);
        assert!(!Input::new(bytes, 0, Frames::Stream).frame(13));
    }

    #[test]
    fn a_line_across_a_frame_is_read_on_or_from_the_frames_end() {
        let bytes = b"ab\ncd\nef\n";
        let mut input = Input::new(bytes, 0, Frames::Discard);
        assert!(input.frame(4));
        assert_eq!(input.line(), Some(Span { start: 0, len: 2 }));
        // "c" is in the frame, its newline is not: the old C unpickler reads from byte 4.
        assert_eq!(input.line(), Some(Span { start: 4, len: 1 }));
        let mut input = Input::new(bytes, 0, Frames::Stream);
        assert!(input.frame(4));
        input.line();
        assert_eq!(input.line(), Some(Span { start: 3, len: 2 }));
        assert!(input.straddle.is_some());
    }
}
