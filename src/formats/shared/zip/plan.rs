//! What a remote zip archive's reading needs: the end records (in the last 65,557 bytes, with
//! the zip64 locator and record), the central directory, each member's local header (as
//! [`super::read`] reads it: the header, the name and 128 bytes of extra field, more if its
//! extra field is longer), the signature after the data of a member with a data descriptor,
//! and of each member's data what the format reads (`wanted`, from the start).

use super::{end_at, find_end, zip64_at, zip64_fields, CENTRAL_LEN, END_LEN, LOCAL_LEN};
use crate::formats::shared::bytes::{self, Cursor};
use crate::inventory::ByteRange;
use crate::source::fetched::Fetched;

/// Bytes of a local header's extra field the reader reads at first.
const EXTRA_GUESS: u64 = 128;

/// What a format reads of a member it looks into without reading it whole: the 4 KiB a
/// pickle is told by ([`super::pickle_member`]), or an `.npy` header of up to 10,000 bytes.
/// A member found to be a pickle is then read whole.
pub const MEMBER_START: u64 = 16 << 10;
/// What a format fetches of a member it reads whole (a pickle, a config): all of it up to
/// this, else its start, and the rest only once reading it asks for it.
pub const MEMBER_WHOLE: u64 = 1 << 20;

/// The ranges to fetch of the archive `bytes` (a whole file), of which `fetched` are known;
/// `wanted` says how many bytes of a member's data, from its start, the format reads.
pub fn fetch_plan(
    bytes: &[u8],
    fetched: &Fetched,
    wanted: &dyn Fn(&[u8]) -> u64,
) -> Vec<ByteRange> {
    let len = bytes::len(bytes);
    let tail = ByteRange::between(len.saturating_sub(END_LEN + u64::from(u16::MAX)), len);
    if !fetched.covers(tail.start, tail.len) {
        return vec![tail];
    }
    // The zip64 record the locator points at may lie before the tail.
    let end64 = end_at(bytes).and_then(|at| zip64_at(bytes, at));
    if let Some(end64) = end64 {
        if !fetched.covers(end64, 56) {
            return vec![ByteRange {
                start: end64,
                len: 56,
            }];
        }
    }
    let Some((_, Ok(end))) = find_end(bytes) else {
        return Vec::new();
    };
    let directory = ByteRange::between(
        end.directory,
        end.directory.saturating_add(end.size).min(len),
    );
    if !fetched.covers(directory.start, directory.len) {
        return vec![directory];
    }
    let mut plan = Vec::new();
    let mut cursor = Cursor::new(bytes, end.directory);
    for _ in 0..end.entries.min(end.size / CENTRAL_LEN) {
        let Some(entry) = entry(&mut cursor) else {
            break;
        };
        let guess = LOCAL_LEN + entry.name.len() as u64 + EXTRA_GUESS;
        let header = ByteRange {
            start: entry.header,
            len: guess,
        };
        plan.push(header);
        if !fetched.covers(header.start, header.len) {
            continue;
        }
        let lengths =
            (bytes::le_u16(bytes, entry.header + 26)).zip(bytes::le_u16(bytes, entry.header + 28));
        let Some((n, e)) = lengths else { continue };
        let data = entry.header + LOCAL_LEN + u64::from(n) + u64::from(e);
        plan.push(ByteRange::between(entry.header, data));
        let data_end = data.saturating_add(entry.compressed);
        if entry.flags & super::FLAG_DESCRIPTOR != 0 {
            plan.push(ByteRange {
                start: data_end,
                len: 4,
            });
        }
        let read = wanted(entry.name).min(entry.compressed);
        plan.push(ByteRange {
            start: data,
            len: read,
        });
    }
    plan.retain(|r| r.len > 0 && r.start < len);
    plan
}

/// What the plan needs of a central directory entry.
struct Entry<'a> {
    name: &'a [u8],
    header: u64,
    compressed: u64,
    flags: u16,
}

/// The entry at the cursor, as [`super::read`] reads it.
fn entry<'a>(cursor: &mut Cursor<'a>) -> Option<Entry<'a>> {
    let fixed = cursor.take(CENTRAL_LEN)?;
    let u16_at = |off| bytes::le_u16(fixed, off).unwrap_or(0);
    let u32_at = |off| bytes::le_u32(fixed, off).map_or(0, u64::from);
    let (mut compressed, mut size, mut header) = (u32_at(20), u32_at(24), u32_at(42));
    let name = cursor.take(u16_at(28).into())?;
    let extra = cursor.take(u16_at(30).into())?;
    cursor.take(u16_at(32).into())?;
    let mut zip64 = zip64_fields(extra);
    for field in [&mut size, &mut compressed, &mut header] {
        if *field == 0xFFFF_FFFF {
            *field = zip64.next().unwrap_or(u64::MAX);
        }
    }
    Some(Entry {
        name,
        header,
        compressed,
        flags: u16_at(8),
    })
}
