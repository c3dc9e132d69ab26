//! Legacy `.tar` checkpoints, which `torch.load(weights_only=False)` still opens first
//! (`legacy_load` in `torch/serialization.py`): a tar of `sys_info`, `storages`, `tensors` and
//! `pickle`, each a stream of pickles with raw bytes between some of them. torch unpickles
//! `storages` (a count, then each storage's `(key, location, storage type)` followed by an
//! 8-byte element count and the elements), `tensors` (a count, then each tensor's `(key,
//! storage id, type)` followed by its sizes, strides and offset), then `pickle`. Every pickle it
//! reads is judged here, in the members `tarfile.extract` takes (the last of a name);
//! `weights_only=True` refuses the file.

use super::dtypes;
use super::rules::WEIGHTS_ONLY_REFUSES;
use crate::check::Place;
use crate::formats::shared::bytes::{self, Cursor};
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::{self, Options, Pickle, Source, Tree};
use crate::formats::shared::tar::{self, Member};
use crate::inventory::{ByteRange, Section, SectionKind};

/// Reads the legacy tar checkpoint of `cx`.
pub fn read(cx: &mut Context<'_>) {
    let bytes = cx.bytes;
    cx.inv.format_version = "legacy tar".to_owned();
    // Member data is padded to 512-byte blocks.
    cx.inv.preferred_alignment = Some(512);
    // A member takes at least one 512-byte block: the file bounds the count.
    let members = tar::members(bytes, usize::MAX);
    if !cx.spend(members.len() as u64, Place::at(0)) {
        return;
    }
    for member in &members {
        let header = ByteRange {
            start: member.header,
            len: 512,
        };
        let sections = [
            (SectionKind::Header, header),
            (SectionKind::ModelData, member.data),
        ];
        let sections = sections.map(|(kind, range)| Section {
            file: 0,
            kind,
            range,
        });
        cx.inv.sections.extend(sections);
    }
    // The end-of-archive blocks, and the record padding after them.
    let end = members
        .last()
        .map_or(0, |m| m.data.end().div_ceil(512) * 512);
    cx.inv.sections.push(Section {
        file: 0,
        kind: SectionKind::Header,
        range: ByteRange::between(end, bytes::len(bytes)),
    });
    let message = "torch.load(weights_only=True) refuses the file (\"Cannot use weights_only=True with files saved in the legacy .tar format\"), so it loads only with weights_only=False, which runs what its pickles import: a legacy .tar checkpoint";
    cx.report(&WEIGHTS_ONLY_REFUSES, Place::at(0), message);
    if let Some(m) = tar::last(&members, b"storages") {
        stream(cx, m, Kind::Storages);
    }
    if let Some(m) = tar::last(&members, b"tensors") {
        stream(cx, m, Kind::Tensors);
    }
    if let Some(m) = tar::last(&members, b"pickle") {
        let src = source(bytes, m);
        let options = Options::reporting(true);
        let p = pickle::read(cx, &src, options);
        pickle::judge(cx, &src, &p, options, &|_| None);
    }
}

/// The pickles of `member` start at its data.
fn source<'b>(bytes: &'b [u8], member: &Member) -> Source<'b> {
    let end = member.data.end();
    Source::file(
        bytes::range(bytes, 0, end).unwrap_or_default(),
        member.data.start,
    )
}

/// The members torch reads as a count and items.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Storages,
    Tensors,
}

/// Reads a member as torch does: a count, then for each item a pickle and the raw bytes that
/// follow it, then, for `storages`, one more pickle. Every pickle is judged; reading stops
/// where one cannot be read.
fn stream(cx: &mut Context<'_>, member: &Member, kind: Kind) {
    let bytes = cx.bytes;
    let src = source(bytes, member);
    let options = Options::reporting(false);
    let read = |cx: &mut Context<'_>, at: u64| {
        let src = Source {
            start: at,
            ..src.clone()
        };
        let p = pickle::read(cx, &src, options);
        pickle::judge(cx, &src, &p, options, &|_| None);
        p
    };
    let count = read(cx, member.data.start);
    let Some(n) = count.root.and_then(|r| count.int(r)) else {
        return;
    };
    let mut at = count.end;
    for _ in 0..n.max(0) {
        let item = read(cx, at);
        if item.root.is_none() {
            return;
        }
        let next = match kind {
            Kind::Storages => storage_bytes(&item, src.bytes, item.end),
            Kind::Tensors => tensor_bytes(src.bytes, item.end),
        };
        let Some(next) = next else { return };
        at = next;
    }
    if kind == Kind::Storages {
        // The storage views.
        read(cx, at);
    }
}

/// After a storage's pickle: an 8-byte element count and the elements, of the size its
/// storage type (the tuple's third item) gives.
fn storage_bytes(p: &Pickle<'_>, bytes: &[u8], at: u64) -> Option<u64> {
    let root = p.root?;
    let class = p.global(*p.items(root)?.get(2)?)?;
    let element = dtypes::of_storage(&class)?.byte_size(1)?;
    let mut cursor = Cursor::new(bytes, at);
    let count = cursor.le_u64()?;
    cursor.take(count.checked_mul(element)?)?;
    Some(cursor.pos())
}

/// After a tensor's pickle: its dimension count (4 bytes and 4 unused), then as many 8-byte
/// sizes and strides, then an 8-byte storage offset.
fn tensor_bytes(bytes: &[u8], at: u64) -> Option<u64> {
    let mut cursor = Cursor::new(bytes, at);
    let ndim = u64::from(cursor.le_u32()?);
    cursor.take(4)?;
    cursor.take(ndim.checked_mul(16)?.checked_add(8)?)?;
    Some(cursor.pos())
}
