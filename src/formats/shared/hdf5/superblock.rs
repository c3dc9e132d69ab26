//! The superblock: where the file starts (after a user block of 0, 512, 1024, ... bytes), the
//! widths of its addresses and lengths, and the root group's object header.

use super::rules::HDF5_TRUNCATED;
use super::{byte, need, number, Failed, Problem, SIGNATURE};
use crate::formats::shared::bytes::{self, Cursor, Stop};

/// What the superblock says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Superblock {
    /// Its version (0 to 3).
    pub version: u8,
    /// Where it is: every address of the file counts from here, as the HDF5 library counts
    /// them.
    pub base: u64,
    /// Bytes in an address.
    pub offset_size: u8,
    /// Bytes in a length.
    pub length_size: u8,
    /// The root group's object header (absolute).
    pub root: u64,
    /// The end of file the superblock records, as it records it, if defined.
    pub eof: Option<u64>,
}

impl Superblock {
    /// Where the superblock of `bytes` is: where an HDF5 signature starts the file or follows
    /// a user block (of 512, 1024, 2048, ... bytes, at most `within`); `None` if none does.
    pub fn find_within(bytes: &[u8], within: u64) -> Option<u64> {
        (std::iter::once(0).chain((9..=30).map(|shift| 1u64 << shift)))
            .take_while(|&at| at < bytes::len(bytes) && at <= within)
            .find(|&at| bytes::range(bytes, at, 8) == Some(SIGNATURE))
    }

    /// Where the superblock of `bytes` is, after a user block of any size.
    pub fn find(bytes: &[u8]) -> Option<u64> {
        Superblock::find_within(bytes, u64::MAX)
    }

    /// Reads the superblock at `base`.
    pub fn read(bytes: &[u8], base: u64) -> Result<Self, Failed> {
        let mut c = Cursor::new(bytes, base.saturating_add(8));
        let version = byte(&mut c, "the superblock's version")?;
        let mut sb = Superblock {
            version,
            base,
            offset_size: 8,
            length_size: 8,
            root: 0,
            eof: None,
        };
        let sizes_at;
        match version {
            0 | 1 => {
                need(&mut c, 4, "the superblock's versions")?;
                sizes_at = c.pos();
                sb.offset_size = byte(&mut c, "the superblock's size of offsets")?;
                sb.length_size = byte(&mut c, "the superblock's size of lengths")?;
                need(&mut c, if version == 0 { 9 } else { 13 }, "the superblock")?;
            }
            2 | 3 => {
                sizes_at = c.pos();
                sb.offset_size = byte(&mut c, "the superblock's size of offsets")?;
                sb.length_size = byte(&mut c, "the superblock's size of lengths")?;
                byte(&mut c, "the superblock's flags")?;
            }
            v => {
                let message = format!(
                    "the superblock's version at {} is {v}; HDF5 defines versions 0 to 3",
                    base + 8
                );
                return Err(Stop::Problem(Problem::malformed(base + 8, message)));
            }
        }
        for (what, size) in [("offsets", sb.offset_size), ("lengths", sb.length_size)] {
            if ![2, 4, 8].contains(&size) {
                let message = format!("the superblock's size of {what} at {sizes_at} is {size}; HDF5 allows 2, 4 or 8");
                return Err(Stop::Problem(Problem::malformed(sizes_at, message)));
            }
        }
        let file = File { bytes, sb };
        let _base_address = file.address(&mut c, "the superblock's base address")?;
        if version < 2 {
            file.address(&mut c, "the superblock's free-space address")?;
        } else {
            file.address(&mut c, "the superblock's extension address")?;
        }
        let eof_at = c.pos();
        let width = sb.offset_size;
        let eof = number(&mut c, width, "the superblock's end-of-file address")?;
        sb.eof = (eof != u64::MAX >> (64 - 8 * u32::from(width))).then_some(eof);
        if version < 2 {
            file.address(&mut c, "the superblock's driver information address")?;
            // The root group's symbol table entry: its name's offset, then its object header.
            file.address(&mut c, "the root group's symbol table entry")?;
        }
        let root_at = c.pos();
        sb.root = file
            .address(&mut c, "the root group's object header address")?
            .ok_or_else(|| {
                let message =
                    format!("the root group's object header address at {root_at} is undefined");
                Stop::Problem(Problem::malformed(root_at, message))
            })?;
        // As the HDF5 library checks it: the stored end of file against the file's size plus
        // the base address.
        let room = bytes::len(bytes).saturating_add(base);
        if let Some(eof) = sb.eof.filter(|&e| e > room) {
            let message = format!("the superblock's end-of-file address at {eof_at} is {eof}; the file has {} bytes (base address {base}): it was cut short", bytes.len());
            return Err(Stop::Problem(Problem::new(
                &HDF5_TRUNCATED,
                eof_at,
                message,
            )));
        }
        Ok(sb)
    }
}

/// An HDF5 file: its bytes and superblock.
#[derive(Debug, Clone, Copy)]
pub struct File<'a> {
    /// The whole file.
    pub bytes: &'a [u8],
    /// Its superblock.
    pub sb: Superblock,
}

impl<'a> File<'a> {
    /// An address of `what` at the cursor, absolute; `None` for the undefined address.
    pub fn address(&self, c: &mut Cursor<'_>, what: &str) -> Result<Option<u64>, Failed> {
        let width = self.sb.offset_size;
        let raw = number(c, width, what)?;
        let undefined = u64::MAX >> (64 - 8 * u32::from(width));
        Ok((raw != undefined).then(|| raw.saturating_add(self.sb.base)))
    }

    /// A length of `what` at the cursor.
    pub fn length(&self, c: &mut Cursor<'_>, what: &str) -> Result<u64, Failed> {
        number(c, self.sb.length_size, what)
    }

    /// A cursor at `at`, the address of `what` read at `from`, which must lie in the file.
    pub fn at(&self, at: u64, what: &str, from: u64) -> Result<Cursor<'a>, Failed> {
        if at >= bytes::len(self.bytes) {
            let message = format!(
                "the address of {what} at {from} is {at}, past the end of the file ({} bytes)",
                self.bytes.len()
            );
            return Err(Stop::Problem(Problem::malformed(from, message)));
        }
        Ok(Cursor::new(self.bytes, at))
    }
}
