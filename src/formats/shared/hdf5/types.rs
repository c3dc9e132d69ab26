//! Datatype and dataspace messages: an element's type, and the dimensions of a dataset or an
//! attribute.

use super::superblock::File;
use super::{byte, need, number, Failed, Message, Problem};
use crate::formats::shared::bytes::{Cursor, Stop};
use crate::inventory::DType;

/// HDF5 allows at most this many dimensions (`H5S_MAX_RANK`).
pub const MAX_RANK: u8 = 32;

/// An element's type, as far as the reader tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Datatype {
    /// An integer of `size` bytes.
    Integer {
        /// Bytes per element.
        size: u32,
        /// Whether it is signed.
        signed: bool,
        /// Whether it is big-endian.
        big: bool,
    },
    /// A float of `size` bytes.
    Float {
        /// Bytes per element.
        size: u32,
        /// Whether it is big-endian.
        big: bool,
    },
    /// A fixed-length string of `size` bytes.
    String {
        /// Bytes per string.
        size: u32,
    },
    /// A variable-length string: a length and a global heap reference per element.
    VarString,
    /// Any other class (compound, enumeration, array, reference, opaque, variable-length
    /// sequence): its class number and element size.
    Other {
        /// The datatype class.
        class: u8,
        /// Bytes per element.
        size: u32,
    },
}

impl Datatype {
    /// Reads a datatype at the cursor.
    pub fn read(c: &mut Cursor<'_>) -> Result<Self, Failed> {
        let at = c.pos();
        let what = "a datatype";
        let class_version = byte(c, what)?;
        let bits = need(c, 3, what)?;
        let bit0 = bits.first().copied().unwrap_or_default();
        let size = u32::try_from(number(c, 4, what)?).unwrap_or_default();
        let (class, version) = (class_version & 0xf, class_version >> 4);
        if !(1..=5).contains(&version) {
            let message =
                format!("a datatype's version at {at} is {version}; HDF5 defines versions 1 to 5");
            return Err(Stop::Problem(Problem::malformed(at, message)));
        }
        Ok(match class {
            0 => Datatype::Integer {
                size,
                signed: bit0 & 0x8 != 0,
                big: bit0 & 0x1 != 0,
            },
            1 => Datatype::Float {
                size,
                big: bit0 & 0x1 != 0,
            },
            3 => Datatype::String { size },
            // A variable-length type whose type field says string.
            9 if bit0 & 0xf == 1 => Datatype::VarString,
            class => Datatype::Other { class, size },
        })
    }

    /// The type of a dataset's elements, if rtenx has one for it (little-endian numbers).
    pub fn dtype(&self) -> Option<DType> {
        Some(match *self {
            Datatype::Integer { big: true, .. } | Datatype::Float { big: true, .. } => return None,
            Datatype::Integer {
                size: 1, signed, ..
            } => {
                if signed {
                    DType::I8
                } else {
                    DType::U8
                }
            }
            Datatype::Integer {
                size: 2, signed, ..
            } => {
                if signed {
                    DType::I16
                } else {
                    DType::U16
                }
            }
            Datatype::Integer {
                size: 4, signed, ..
            } => {
                if signed {
                    DType::I32
                } else {
                    DType::U32
                }
            }
            Datatype::Integer {
                size: 8, signed, ..
            } => {
                if signed {
                    DType::I64
                } else {
                    DType::U64
                }
            }
            Datatype::Float { size: 2, .. } => DType::F16,
            Datatype::Float { size: 4, .. } => DType::F32,
            Datatype::Float { size: 8, .. } => DType::F64,
            // h5py's booleans are an enumeration of int8.
            Datatype::Other { class: 8, size: 1 } => DType::Bool,
            _ => return None,
        })
    }

    /// Bytes per element as stored (a variable-length string's reference takes a length of 4
    /// bytes, an address and a 4-byte index).
    pub fn size(&self, file: &File<'_>) -> u64 {
        match *self {
            Datatype::Integer { size, .. }
            | Datatype::Float { size, .. }
            | Datatype::String { size }
            | Datatype::Other { size, .. } => u64::from(size),
            Datatype::VarString => 8 + u64::from(file.sb.offset_size),
        }
    }

    /// Its name, for messages.
    pub fn name(&self) -> String {
        match *self {
            Datatype::Integer { size, signed, big } => format!(
                "{}int{}{}",
                if signed { "" } else { "u" },
                u64::from(size) * 8,
                if big { " (big-endian)" } else { "" }
            ),
            Datatype::Float { size, big } => format!(
                "float{}{}",
                u64::from(size) * 8,
                if big { " (big-endian)" } else { "" }
            ),
            Datatype::String { size } => format!("string of {size} bytes"),
            Datatype::VarString => "variable-length string".into(),
            Datatype::Other { class, size } => format!("HDF5 type class {class} of {size} bytes"),
        }
    }
}

/// A dataspace: no elements (null), one (scalar) or an array of `dims`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dataspace {
    /// The dimensions; empty for a scalar.
    pub dims: Vec<u64>,
    /// Whether it holds no element at all.
    pub null: bool,
}

impl Dataspace {
    /// Reads a dataspace at the cursor.
    pub fn read(file: &File<'_>, c: &mut Cursor<'_>) -> Result<Self, Failed> {
        let at = c.pos();
        let what = "a dataspace";
        let version = byte(c, what)?;
        let rank = byte(c, what)?;
        let flags = byte(c, what)?;
        let null = match version {
            1 => {
                need(c, 5, what)?;
                false
            }
            2 => byte(c, what)? == 2,
            v => {
                let message =
                    format!("a dataspace's version at {at} is {v}; HDF5 defines versions 1 and 2");
                return Err(Stop::Problem(Problem::malformed(at, message)));
            }
        };
        if rank > MAX_RANK {
            let message = format!(
                "a dataspace's rank at {} is {rank}; HDF5 allows at most {MAX_RANK}",
                at + 1
            );
            return Err(Stop::Problem(Problem::malformed(at + 1, message)));
        }
        let dims = (0..rank)
            .map(|_| file.length(c, "a dataspace's dimensions"))
            .collect::<Result<Vec<_>, _>>()?;
        if flags & 1 != 0 {
            for _ in 0..rank {
                file.length(c, "a dataspace's maximum dimensions")?;
            }
        }
        Ok(Dataspace { dims, null })
    }

    /// The elements it holds, `None` on overflow.
    pub fn elements(&self) -> Option<u64> {
        match self.null {
            true => Some(0),
            false => self.dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d)),
        }
    }
}

/// Reads the datatype of a message.
pub fn datatype(file: &File<'_>, m: &Message<'_>) -> Result<Datatype, Failed> {
    Datatype::read(&mut m.cursor(file))
}

/// Reads the dataspace of a message.
pub fn dataspace(file: &File<'_>, m: &Message<'_>) -> Result<Dataspace, Failed> {
    Dataspace::read(file, &mut m.cursor(file))
}
