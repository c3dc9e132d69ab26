//! Recognising Paddle files by their content: a ProgramDesc, a PIR JSON program, or a
//! parameter stream. None has a magic number but PIR's `"magic": "pir"`.

use crate::formats::foreign::json_with_key;
use crate::formats::shared::protobuf::varint;

/// What a Paddle file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A legacy ProgramDesc protobuf (`.pdmodel`, `__model__`).
    Program,
    /// A PIR JSON program (`.json`).
    Pir,
    /// Tensor records (`.pdiparams`, a per-variable file, `paddle.save(..., use_binary_format)`).
    Params,
    /// A SelectedRows tensor saved by `paddle.save(..., use_binary_format=True)`.
    SelectedRows,
}

/// What `bytes` hold, if they are a Paddle file.
pub fn kind(bytes: &[u8]) -> Option<Kind> {
    if pir(bytes) {
        Some(Kind::Pir)
    } else if params(bytes) {
        Some(Kind::Params)
    } else if program(bytes) {
        Some(Kind::Program)
    } else if selected_rows(bytes) {
        Some(Kind::SelectedRows)
    } else {
        None
    }
}

/// A ProgramDesc: its first field is a block (1, length-delimited) that starts with idx (1)
/// and parent_idx (2) as varints, followed by vars (3), ops (4) or forward_block_idx (5), or
/// by the end of the bytes. Only the start is looked at, so a truncated program is still
/// recognised (and then reported by the reader).
fn program(bytes: &[u8]) -> bool {
    let mut pos = 0;
    if bytes.first() != Some(&0x0a) {
        return false;
    }
    pos += 1;
    if varint(bytes, &mut pos).is_none() {
        return false;
    }
    let mut field = |expected: u8| {
        bytes.get(pos) == Some(&expected) && {
            pos += 1;
            varint(bytes, &mut pos).is_some()
        }
    };
    if !field(0x08) {
        return false;
    }
    // parent_idx is required too, but a block of only idx and vars is still a block.
    field(0x10);
    matches!(bytes.get(pos), None | Some(0x1a | 0x22 | 0x28))
}

/// A PIR program: a JSON object whose `base_code` has `"magic": "pir"` near the start.
fn pir(bytes: &[u8]) -> bool {
    json_with_key(bytes, "\"base_code\"") && json_with_key(bytes, "\"magic\":\"pir\"")
}

/// Little-endian word of `len` bytes at `at`.
fn word(bytes: &[u8], at: usize, len: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(len)?)?;
    Some(b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)))
}

/// A tensor part at `at`: u32 version 0, an i32 descriptor length, then a TensorDesc whose
/// first field is data_type (1, a varint).
fn tensor_at(bytes: &[u8], at: usize) -> Option<bool> {
    let desc = word(bytes, at.checked_add(4)?, 4)?;
    let first = *bytes.get(at.checked_add(8)?)?;
    Some(word(bytes, at, 4)? == 0 && (2..1 << 20).contains(&desc) && first == 0x08)
}

/// A SelectedRows: u32 version 0, a u64 row count, the rows, an i64 height, then a tensor part.
fn selected_rows(bytes: &[u8]) -> bool {
    let tensor = || -> Option<bool> {
        let rows = usize::try_from(word(bytes, 4, 8).filter(|&n| n < 1 << 24)?).ok()?;
        tensor_at(bytes, rows.checked_mul(8)?.checked_add(20)?)
    };
    word(bytes, 0, 4) == Some(0) && tensor().unwrap_or(false)
}

/// A parameter stream: u32 version 0, u64 LoD level, each level as a u64 byte count and its
/// offsets, u32 version 0, an i32 descriptor length, then a TensorDesc whose first field is
/// data_type (1, a varint).
fn params(bytes: &[u8]) -> bool {
    let tensor_start = || -> Option<usize> {
        let levels = word(bytes, 4, 8).filter(|&n| n < 16)?;
        let mut pos = 12usize;
        for _ in 0..levels {
            let len = usize::try_from(word(bytes, pos, 8)?).ok()?;
            pos = pos.checked_add(8)?.checked_add(len)?;
        }
        Some(pos)
    };
    let tensor = tensor_start().and_then(|at| tensor_at(bytes, at));
    word(bytes, 0, 4) == Some(0) && tensor.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_told_from_its_start() {
        // ProgramDesc: one block with idx 0 and an empty var.
        assert_eq!(
            kind(&[0x0a, 0x04, 0x08, 0x00, 0x1a, 0x00]),
            Some(Kind::Program)
        );
        // Cut inside the block: still a program.
        assert_eq!(
            kind(&[0x0a, 0x7f, 0x08, 0x00, 0x10, 0x01]),
            Some(Kind::Program)
        );
        // A TensorFlow GraphDef: a node whose first field is its name.
        assert_eq!(kind(&[0x0a, 0x03, 0x0a, 0x01, b'a']), None);
        let pir = br#"{"base_code": {"magic": "pir", "version": 4}, "program": {}}"#;
        assert_eq!(kind(pir), Some(Kind::Pir));
        let mut record = vec![0; 16];
        record.extend([4, 0, 0, 0, 0x08, 0x05, 0x10, 0x01, 0, 0, 0, 0]);
        assert_eq!(kind(&record), Some(Kind::Params));
        // SelectedRows: version, 1 row (7), height 10, then the value tensor without LoD.
        let mut rows = vec![0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0];
        rows.extend([
            10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0x08, 0x05, 0x10, 0x01,
        ]);
        assert_eq!(kind(&rows), Some(Kind::SelectedRows));
        assert_eq!(kind(b""), None);
    }

    #[test]
    fn a_lod_length_near_the_end_of_memory_is_no_overflow() {
        // Found by fuzzing: a LoD level whose byte count leads the next read past usize::MAX.
        let mut bytes = vec![0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
        bytes.extend_from_slice(&(u64::MAX - 19).to_le_bytes());
        bytes.extend_from_slice(&[0; 8]);
        assert_eq!(kind(&bytes), None);
    }
}
