//! Tar archives read in place, as Python's `tarfile` reads them (the reader `torch.load` opens
//! legacy `.tar` checkpoints with): 512-byte headers with a checksum, names from the ustar
//! prefix, GNU long names (`L`) and pax records (`x`, `path=`), sizes in octal, base-256 or
//! pax `size=`, each member's data padded to 512 bytes. `tarfile.extract(name)` takes the last
//! member of a name.

use crate::formats::shared::bytes::{self, Cursor};
use crate::inventory::ByteRange;

const BLOCK: u64 = 512;

/// One member.
#[derive(Debug, Clone)]
pub struct Member {
    /// Its name, as `tarfile` gives it.
    pub name: Vec<u8>,
    /// Offset of its header.
    pub header: u64,
    /// Its data.
    pub data: ByteRange,
}

/// Whether `bytes` start with a tar header (`ustar` at 257, and a valid checksum).
pub fn is_tar(bytes: &[u8]) -> bool {
    let block = bytes::range(bytes, 0, BLOCK);
    block.is_some_and(|b| b.get(257..262) == Some(b"ustar") && checksum_ok(b))
}

/// The members of the tar archive `bytes`, at most `most`; reading stops at the end marker
/// (a zero block), a bad checksum or a member past the end, as `tarfile` stops.
pub fn members(bytes: &[u8], most: usize) -> Vec<Member> {
    let mut found = Vec::new();
    let mut pos = 0u64;
    let (mut long_name, mut pax_name, mut pax_size) = (None, None, None);
    while found.len() < most {
        let Some(block) = bytes::range(bytes, pos, BLOCK) else {
            break;
        };
        if block.iter().all(|&b| b == 0) || !checksum_ok(block) {
            break;
        }
        let kind = block.get(156).copied().unwrap_or(0);
        let Some(size) = pax_size.take().or_else(|| number(block.get(124..136)?)) else {
            break;
        };
        let data = ByteRange {
            start: pos + BLOCK,
            len: size,
        };
        let Some(content) = bytes::range(bytes, data.start, size) else {
            break;
        };
        match kind {
            b'L' => long_name = Some(c_string(content).to_vec()),
            b'x' => (pax_name, pax_size) = pax(content),
            // Global pax records, directories and links hold no member data to load.
            b'g' | b'5' | b'1' | b'2' => {}
            _ => {
                let name = pax_name
                    .take()
                    .or(long_name.take())
                    .unwrap_or_else(|| ustar_name(block));
                found.push(Member {
                    name,
                    header: pos,
                    data,
                });
            }
        }
        let padded = size.div_ceil(BLOCK).saturating_mul(BLOCK);
        pos = pos.saturating_add(BLOCK).saturating_add(padded);
    }
    found
}

/// The last member named `name`, the one `tarfile.extract` takes.
pub fn last<'m>(members: &'m [Member], name: &[u8]) -> Option<&'m Member> {
    members.iter().rev().find(|m| m.name == name)
}

/// The header's checksum: the sum of its bytes, the checksum field counted as spaces.
fn checksum_ok(block: &[u8]) -> bool {
    let Some(recorded) = block.get(148..156).and_then(number) else {
        return false;
    };
    let sum: u64 = (block.iter().enumerate())
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u64::from(b)
            }
        })
        .sum();
    sum == recorded
}

/// A numeric field: octal digits (space or NUL ended), or base-256 if its first byte has the
/// top bit set (GNU).
fn number(field: &[u8]) -> Option<u64> {
    if let Some((&first, rest)) = field.split_first() {
        if first & 0x80 != 0 {
            let start = u64::from(first & 0x7f);
            return rest
                .iter()
                .try_fold(start, |n, &b| n.checked_mul(256)?.checked_add(u64::from(b)));
        }
    }
    let text = c_string(field);
    let digits = text.trim_ascii();
    if digits.is_empty() {
        return Some(0);
    }
    let digits = std::str::from_utf8(digits).ok()?;
    u64::from_str_radix(digits, 8).ok()
}

/// A ustar name: the prefix, a slash and the name, when there is a prefix.
fn ustar_name(block: &[u8]) -> Vec<u8> {
    let name = c_string(block.get(..100).unwrap_or_default());
    let ustar = block.get(257..262) == Some(b"ustar");
    let prefix = block
        .get(345..500)
        .map(c_string)
        .filter(|p| ustar && !p.is_empty());
    match prefix {
        Some(prefix) => [prefix, b"/", name].concat(),
        None => name.to_vec(),
    }
}

/// The `path` and `size` of a pax extended header's records (`LEN key=value\n`).
fn pax(records: &[u8]) -> (Option<Vec<u8>>, Option<u64>) {
    let (mut path, mut size) = (None, None);
    let mut cursor = Cursor::new(records, 0);
    while let Some(space) = memchr::memchr(b' ', cursor.rest()) {
        let len = std::str::from_utf8(cursor.rest().get(..space).unwrap_or_default())
            .ok()
            .and_then(|l| l.parse::<u64>().ok());
        let Some(record) = len.and_then(|l| cursor.take(l)) else {
            break;
        };
        let body = record.get(space + 1..).unwrap_or_default();
        let body = body.strip_suffix(b"\n").unwrap_or(body);
        if let Some(value) = body.strip_prefix(b"path=") {
            path = Some(value.to_vec());
        } else if let Some(value) = body.strip_prefix(b"size=") {
            size = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
        }
    }
    (path, size)
}

fn c_string(field: &[u8]) -> &[u8] {
    let end = memchr::memchr(0, field).unwrap_or(field.len());
    field.get(..end).unwrap_or(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ustar header for `name` with `size` bytes of data.
    fn header(name: &[u8], size: u64, kind: u8) -> Vec<u8> {
        let mut block = vec![0u8; 512];
        block[..name.len()].copy_from_slice(name);
        block[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        block[156] = kind;
        block[257..263].copy_from_slice(b"ustar\0");
        block[148..156].fill(b' ');
        let sum: u64 = block.iter().map(|&b| u64::from(b)).sum();
        block[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        block
    }

    #[test]
    fn members_are_named_and_placed_as_tarfile_reads_them() {
        let mut tar = header(b"pickle", 3, b'0');
        tar.extend_from_slice(&[1, 2, 3]);
        tar.resize(1024, 0);
        let pax = b"18 path=long/name\n";
        tar.extend(header(b"././@PaxHeader", pax.len() as u64, b'x'));
        tar.extend_from_slice(pax);
        tar.resize(2048, 0);
        tar.extend(header(b"short", 0, b'0'));
        tar.extend(header(b"pickle", 1, b'0'));
        tar.push(9);
        tar.resize(4096, 0);
        tar.extend(vec![0; 1024]);
        assert!(is_tar(&tar));
        let found = members(&tar, 100);
        let names: Vec<&[u8]> = found.iter().map(|m| m.name.as_slice()).collect();
        assert_eq!(names, [&b"pickle"[..], b"long/name", b"pickle"]);
        assert_eq!(found[0].data, ByteRange { start: 512, len: 3 });
        assert_eq!(last(&found, b"pickle").map(|m| m.data.start), Some(3072));
        let mut bad = tar.clone();
        bad[0] = b'q';
        assert!(!is_tar(&bad));
        assert!(members(&tar[..700], 100).len() == 1);
    }
}
