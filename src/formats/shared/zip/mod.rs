//! A strict, read-only zip reader for archives whose members are read in place (PyTorch
//! checkpoints, NumPy `.npz`): the central directory, each member's local header checked
//! against it, and each member's absolute data range. What loaders and scanners read
//! differently is reported (ZP rules): a local header naming another file than the central
//! directory, duplicate names, names that escape the extraction folder, encryption flags and
//! an archive whose records do not fit. Members are found by their central directory entry, as
//! Python's `zipfile` and torch's miniz find them: `zipfile` by the exact name, the last member
//! of a name winning ([`Archive::get`]); torch through miniz, ignoring case ([`Archive::locate`]).

mod contents;
mod miniz;
mod plan;
pub mod rules;

pub use contents::pickle_member;
pub use plan::{fetch_plan, MEMBER_START, MEMBER_WHOLE};

use crate::check::Place;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::bytes::{self, Cursor};
use crate::formats::shared::context::Context;
use crate::inventory::{ByteRange, Section, SectionKind};
use rules::{
    DUPLICATE_MEMBER, ENCRYPTED_MEMBER, LOCAL_HEADER_MISMATCH, MEMBER_NAME_ESCAPES, ZIP_INVALID,
};
use std::collections::HashMap;

/// The signature every local file header starts with.
pub const LOCAL_MAGIC: &[u8; 4] = b"PK\x03\x04";
const END_MAGIC: u32 = 0x0605_4b50;
const END64_MAGIC: u32 = 0x0606_4b50;
const LOCATOR_MAGIC: u32 = 0x0706_4b50;
const DESCRIPTOR_MAGIC: u32 = 0x0807_4b50;
/// The end record's fixed part; a comment of up to 65,535 bytes follows.
const END_LEN: u64 = 22;
const LOCAL_LEN: u64 = 30;
/// [`LOCAL_LEN`] as a length in memory.
const LOCAL_BYTES: usize = 30;
const _: () = assert!(LOCAL_BYTES as u64 == LOCAL_LEN);
const CENTRAL_LEN: u64 = 46;
/// General-purpose flag bits: encrypted, sizes in a data descriptor, strong encryption.
const FLAG_ENCRYPTED: u16 = 1;
const FLAG_DESCRIPTOR: u16 = 1 << 3;
const FLAG_STRONG: u16 = 1 << 6;

/// Compression methods.
pub const STORED: u16 = 0;
/// Deflate.
pub const DEFLATED: u16 = 8;

/// One member, as its central directory entry and local header describe it.
#[derive(Debug, Clone)]
pub struct Member<'a> {
    /// Its name in the central directory.
    pub name: &'a [u8],
    /// Offset of its local header.
    pub header: u64,
    /// Where its data starts.
    pub data: u64,
    /// Bytes of data in the archive.
    pub compressed: u64,
    /// Bytes once decompressed.
    pub size: u64,
    /// Compression method.
    pub method: u16,
    /// General-purpose flags.
    pub flags: u16,
    /// Bytes of the data descriptor after the data (0 without one).
    pub descriptor: u64,
}

impl<'a> Member<'a> {
    /// The data range in the archive.
    pub fn range(&self) -> ByteRange {
        ByteRange {
            start: self.data,
            len: self.compressed,
        }
    }

    /// Whether the data is stored as is.
    pub fn stored(&self) -> bool {
        self.method == STORED
    }

    /// Whether a flag says the data is encrypted.
    pub fn encrypted(&self) -> bool {
        self.flags & (FLAG_ENCRYPTED | FLAG_STRONG) != 0
    }

    /// The data as it is in the archive.
    pub fn raw(&self, archive: &'a [u8]) -> Option<&'a [u8]> {
        bytes::range(archive, self.data, self.compressed)
    }
}

/// An archive's members, in central directory order.
#[derive(Debug)]
pub struct Archive<'a> {
    /// The members.
    pub members: Vec<Member<'a>>,
    /// Where the central directory starts and the end records end.
    pub directory: ByteRange,
    /// Each name's last member.
    last: HashMap<&'a [u8], usize>,
    /// The members' names, in directory order.
    names: Vec<&'a [u8]>,
    /// The members' indices sorted as miniz sorts them.
    sorted: Vec<u32>,
}

