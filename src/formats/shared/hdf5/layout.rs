//! Data layout messages: where a dataset's bytes are.

use super::superblock::File;
use super::{byte, need, number, Failed, Message, Problem};
use crate::formats::shared::bytes::Stop;

/// Where a dataset's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// In the object header: `len` bytes at `at`.
    Compact {
        /// Offset of the first byte.
        at: u64,
        /// Bytes.
        len: u64,
    },
    /// In one stretch of the file: `size` bytes at `address`, or none yet (never written).
    Contiguous {
        /// Offset of the first byte, if allocated.
        address: Option<u64>,
        /// Bytes, if the message says (version 3 and later).
        size: Option<u64>,
    },
    /// In chunks, found through an index the reader does not read.
    Chunked,
    /// In other datasets (a virtual dataset).
    Virtual,
}

impl Layout {
    /// Reads a data layout message.
    pub fn read(file: &File<'_>, m: &Message<'_>) -> Result<Self, Failed> {
        let mut c = m.cursor(file);
        let what = "a data layout message";
        let version = byte(&mut c, what)?;
        let class_at;
        let class = match version {
            1 | 2 => {
                let rank = byte(&mut c, what)?;
                class_at = c.pos();
                let class = byte(&mut c, what)?;
                need(&mut c, 5, what)?;
                let address = match class {
                    0 => None,
                    _ => file.address(&mut c, "a data layout's address")?,
                };
                need(
                    &mut c,
                    u64::from(rank).saturating_mul(4),
                    "a data layout's dimensions",
                )?;
                match class {
                    0 => {
                        let len = number(&mut c, 4, "a compact layout's size")?;
                        let at = c.pos();
                        need(&mut c, len, "a compact layout's data")?;
                        return Ok(Layout::Compact { at, len });
                    }
                    1 => {
                        return Ok(Layout::Contiguous {
                            address,
                            size: None,
                        })
                    }
                    _ => class,
                }
            }
            3 | 4 => {
                class_at = c.pos();
                let class = byte(&mut c, what)?;
                match class {
                    0 => {
                        let len = number(&mut c, 2, "a compact layout's size")?;
                        let at = c.pos();
                        need(&mut c, len, "a compact layout's data")?;
                        return Ok(Layout::Compact { at, len });
                    }
                    1 => {
                        let address = file.address(&mut c, "a contiguous layout's address")?;
                        let size = file.length(&mut c, "a contiguous layout's size")?;
                        return Ok(Layout::Contiguous {
                            address,
                            size: Some(size),
                        });
                    }
                    _ => class,
                }
            }
            v => {
                let message = format!(
                    "a data layout message's version at {} is {v}; HDF5 defines versions 1 to 4",
                    m.at
                );
                return Err(Stop::Problem(Problem::malformed(m.at, message)));
            }
        };
        match class {
            2 => Ok(Layout::Chunked),
            3 if version == 4 => Ok(Layout::Virtual),
            class => {
                let message = format!("a data layout's class at {class_at} is {class}; HDF5 defines 0 (compact), 1 (contiguous), 2 (chunked) and 3 (virtual, version 4)");
                Err(Stop::Problem(Problem::malformed(class_at, message)))
            }
        }
    }
}
