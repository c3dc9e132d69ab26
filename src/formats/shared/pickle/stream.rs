//! A pickle read as every loader might read it, and the pickles that follow it.
//!
//! [`judge`] judges a pickle read linearly; if a read crossed a frame's end (PK012), it reads
//! the same bytes again as CPython's C unpickler can read them from a stream without `peek`
//! ([`Frames::Discard`]) and judges what that reading reaches besides.
//! [`read_rest`] reads the pickles after a `STOP` to the end of the buffer, as repeated
//! `pickle.load` calls on one file do, and judges each: a payload in the fifth pickle of a
//! stream is named with its pickle and byte.

use super::input::{Frames, Straddle};
use super::rules::{DATA_AFTER_STOP, FRAME_CROSSED};
use super::verdict::{self, Judged};
use super::{machine, Options, Pickle, Sink, Source};
use crate::formats::shared::bytes;
use crate::inventory::Trust;
use std::collections::HashSet;

/// Pickles after the first that a stream is read for at most: each costs at least two bytes
/// and its opcodes are paid from the budget, so this only bounds the work on a file of
/// millions of tiny pickles.
const MAX_PICKLES: u32 = 100_000;

/// Judges every import of `pickle`, read from `src` with `options` (see [`verdict::judge`]);
/// if a read crossed a frame's end, reports it and judges what the other reading reaches.
pub fn judge(
    sink: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    options: Options,
    known: Judged<'_>,
) -> Vec<Trust> {
    let trusts = verdict::judge(sink, src, pickle, known);
    if let Some(straddle) = pickle.straddle {
        if options.report {
            report_straddle(sink, src, straddle);
        }
        let again = Options {
            report: false,
            frames: Frames::Discard,
            ..options
        };
        let other = machine::Machine::new(sink, src, again).run();
        let seen: HashSet<u64> = (pickle.imports.iter().map(|i| i.at))
            .chain(pickle.mutations.iter().map(|m| m.at))
            .collect();
        verdict::judge_some(sink, src, &other, &|_| None, &|at| !seen.contains(&at));
    }
    trusts
}

fn report_straddle(sink: &mut Sink<'_>, src: &Source<'_>, straddle: Straddle) {
    let Straddle {
        opcode,
        frame_end,
        nested,
    } = straddle;
    let code = bytes::u8_at(src.bytes, opcode).unwrap_or(0);
    let what = if nested {
        "opens a frame before the frame that ends at"
    } else {
        "reads past the end of its frame at"
    };
    let message = format!(
        "CPython's C unpickler can run other opcodes than scanners read: {} at {} {what} {}; pickletools and the scanners read straight on and the pure-Python unpickler refuses it, while the C unpickler reading from a stream without peek (an io.BytesIO) can read from the frame's end (both readings are judged)",
        super::opcode_name(code),
        src.at(opcode),
        src.at(frame_end),
    );
    sink.report(&FRAME_CROSSED, src.place(opcode), message);
}

/// Reports the bytes after the `STOP` of `first` (read from `src`), if any, and reads and
/// judges the pickles in them, without reporting what spoils those: what they import is
/// judged like any other import.
pub fn read_rest(sink: &mut Sink<'_>, src: &Source<'_>, first: &Pickle<'_>, options: Options) {
    let len = bytes::len(src.bytes);
    let left = len.saturating_sub(first.end);
    if first.root.is_none() || left == 0 {
        return;
    }
    let message = format!(
        "a second pickle.load on the same stream reads {left} more bytes: they follow the pickle's STOP at {}, where a reader that stops at STOP sees nothing of them",
        src.at(first.end - 1)
    );
    sink.report(&DATA_AFTER_STOP, src.place(first.end), message);
    let options = Options {
        report: false,
        ..options
    };
    let mut start = first.end;
    for nth in 1..=MAX_PICKLES {
        let next = Source {
            start,
            nth,
            ..src.clone()
        };
        let pickle = machine::Machine::new(sink, &next, options).run();
        judge(sink, &next, &pickle, options, &|_| None);
        if pickle.root.is_none() || pickle.end >= len || pickle.end <= start {
            return;
        }
        start = pickle.end;
    }
}