impl<'a> Archive<'a> {
    /// The last member named `name`: the one `zipfile` reads.
    pub fn get(&self, name: &[u8]) -> Option<&Member<'a>> {
        self.members.get(*self.last.get(name)?)
    }

    /// The member torch reads for `name`: miniz's case-insensitive search ([`miniz`]).
    pub fn locate(&self, name: &[u8]) -> Option<&Member<'a>> {
        self.members
            .get(miniz::locate(&self.names, &self.sorted, name)?)
    }
}

/// Whether `bytes` start as a zip archive.
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(LOCAL_MAGIC)
}

/// Reads the archive at `range` of the model file `file` (all of it, or a stored member that
/// is itself an archive), reporting what is wrong; `None` if it has no usable central
/// directory. Offsets in the members and the findings are the file's.
pub fn read<'a>(cx: &mut Context<'_>, file: &'a [u8], range: ByteRange) -> Option<Archive<'a>> {
    let bytes = bytes::range(file, range.start, range.len)?;
    let at = Offsets(range.start);
    let end = end_record(cx, bytes, at)?;
    let mut members = Vec::new();
    let mut cursor = Cursor::new(bytes, end.directory);
    for index in 0..end.entries {
        if !cx.spend(1, at.place(cursor.pos())) {
            break;
        }
        match central(cx, bytes, at, &mut cursor, index) {
            Some(member) => members.push(member),
            None => break,
        }
    }
    let last = (members.iter().enumerate())
        .map(|(i, m)| (m.name, i))
        .collect();
    let names: Vec<&[u8]> = members.iter().map(|m| m.name).collect();
    let sorted = miniz::sorted(&names);
    let archive = Archive {
        directory: ByteRange::between(at.of(end.directory), range.end()),
        members,
        last,
        names,
        sorted,
    };
    check_names(cx, &archive);
    Some(archive)
}

/// The names of the first `most` members of the archive `bytes`, without reporting anything:
/// from the central directory, or, when that cannot be found (a truncated archive), the first
/// local header's. For detection.
pub fn peek_names(bytes: &[u8], most: usize) -> Vec<&[u8]> {
    let Some((_, Ok(end))) = find_end(bytes) else {
        let len = bytes::le_u16(bytes, 26).map_or(0, u64::from);
        let first = bytes::range(bytes, LOCAL_LEN, len).filter(|_| is_zip(bytes));
        return first.into_iter().collect();
    };
    let mut cursor = Cursor::new(bytes, end.directory);
    let mut names = Vec::new();
    for _ in 0..end.entries.min(most as u64) {
        let Some(fixed) = cursor.take(CENTRAL_LEN) else {
            break;
        };
        let field = |off| bytes::le_u16(fixed, off).map_or(0, u64::from);
        let Some(name) = cursor.take(field(28)) else {
            break;
        };
        if cursor.take(field(30) + field(32)).is_none() {
            break;
        }
        names.push(name);
    }
    names
}

/// Adds an archive's base offset to positions inside it.
#[derive(Debug, Clone, Copy)]
struct Offsets(u64);

impl Offsets {
    fn of(self, pos: u64) -> u64 {
        self.0.saturating_add(pos)
    }

    fn place(self, pos: u64) -> Place {
        Place::at(self.of(pos))
    }
}

/// What the end records say.
struct End {
    directory: u64,
    size: u64,
    entries: u64,
    /// Where the end records start (the zip64 one, if any).
    records: u64,
}

