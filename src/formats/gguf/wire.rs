//! GGUF's wire format: numbers in the file's byte order, and strings as a `u64` length
//! followed by that many bytes.

use crate::formats::shared::bytes::{Cursor, Short};

/// A position in a GGUF file that reads forward in the file's byte order.
#[derive(Debug, Clone, Copy)]
pub struct Wire<'a> {
    cursor: Cursor<'a>,
    big_endian: bool,
}

macro_rules! number {
    ($name:ident, $ty:ty) => {
        #[doc = concat!("The next `", stringify!($ty), "`.")]
        pub fn $name(&mut self) -> Result<$ty, Short> {
            let bytes = self.take(std::mem::size_of::<$ty>() as u64)?;
            let raw = bytes.try_into().unwrap_or_default();
            Ok(if self.big_endian {
                <$ty>::from_be_bytes(raw)
            } else {
                <$ty>::from_le_bytes(raw)
            })
        }
    };
}

impl<'a> Wire<'a> {
    /// A reader at `pos` in `bytes`.
    pub fn new(bytes: &'a [u8], pos: u64, big_endian: bool) -> Self {
        Wire {
            cursor: Cursor::new(bytes, pos),
            big_endian,
        }
    }

    /// The absolute position of the next byte.
    pub fn pos(&self) -> u64 {
        self.cursor.pos()
    }

    /// Whether numbers are big-endian.
    pub fn big_endian(&self) -> bool {
        self.big_endian
    }

    /// Bytes left.
    pub fn left(&self) -> u64 {
        self.cursor.remaining()
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: u64) -> Result<&'a [u8], Short> {
        self.cursor.need(n)
    }

    number!(u8, u8);
    number!(u16, u16);
    number!(u32, u32);
    number!(u64, u64);

    /// The next string: its length, then its bytes.
    pub fn string(&mut self) -> Result<&'a [u8], Short> {
        let start = *self;
        let len = self.u64()?;
        self.take(len).map_err(|short| {
            *self = start;
            Short {
                at: start.pos(),
                ..short
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers_in_either_byte_order() {
        let mut bytes = 3u64.to_le_bytes().to_vec();
        bytes.extend(b"abc");
        bytes.extend(7u32.to_be_bytes());
        let mut w = Wire::new(&bytes, 0, false);
        assert_eq!(w.string(), Ok(&b"abc"[..]));
        w.big_endian = true;
        assert_eq!(w.u32(), Ok(7));
        assert_eq!(
            w.u8(),
            Err(Short {
                at: 15,
                needed: 1,
                left: 0
            })
        );
    }

    #[test]
    fn a_string_longer_than_the_file_is_short_and_reads_nothing() {
        let bytes = u64::MAX.to_le_bytes();
        let mut w = Wire::new(&bytes, 0, false);
        assert_eq!(
            w.string(),
            Err(Short {
                at: 0,
                needed: u64::MAX,
                left: 0
            })
        );
        assert_eq!(w.pos(), 0);
    }
}
