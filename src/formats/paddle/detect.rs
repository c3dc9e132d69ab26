//! Recognising Paddle files by their content: a ProgramDesc, a PIR JSON program, a parameter
//! stream, or the `.pdiparams.info` of structured names. None has a magic number but PIR's
//! `"magic": "pir"`.

use crate::formats::shared::json;
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
    /// Tensor records whose first header has one damaged field: a version word that is not
    /// 0, or a TensorDesc length that is negative or runs past the end. Read as
    /// [`Kind::Params`], whose reader reports the damage.
    DamagedParams,
    /// A SelectedRows tensor saved by `paddle.save(..., use_binary_format=True)`.
    SelectedRows,
    /// The `.pdiparams.info` pickle of structured names that legacy `paddle.jit.save` writes.
    Info,
}

/// What `bytes` hold, if they are a Paddle file.
pub fn kind(bytes: &[u8]) -> Option<Kind> {
    if pir(bytes) {
        Some(Kind::Pir)
    } else if params(bytes) {
        Some(Kind::Params)
    } else if program(bytes) {
        Some(Kind::Program)
    } else if damaged_params(bytes) {
        Some(Kind::DamagedParams)
    } else if selected_rows(bytes) {
        Some(Kind::SelectedRows)
    } else if super::info::detect(bytes) {
        Some(Kind::Info)
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
    json::with_key(bytes, "\"base_code\"") && json::with_key(bytes, "\"magic\":\"pir\"")
}

/// Little-endian word of `len` bytes at `at`.
fn word(bytes: &[u8], at: usize, len: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(len)?)?;
    Some(b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)))
}

/// The fields of a tensor part at `at`: u32 version, i32 descriptor length, and the first
/// descriptor byte (data_type's key, 0x08, in a real one).
fn tensor_fields(bytes: &[u8], at: usize) -> Option<(u64, u64, Option<u8>)> {
    let version = word(bytes, at, 4)?;
    let desc = word(bytes, at.checked_add(4)?, 4)?;
    Some((version, desc, bytes.get(at.checked_add(8)?).copied()))
}

/// A plausible descriptor: 2 bytes to 1 MiB, starting with data_type.
fn plausible_desc(desc: u64, first: Option<u8>) -> bool {
    (2..1 << 20).contains(&desc) && first == Some(0x08)
}

/// A tensor part at `at`: u32 version 0, an i32 descriptor length, then a TensorDesc whose
/// first field is data_type (1, a varint).
fn tensor_at(bytes: &[u8], at: usize) -> Option<bool> {
    let (version, desc, first) = tensor_fields(bytes, at)?;
    Some(version == 0 && plausible_desc(desc, first))
}

/// A SelectedRows: u32 version 0, a u64 row count, the rows, an i64 height, then a tensor part.
fn selected_rows(bytes: &[u8]) -> bool {
    let tensor = || -> Option<bool> {
        let rows = usize::try_from(word(bytes, 4, 8).filter(|&n| n < 1 << 24)?).ok()?;
        tensor_at(bytes, rows.checked_mul(8)?.checked_add(20)?)
    };
    word(bytes, 0, 4) == Some(0) && tensor().unwrap_or(false)
}

/// Where the tensor part of the record at 0 starts: after the u32 version, the u64 LoD level
/// count (under 16) and each level as a u64 byte count and its offsets.
fn tensor_start(bytes: &[u8]) -> Option<usize> {
    let levels = word(bytes, 4, 8).filter(|&n| n < 16)?;
    let mut pos = 12usize;
    for _ in 0..levels {
        let len = usize::try_from(word(bytes, pos, 8)?).ok()?;
        pos = pos.checked_add(8)?.checked_add(len)?;
    }
    Some(pos)
}

/// A parameter stream: u32 version 0, u64 LoD level, each level as a u64 byte count and its
/// offsets, u32 version 0, an i32 descriptor length, then a TensorDesc whose first field is
/// data_type (1, a varint).
fn params(bytes: &[u8]) -> bool {
    let tensor = tensor_start(bytes).and_then(|at| tensor_at(bytes, at));
    word(bytes, 0, 4) == Some(0) && tensor.unwrap_or(false)
}

/// A parameter stream whose first record is intact but for one field: either version word,
/// or a descriptor length that is negative or longer than the bytes after it (the first
/// descriptor byte must then still be data_type's key, or the file end).
fn damaged_params(bytes: &[u8]) -> bool {
    let Some(at) = tensor_start(bytes) else {
        return false;
    };
    let Some((inner, desc, first)) = tensor_fields(bytes, at) else {
        return false;
    };
    let outer_ok = word(bytes, 0, 4) == Some(0);
    let left = (bytes.len() - at.min(bytes.len())).saturating_sub(8) as u64;
    let desc_damaged = (desc >= 1 << 31 || desc > left) && matches!(first, Some(0x08) | None);
    match (outer_ok, inner == 0, plausible_desc(desc, first)) {
        (true, true, false) => desc_damaged,
        (false, true, true) | (true, false, true) => true,
        _ => false,
    }
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
    fn one_damaged_field_of_the_first_record_is_still_a_parameter_stream() {
        let mut record = vec![0; 16];
        record.extend([4, 0, 0, 0, 0x08, 0x05, 0x10, 0x01, 0, 0, 0, 0]);
        let damaged = |at: usize, value: &[u8]| {
            let mut b = record.clone();
            b.splice(at..at + value.len(), value.iter().copied());
            kind(&b)
        };
        assert_eq!(damaged(0, &[1]), Some(Kind::DamagedParams), "outer version");
        assert_eq!(
            damaged(12, &[1]),
            Some(Kind::DamagedParams),
            "tensor version"
        );
        let past_end = (1u32 << 30).to_le_bytes();
        assert_eq!(damaged(16, &past_end), Some(Kind::DamagedParams));
        let negative = (-1i32).to_le_bytes();
        assert_eq!(damaged(16, &negative), Some(Kind::DamagedParams));
        // Two damaged fields, or a descriptor that is not one: not Paddle's.
        let mut two = record.clone();
        two[0] = 1;
        two[12] = 1;
        assert_eq!(kind(&two), None);
        assert_eq!(damaged(20, &[0x41]), None);
        assert_eq!(kind(&[0; 24]), None, "zeros: a descriptor length of 0 fits");
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