/// The end of central directory record (from the end of `bytes`) and what it, or the zip64
/// record it defers to, says; `Err` with the zip64 locator's position if that is unusable.
fn find_end(bytes: &[u8]) -> Option<(u64, Result<End, u64>)> {
    let at = end_at(bytes)?;
    let u16_at = |off: u64| bytes::le_u16(bytes, at + off).map_or(0, u64::from);
    let u32_at = |off: u64| bytes::le_u32(bytes, at + off).map_or(0, u64::from);
    let end = End {
        entries: u16_at(10),
        size: u32_at(12),
        directory: u32_at(16),
        records: at,
    };
    let deferred = end.entries == 0xFFFF || end.directory == 0xFFFF_FFFF || end.size == 0xFFFF_FFFF;
    // Writers such as torch's add zip64 records whether or not the end record defers to them.
    let locator = at.saturating_sub(20);
    let end64 = zip64_at(bytes, at).filter(|&e| bytes::le_u32(bytes, e) == Some(END64_MAGIC));
    let end = match end64 {
        Some(end64) => {
            let u64_at = |off: u64| bytes::le_u64(bytes, end64 + off).unwrap_or(0);
            End {
                entries: u64_at(32),
                size: u64_at(40),
                directory: u64_at(48),
                records: end64,
            }
        }
        None if deferred => return Some((at, Err(locator))),
        None => end,
    };
    Some((at, Ok(end)))
}

/// Where the end of central directory record is: the last signature in the last bytes
/// that can hold it and its comment.
fn end_at(bytes: &[u8]) -> Option<u64> {
    let len = bytes::len(bytes);
    let earliest = len.saturating_sub(END_LEN + u64::from(u16::MAX));
    (earliest..=len.saturating_sub(END_LEN))
        .rev()
        .find(|&at| bytes::le_u32(bytes, at) == Some(END_MAGIC))
}

/// Where the zip64 end record is, as the locator before the end record at `at` says.
fn zip64_at(bytes: &[u8], at: u64) -> Option<u64> {
    let locator = at.checked_sub(20)?;
    (bytes::le_u32(bytes, locator) == Some(LOCATOR_MAGIC))
        .then(|| bytes::le_u64(bytes, locator + 8))
        .flatten()
}

/// The end records, reporting what does not fit.
fn end_record(cx: &mut Context<'_>, bytes: &[u8], offsets: Offsets) -> Option<End> {
    let len = bytes::len(bytes);
    let field = |name, pos| Place::field(name, offsets.of(pos));
    let Some((at, end)) = find_end(bytes) else {
        let message = format!("no end of central directory record in the last {} bytes: the archive is cut short or not a zip", len.min(END_LEN + u64::from(u16::MAX)));
        cx.report(
            &ZIP_INVALID,
            field("end of central directory", len),
            message,
        );
        return None;
    };
    let comment = bytes::le_u16(bytes, at + 20).map_or(0, u64::from);
    if at + END_LEN + comment != len {
        let message = format!("the end of central directory record at {} and its {comment}-byte comment end at {}, but the archive ends at {}", offsets.of(at), offsets.of(at + END_LEN + comment), offsets.of(len));
        cx.report(&ZIP_INVALID, field("end of central directory", at), message);
    }
    let mut end = match end {
        Ok(end) => end,
        Err(locator) => {
            let message = format!("the end record at {} defers to a zip64 end record, but no zip64 locator at {} points at one", offsets.of(at), offsets.of(locator));
            cx.report(&ZIP_INVALID, field("zip64 end locator", locator), message);
            return None;
        }
    };
    if end.directory.checked_add(end.size) != Some(end.records) {
        let message = format!("the central directory is declared at {} with {} bytes, but the end records start at {}: data before or inside the archive shifts every offset", offsets.of(end.directory), end.size, offsets.of(end.records));
        cx.report(
            &ZIP_INVALID,
            field("central directory", end.directory.min(len)),
            message,
        );
        if end.directory >= len {
            return None;
        }
    }
    // An entry takes at least 46 bytes: a count beyond that is not believed.
    let most = end.size / CENTRAL_LEN;
    if end.entries > most {
        let message = format!("the end record declares {} members; its {}-byte central directory holds at most {most}", end.entries, end.size);
        cx.report(&ZIP_INVALID, field("entry count", at + 10), message);
        end.entries = most;
    }
    Some(end)
}

