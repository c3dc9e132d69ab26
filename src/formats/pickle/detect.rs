//! Recognising a bare pickle by its content: `PROTO` and a version, or, for protocols 0 and 1
//! that have no `PROTO`, a start of valid opcodes.

use crate::formats::shared::bytes::Cursor;
use crate::formats::shared::pickle::opcodes::{self, Arg};

/// Opcodes checked at most: enough to tell a pickle from text or another binary format.
const OPCODES: usize = 64;

/// Whether `bytes` look like a pickle.
pub fn is_pickle(bytes: &[u8]) -> bool {
    match bytes {
        [0x80, _, next, ..] => opcodes::op(*next).is_some(),
        [b'(' | b'}' | b']' | b')' | b'c', ..] => opcodes_fit(bytes),
        _ => false,
    }
}

/// Whether the first opcodes (up to `STOP`) are valid and their arguments fit.
fn opcodes_fit(bytes: &[u8]) -> bool {
    let mut cursor = Cursor::new(bytes, 0);
    for _ in 0..OPCODES {
        let Some(op) = cursor.u8().and_then(opcodes::op) else {
            return cursor.remaining() == 0 && cursor.pos() > 1;
        };
        if op.code == opcodes::STOP {
            return true;
        }
        let fits = match op.arg {
            Arg::None => Some(()),
            Arg::U8 => cursor.take(1).map(drop),
            Arg::U16 => cursor.take(2).map(drop),
            Arg::I32 | Arg::U32 => cursor.take(4).map(drop),
            Arg::U64 => cursor.take(8).map(drop),
            Arg::Line => line(&mut cursor),
            Arg::Lines => line(&mut cursor).and_then(|_| line(&mut cursor)),
            Arg::Bytes8 => cursor.u8().and_then(|n| cursor.take(n.into())).map(drop),
            Arg::Bytes32 | Arg::SignedBytes32 => cursor
                .le_u32()
                .and_then(|n| cursor.take(n.into()))
                .map(drop),
            Arg::Bytes64 => cursor.le_u64().and_then(|n| cursor.take(n)).map(drop),
        };
        if fits.is_none() {
            return false;
        }
    }
    true
}

/// Steps over a printable line and its newline.
fn line(cursor: &mut Cursor<'_>) -> Option<()> {
    let rest = cursor.rest();
    let len = rest.iter().take(256).position(|&b| b == b'\n')?;
    let text = rest.get(..len)?;
    if text.iter().any(|&b| b < 0x20 && b != b'\t') {
        return None;
    }
    cursor.take(len as u64 + 1).map(drop)
}
