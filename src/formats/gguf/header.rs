//! The header: magic, version and byte order, tensor and key-value counts.

use super::rules::{BYTE_ORDER, COUNT_TOO_LARGE, TRUNCATED, UNSUPPORTED_VERSION};
use super::wire::Wire;
use crate::check::{Findings, Place};
use crate::inventory::{ByteRange, FileId, Inventory, Section, SectionKind};

/// The magic every GGUF file starts with.
pub const MAGIC: &[u8; 4] = b"GGUF";
/// The newest version rtenx reads.
const NEWEST: u32 = 3;
/// The smallest key-value pair: an empty key (8 bytes), its type (4) and a one-byte value.
const MIN_PAIR: u64 = 13;
/// The smallest tensor info: an empty name (8), n_dims (4), type (4) and offset (8).
const MIN_INFO: u64 = 24;

/// What the header says.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    /// Whether the file is big-endian.
    pub big_endian: bool,
    /// Tensor infos that follow the metadata.
    pub tensors: u64,
    /// Key-value pairs that follow the header.
    pub pairs: u64,
    /// Where the first key-value pair starts.
    pub end: u64,
}

/// Reads the header of the GGUF file `bytes` (file `file` of the inventory), recording its
/// fields and section; `None` if it is too short or its counts are unusable.
pub fn read(bytes: &[u8], file: FileId, inv: &mut Inventory, out: &mut Findings) -> Option<Header> {
    let place = |offset: u64, field: &'static str| Place::field(field, offset).in_file(file);
    let mut wire = Wire::new(bytes, 4, false);
    let raw = match wire.u32() {
        Ok(raw) => raw,
        Err(short) => {
            let at = (bytes.len() as u64).min(4);
            out.add(&TRUNCATED, place(at, "version"), short.message("version"));
            return None;
        }
    };
    // A version whose low half is zero has its bytes swapped: the file is big-endian.
    let big_endian = raw & 0xFFFF == 0 && raw != 0;
    let version = if big_endian { raw.swap_bytes() } else { raw };
    if big_endian {
        let message = format!("version {raw:#010x} is {version} byte-swapped: the file is big-endian, which llama.cpp refuses on little-endian machines");
        out.add(&BYTE_ORDER, place(4, "version"), message);
    }
    if !(2..=NEWEST).contains(&version) {
        // Version 1 had 32-bit lengths everywhere; nothing after the version is read.
        let message = format!("GGUF version {version}; llama.cpp reads versions 2 and 3");
        out.add(&UNSUPPORTED_VERSION, place(4, "version"), message);
        return None;
    }
    let mut wire = Wire::new(bytes, 8, big_endian);
    let mut count = |wire: &mut Wire<'_>, field: &'static str| {
        let at = wire.pos();
        wire.u64().map_err(|short| {
            out.add(&TRUNCATED, place(at, field), short.message(field));
        })
    };
    let tensors = count(&mut wire, "tensor_count").ok()?;
    let pairs = count(&mut wire, "kv_count").ok()?;
    let end = wire.pos();
    let left = wire.left();
    inv.format_version = format!("v{version}{}", if big_endian { " big-endian" } else { "" });
    inv.property("version", version, Some(4));
    inv.property(
        "byte order",
        if big_endian {
            "big-endian"
        } else {
            "little-endian"
        },
        Some(4),
    );
    inv.property("tensor_count", tensors, Some(8));
    inv.property("kv_count", pairs, Some(16));
    inv.sections.push(Section {
        file,
        kind: SectionKind::Header,
        range: ByteRange::between(0, end),
    });
    for (field, at, n, min) in [
        ("tensor_count", 8, tensors, MIN_INFO),
        ("kv_count", 16, pairs, MIN_PAIR),
    ] {
        if n.checked_mul(min).is_none_or(|need| need > left) {
            let message = format!(
                "{field} = {n}, but {n} entries take at least {min} bytes each and the file has {left} bytes after the header"
            );
            out.add(&COUNT_TOO_LARGE, place(at, field), message);
            return None;
        }
    }
    Some(Header {
        big_endian,
        tensors,
        pairs,
        end,
    })
}