/// The central directory entry at the cursor, and its local header.
fn central<'a>(
    cx: &mut Context<'_>,
    bytes: &'a [u8],
    offsets: Offsets,
    cursor: &mut Cursor<'a>,
    index: u64,
) -> Option<Member<'a>> {
    let at = cursor.pos();
    let fixed = cursor
        .take(CENTRAL_LEN)
        .filter(|f| f.starts_with(b"PK\x01\x02"));
    let Some(fixed) = fixed else {
        let message = format!(
            "central directory entry {index} at {} has no PK\\1\\2 signature or is cut short",
            offsets.of(at)
        );
        cx.report(
            &ZIP_INVALID,
            Place::field("central directory entry", offsets.of(at)),
            message,
        );
        return None;
    };
    let u16_at = |off: u64| bytes::le_u16(fixed, off).unwrap_or(0);
    let u32_at = |off: u64| bytes::le_u32(fixed, off).map_or(0, u64::from);
    let (flags, method) = (u16_at(8), u16_at(10));
    let (mut compressed, mut size, mut header) = (u32_at(20), u32_at(24), u32_at(42));
    let (name_len, extra_len, comment_len) = (u16_at(28), u16_at(30), u16_at(32));
    let name = cursor.take(name_len.into());
    let extra = cursor.take(extra_len.into());
    let (Some(name), Some(extra), Some(_)) = (name, extra, cursor.take(comment_len.into())) else {
        let message = format!(
            "central directory entry {index} at {} runs past the end of the archive",
            offsets.of(at)
        );
        cx.report(
            &ZIP_INVALID,
            Place::field("central directory entry", offsets.of(at)),
            message,
        );
        return None;
    };
    // Zip64: the 64-bit values of the fields set to 0xFFFFFFFF, in this order.
    let mut zip64 = zip64_fields(extra);
    for field in [&mut size, &mut compressed, &mut header] {
        if *field == 0xFFFF_FFFF {
            *field = zip64.next().unwrap_or(u64::MAX);
        }
    }
    let expected = Expected {
        name,
        entry: offsets.of(at),
        flags,
        method,
    };
    let local = local(cx, bytes, offsets, header, &expected)?;
    let data_end = local
        .data
        .checked_add(compressed)
        .filter(|&e| e <= bytes::len(bytes));
    let Some(data_end) = data_end else {
        let message = format!("member \"{}\" declares {compressed} bytes of data at {}, past the end of the archive at {}", excerpt(name, EXCERPT), offsets.of(local.data), offsets.of(bytes::len(bytes)));
        cx.report(&ZIP_INVALID, offsets.place(header), message);
        return None;
    };
    let descriptor = if flags & FLAG_DESCRIPTOR != 0 {
        // Read from the file, as the local header was: the data may be megabytes long.
        let next =
            bytes::range(bytes, data_end, 4).map(|_| cx.file.read_at(offsets.of(data_end), 4));
        let signed = next.is_some_and(|sig| sig == DESCRIPTOR_MAGIC.to_le_bytes());
        let wide = local.zip64;
        match (signed, wide) {
            (true, true) => 24,
            (true, false) => 16,
            (false, true) => 20,
            (false, false) => 12,
        }
    } else {
        0
    };
    Some(Member {
        name,
        header: offsets.of(header),
        data: offsets.of(local.data),
        compressed,
        size,
        method,
        flags,
        descriptor,
    })
}

/// What a local header adds: where the data starts, and whether sizes are 64-bit.
struct Local {
    data: u64,
    zip64: bool,
}

/// Reads the local header at `header` and compares it with the central entry.
/// What a central directory entry says its local header holds.
struct Expected<'a> {
    name: &'a [u8],
    /// The central entry's absolute offset.
    entry: u64,
    flags: u16,
    method: u16,
}

