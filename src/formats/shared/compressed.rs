//! Whole files compressed as joblib's `compress=` writes them (`joblib/compressor.py`): a zlib
//! stream (`compress=True`, `'zlib'`), a gzip member, bzip2, xz, legacy lzma or an LZ4 frame,
//! each told by the prefix joblib itself looks for. They are decompressed only up to a limit
//! the caller sets from its budget, so a small file that inflates to gigabytes costs no more.

use crate::formats::shared::bytes::{self, Cursor};
use miniz_oxide::inflate::{self, TINFLStatus};
use std::io::{Read, Write};

/// How a file's data is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    /// A zlib stream (RFC 1950).
    Zlib,
    /// A gzip member (RFC 1952).
    Gzip,
    /// bzip2.
    Bzip2,
    /// An xz container.
    Xz,
    /// The legacy `.lzma` ("LZMA alone") format.
    Lzma,
    /// An LZ4 frame.
    Lz4,
}

impl Wrapper {
    /// Its name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Wrapper::Zlib => "zlib",
            Wrapper::Gzip => "gzip",
            Wrapper::Bzip2 => "bz2",
            Wrapper::Xz => "xz",
            Wrapper::Lzma => "lzma",
            Wrapper::Lz4 => "lz4",
        }
    }
}

/// The wrapper `bytes` start with, if any: a zlib header (deflate, a valid check value, no
/// preset dictionary), or the prefix of one of joblib's other compressors.
pub fn wrapper(bytes: &[u8]) -> Option<Wrapper> {
    match bytes {
        [0x1f, 0x8b, 8, ..] => Some(Wrapper::Gzip),
        [b'B', b'Z', b'h', ..] => Some(Wrapper::Bzip2),
        [0xfd, b'7', b'z', b'X', b'Z', 0, ..] => Some(Wrapper::Xz),
        [b']', 0, 0, ..] => Some(Wrapper::Lzma),
        [0x04, 0x22, 0x4d, 0x18, ..] => Some(Wrapper::Lz4),
        [cmf, flg, ..] if cmf & 0x0f == 8 && cmf >> 4 <= 7 => {
            let check = u16::from_be_bytes([*cmf, *flg]);
            (check % 31 == 0 && flg & 0x20 == 0).then_some(Wrapper::Zlib)
        }
        _ => None,
    }
}

/// The bytes `bytes` decompress to, at most `limit` of them; `None` if they are not a stream
/// of `wrapper`. The second value says whether that is all of them.
pub fn inflate(bytes: &[u8], wrapper: Wrapper, limit: usize) -> Option<(Vec<u8>, bool)> {
    let deflate = |result: Result<Vec<u8>, inflate::DecompressError>| match result {
        Ok(out) => Some((out, true)),
        Err(e) if e.status == TINFLStatus::HasMoreOutput => Some((e.output, false)),
        // A stream cut short still gives what it held.
        Err(e) if e.status == TINFLStatus::FailedCannotMakeProgress => Some((e.output, false)),
        Err(_) => None,
    };
    match wrapper {
        Wrapper::Zlib => deflate(inflate::decompress_to_vec_zlib_with_limit(bytes, limit)),
        Wrapper::Gzip => deflate(inflate::decompress_to_vec_with_limit(
            gzip_body(bytes)?,
            limit,
        )),
        Wrapper::Bzip2 => read_up_to(bzip2_rs::DecoderReader::new(bytes), limit),
        Wrapper::Lz4 => read_up_to(lz4_flex::frame::FrameDecoder::new(bytes), limit),
        Wrapper::Xz | Wrapper::Lzma => {
            let mut out = Limited {
                out: Vec::new(),
                limit,
            };
            let mut input = std::io::BufReader::new(bytes);
            let done = match wrapper {
                Wrapper::Xz => lzma_rs::xz_decompress(&mut input, &mut out).is_ok(),
                _ => lzma_rs::lzma_decompress(&mut input, &mut out).is_ok(),
            };
            (done || !out.out.is_empty()).then_some((out.out, done))
        }
    }
}

/// Reads `reader` up to `limit` bytes; what it gave before an error, if anything.
fn read_up_to(reader: impl Read, limit: usize) -> Option<(Vec<u8>, bool)> {
    let mut out = Vec::new();
    let wanted = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let result = reader.take(wanted).read_to_end(&mut out);
    let whole = result.is_ok() && out.len() <= limit;
    out.truncate(limit);
    (result.is_ok() || !out.is_empty()).then_some((out, whole))
}

/// A writer that takes `limit` bytes and then refuses more, stopping the decoder.
struct Limited {
    out: Vec<u8>,
    limit: usize,
}

impl Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = self.limit.saturating_sub(self.out.len());
        if room == 0 && !buf.is_empty() {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        let taken = buf.get(..room.min(buf.len())).unwrap_or_default();
        self.out.extend_from_slice(taken);
        Ok(taken.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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

    #[test]
    fn a_limit_stops_every_decoder() {
        let data = vec![b'x'; 100_000];
        let mut lz4 = lz4_flex::frame::FrameEncoder::new(Vec::new());
        lz4.write_all(&data).unwrap();
        let lz4 = lz4.finish().unwrap();
        assert_eq!(wrapper(&lz4), Some(Wrapper::Lz4));
        let (head, whole) = inflate(&lz4, Wrapper::Lz4, 10).unwrap();
        assert_eq!((head.len(), whole), (10, false));
        assert_eq!(
            inflate(&lz4, Wrapper::Lz4, 1 << 20).map(|r| r.0.len()),
            Some(100_000)
        );
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &data[..], &mut xz).unwrap();
        assert_eq!(wrapper(&xz), Some(Wrapper::Xz));
        let (head, whole) = inflate(&xz, Wrapper::Xz, 10).unwrap();
        assert_eq!((head.len(), whole), (10, false));
        assert!(inflate(b"BZh9garbage", Wrapper::Bzip2, 10).is_none());
    }
}
