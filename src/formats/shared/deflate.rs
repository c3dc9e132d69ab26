//! Whole files compressed with deflate, as joblib's `compress=` writes them: a zlib stream
//! (`compress=True`, `'zlib'`) or a gzip member (`'gzip'`). Inflated only up to a limit the
//! caller sets from its budget, so a small file that inflates to gigabytes costs no more.

use crate::formats::shared::bytes::{self, Cursor};
use miniz_oxide::inflate::{self, TINFLStatus};

/// How a file's deflate data is wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    /// A zlib stream (RFC 1950).
    Zlib,
    /// A gzip member (RFC 1952).
    Gzip,
}

impl Wrapper {
    /// Its name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Wrapper::Zlib => "zlib",
            Wrapper::Gzip => "gzip",
        }
    }
}

/// The wrapper `bytes` start with, if any: a zlib header (deflate, a valid check value) or
/// gzip's magic with deflate.
pub fn wrapper(bytes: &[u8]) -> Option<Wrapper> {
    match bytes {
        [0x1f, 0x8b, 8, ..] => Some(Wrapper::Gzip),
        [cmf, flg, ..] if cmf & 0x0f == 8 && cmf >> 4 <= 7 => {
            let check = u16::from_be_bytes([*cmf, *flg]);
            // No preset dictionary: joblib sets none, and one would not be in the file.
            (check % 31 == 0 && flg & 0x20 == 0).then_some(Wrapper::Zlib)
        }
        _ => None,
    }
}

/// The bytes `bytes` inflate to, at most `limit` of them; `None` if they are not a stream of
/// `wrapper`. The second value says whether that is all of them.
pub fn inflate(bytes: &[u8], wrapper: Wrapper, limit: usize) -> Option<(Vec<u8>, bool)> {
    let result = match wrapper {
        Wrapper::Zlib => inflate::decompress_to_vec_zlib_with_limit(bytes, limit),
        Wrapper::Gzip => inflate::decompress_to_vec_with_limit(gzip_body(bytes)?, limit),
    };
    match result {
        Ok(out) => Some((out, true)),
        Err(e) if e.status == TINFLStatus::HasMoreOutput => Some((e.output, false)),
        // A stream cut short still gives what it held.
        Err(e) if e.status == TINFLStatus::FailedCannotMakeProgress => Some((e.output, false)),
        Err(_) => None,
    }
}

/// The deflate data of a gzip member: after its fixed header and the optional extra field,
/// name, comment and header check its flags announce.
fn gzip_body(bytes: &[u8]) -> Option<&[u8]> {
    let flags = bytes::u8_at(bytes, 3)?;
    let mut cursor = Cursor::new(bytes, 10);
    if flags & 4 != 0 {
        let len = cursor.le_u16()?;
        cursor.take(len.into())?;
    }
    for flag in [8, 16] {
        if flags & flag != 0 {
            let end = memchr::memchr(0, cursor.rest())?;
            cursor.take(end as u64 + 1)?;
        }
    }
    if flags & 2 != 0 {
        cursor.take(2)?;
    }
    Some(cursor.rest())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zlib_and_gzip_streams_are_told_and_inflated_within_a_limit() {
        let data = b"hello hello hello hello";
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(data, 6);
        assert_eq!(wrapper(&zlib), Some(Wrapper::Zlib));
        assert_eq!(
            inflate(&zlib, Wrapper::Zlib, 100),
            Some((data.to_vec(), true))
        );
        let (part, whole) = inflate(&zlib, Wrapper::Zlib, 5).unwrap();
        assert_eq!((part.len(), whole), (5, false));
        let raw = miniz_oxide::deflate::compress_to_vec(data, 6);
        // A gzip header with a file name.
        let mut gzip = vec![0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 3];
        gzip.extend_from_slice(b"name\0");
        gzip.extend_from_slice(&raw);
        assert_eq!(wrapper(&gzip), Some(Wrapper::Gzip));
        assert_eq!(
            inflate(&gzip, Wrapper::Gzip, 100).map(|r| r.0),
            Some(data.to_vec())
        );
        assert_eq!(wrapper(b"\x80\x04"), None);
        assert_eq!(wrapper(b"PK\x03\x04"), None);
    }
}