fn local(
    cx: &mut Context<'_>,
    bytes: &[u8],
    offsets: Offsets,
    header: u64,
    expected: &Expected<'_>,
) -> Option<Local> {
    let &Expected {
        name,
        entry,
        flags,
        method,
    } = expected;
    let shown = || excerpt(name, EXCERPT).into_owned();
    // Local headers lie megabytes apart: they are read from the file rather than paged in
    // from the map with the pages around them (`ModelFile::read_at`), and never past this
    // archive's bytes (a nested archive ends before the file does). One read takes the header,
    // the name and an extra field of the usual size; a longer one takes a second.
    let start = header;
    let (place, header) = (offsets.place(start), offsets.of(start));
    let left = usize::try_from(bytes::len(bytes).saturating_sub(start)).unwrap_or(usize::MAX);
    let guess = LOCAL_BYTES + name.len() + 128;
    let mut head = cx.file.read_at(header, guess.min(left));
    let lengths = bytes::le_u16(&head, 26).zip(bytes::le_u16(&head, 28));
    let wanted = lengths.map_or(0, |(n, e)| LOCAL_BYTES + usize::from(n) + usize::from(e));
    if wanted > head.len() {
        head = cx.file.read_at(header, wanted.min(left));
    }
    let mut cursor = Cursor::new(&head, 0);
    let fixed = cursor
        .take(LOCAL_LEN)
        .filter(|f| f.starts_with(LOCAL_MAGIC));
    let Some(fixed) = fixed else {
        // The header may lie past the end: the central entry that points at it is the place.
        let shown = shown();
        let message = format!("member \"{shown}\"'s central directory entry at {entry} points at a local header at {header}, which has no PK\\3\\4 signature or is cut short");
        cx.report(&ZIP_INVALID, Place::at(entry), message);
        return None;
    };
    let u16_at = |off: u64| bytes::le_u16(fixed, off).unwrap_or(0);
    let (local_flags, local_method) = (u16_at(6), u16_at(8));
    let (name_len, extra_len) = (u16_at(26), u16_at(28));
    let local_name = cursor.take(name_len.into());
    let extra = cursor.take(extra_len.into());
    let (Some(local_name), Some(extra)) = (local_name, extra) else {
        let shown = shown();
        let message =
            format!("member \"{shown}\"'s local header at {header} runs past the end of the file");
        cx.report(&ZIP_INVALID, place, message);
        return None;
    };
    if local_name != name {
        let shown = shown();
        let message = format!("the local header at {header} names \"{}\", but its central directory entry names \"{shown}\": zipfile and torch read it as \"{shown}\", a tool that walks local headers as the other", excerpt(local_name, EXCERPT));
        cx.report(&LOCAL_HEADER_MISMATCH, place, message);
    } else if local_method != method || local_flags & !FLAG_DESCRIPTOR != flags & !FLAG_DESCRIPTOR {
        let shown = shown();
        let message = format!("member \"{shown}\"'s local header at {header} says method {local_method}, flags {local_flags:#06x}; its central directory entry says method {method}, flags {flags:#06x}");
        cx.report(&LOCAL_HEADER_MISMATCH, place, message);
    }
    let zip64 = extra_fields(extra).any(|(id, _)| id == 1);
    Some(Local {
        data: start + cursor.pos(),
        zip64,
    })
}

/// The (id, data) fields of an extra field block.
fn extra_fields(extra: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    let mut cursor = Cursor::new(extra, 0);
    std::iter::from_fn(move || {
        let id = cursor.le_u16()?;
        let len = cursor.le_u16()?;
        Some((id, cursor.take(len.into())?))
    })
}

/// The 64-bit values of the zip64 extra field (id 1), in order.
fn zip64_fields(extra: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let data = extra_fields(extra).find_map(|(id, data)| (id == 1).then_some(data));
    let mut cursor = Cursor::new(data.unwrap_or_default(), 0);
    std::iter::from_fn(move || cursor.le_u64())
}

/// Reports names a reader cannot tell apart: the same name twice, or names equal but for case,
/// which torch's reader matches as one. Such names lie next to each other in miniz's order.
fn check_duplicates(cx: &mut Context<'_>, archive: &Archive<'_>) {
    let member = |i: &u32| archive.members.get(*i as usize);
    let name = |i: &u32| member(i).map_or(&b""[..], |m| m.name);
    let mut start = 0;
    while let Some(head) = archive.sorted.get(start) {
        let rest = archive.sorted.get(start..).unwrap_or_default();
        let len = (rest.iter())
            .take_while(|i| name(i).eq_ignore_ascii_case(name(head)))
            .count()
            .max(1);
        let mut group: Vec<u32> = rest.get(..len).unwrap_or_default().to_vec();
        group.sort_unstable();
        if let Some((first, rest)) = group.split_first() {
            for later in rest {
                if let (Some(first), Some(later)) = (member(first), member(later)) {
                    report_duplicate(cx, first, later);
                }
            }
        }
        start += len;
    }
}

fn report_duplicate(cx: &mut Context<'_>, first: &Member<'_>, later: &Member<'_>) {
    let shown = excerpt(later.name, EXCERPT);
    let message = if first.name == later.name {
        format!("a second member named \"{shown}\" at {}, after the one at {}: zipfile reads the last, torch (miniz) the one its sorted search meets first, a tool that takes the first sees another file", later.header, first.header)
    } else {
        format!("member \"{shown}\" at {} differs from \"{}\" at {} only in case: torch's reader (miniz) matches names without case and reads one of them for both, zipfile tells them apart, and a case-insensitive file system keeps one", later.header, excerpt(first.name, EXCERPT), first.header)
    };
    cx.report(&DUPLICATE_MEMBER, Place::at(later.header), message);
}

/// Reports duplicate names, names that escape the folder an archive is extracted to, and
/// encrypted members.
fn check_names(cx: &mut Context<'_>, archive: &Archive<'_>) {
    check_duplicates(cx, archive);
    for member in &archive.members {
        let shown = excerpt(member.name, EXCERPT);
        let place = Place::at(member.header);
        if escapes(member.name) {
            let message = format!("member \"{shown}\" at {} has an absolute name or a .. component: extracting the archive writes outside its folder", member.header);
            cx.report(&MEMBER_NAME_ESCAPES, place, message);
        }
        if member.encrypted() {
            let message = format!("member \"{shown}\" at {} has the encryption flag set (flags {:#06x}): torch refuses it, and a scanner that reads the bytes as they are sees another file than a loader that decrypts them", member.header, member.flags);
            cx.report(&ENCRYPTED_MEMBER, place, message);
        }
    }
}

/// Whether a member name is absolute or has a `..` component, with `/` or `\` separators.
pub fn escapes(name: &[u8]) -> bool {
    let absolute = name.starts_with(b"/")
        || name.starts_with(b"\\")
        || matches!(name, [drive, b':', ..] if drive.is_ascii_alphabetic());
    absolute
        || name
            .split(|&b| b == b'/' || b == b'\\')
            .any(|part| part == b"..")
}

/// Declares the archive's sections: each member's local header (and data descriptor), its
/// data as `kind` says, and the central directory.
pub fn declare(
    cx: &mut Context<'_>,
    archive: &Archive<'_>,
    kind: impl Fn(&Member<'_>) -> SectionKind,
) {
    let section = |kind, range| Section {
        file: 0,
        kind,
        range,
    };
    for m in &archive.members {
        let sections = [
            section(SectionKind::Header, ByteRange::between(m.header, m.data)),
            section(kind(m), m.range()),
            section(
                SectionKind::Header,
                ByteRange {
                    start: m.range().end(),
                    len: m.descriptor,
                },
            ),
        ];
        cx.inv
            .sections
            .extend(sections.into_iter().filter(|s| s.range.len > 0));
    }
    let directory = section(SectionKind::Header, archive.directory);
    cx.inv.sections.push(directory);
}

/// A deflated member decompressed, up to `limit` bytes; `None` if it is not deflate data.
pub fn inflate(archive: &[u8], member: &Member<'_>, limit: u64) -> Option<Inflated> {
    let raw = member.raw(archive)?;
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    match miniz_oxide::inflate::decompress_to_vec_with_limit(raw, limit) {
        Ok(bytes) => Some(Inflated { bytes, whole: true }),
        Err(e) if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput => Some(Inflated {
            bytes: e.output,
            whole: false,
        }),
        Err(_) => None,
    }
}

/// A deflated member decompressed and paid for from the model's budget; never more than the
/// budget has left is inflated, so a member that would pass it costs no more than the budget
/// (RX016 says where reading stopped). `None` if it is not deflate data or the budget is out.
pub fn inflate_paid(cx: &mut Context<'_>, archive: &[u8], member: &Member<'_>) -> Option<Vec<u8>> {
    let place = Place::at(member.header);
    let left = cx.budget.bytes_left();
    let found = inflate(archive, member, left.saturating_add(1))?;
    // One byte past what is left makes the budget refuse it.
    cx.budget
        .copy(found.bytes.len() as u64, place, cx.out)
        .then_some(found.bytes)
}

/// A member's decompressed bytes.
pub struct Inflated {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Whether they are all of it, rather than the first `limit`.
    pub whole: bool,
}
