//! Legacy checkpoints (`torch.save(..., _use_new_zipfile_serialization=False)`): five pickles
//! in a row (the magic number, the protocol version 1001, a dict of system facts, the object,
//! the sorted storage keys), then each storage as a `u64` element count and its bytes.

use super::dtypes;
use super::rules::{legacy_refused, LEGACY_HEADER};
use super::tensors::{self, Stored};
use super::weights_only;
use crate::check::Place;
use crate::escape::{excerpt, EXCERPT_SHORT};
use crate::formats::shared::bytes::{self, Cursor};
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::{self, Options, Pickle, Source, Tree, Value};
use crate::inventory::{ByteRange, DType, DataRange, Section, SectionKind};
use std::collections::HashMap;

/// `PROTO 2` and `LONG1` of 10 bytes: how the magic number starts.
pub const START: &[u8] = b"\x80\x02\x8a\x0a";
/// The magic number 0x1950a86a20f9469cfc6c, little-endian as `LONG1` writes it.
pub const MAGIC: &[u8] = b"\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";
/// The protocol version legacy `torch.save` writes and `torch.load` accepts.
const PROTOCOL: i64 = 1001;

/// Reads the legacy checkpoint of `cx`.
pub fn read(cx: &mut Context<'_>) {
    let bytes = cx.bytes;
    if !bytes.starts_with(START) {
        return bare(cx);
    }
    cx.inv.format_version = "legacy".to_owned();
    // Storages follow 8-byte counts, unaligned: torch copies each.
    cx.inv.preferred_alignment = Some(1);
    let magic = bytes::range(bytes, START.len() as u64, MAGIC.len() as u64);
    if magic != Some(MAGIC) {
        let found: String = magic
            .unwrap_or_default()
            .iter()
            .rev()
            .map(|b| format!("{b:02x}"))
            .collect();
        let why =
            format!("the magic number LONG1 at byte 2 reads 0x{found}, not 0x1950a86a20f9469cfc6c");
        let message = legacy_refused("Invalid magic number", why);
        let at = bytes::len(bytes).min(START.len() as u64 - 2);
        cx.report(&LEGACY_HEADER, Place::field("magic number", at), message);
    }
    let mut pos = 0;
    let mut pickles: Vec<(Source<'_>, Pickle<'_>)> = Vec::new();
    for index in 0..5 {
        let src = Source::file(bytes, pos);
        let options = Options::reporting(index == 3);
        let p = pickle::read(cx, &src, options);
        let trusts = pickle::judge(cx, &src, &p, options, &|_| None);
        if index == 3 {
            weights_only::check(cx, &src, &p, &trusts);
        }
        let range = ByteRange::between(pos, p.end);
        cx.inv.sections.push(Section {
            file: 0,
            kind: SectionKind::ModelData,
            range,
        });
        pos = p.end;
        let done = p.root.is_none();
        pickles.push((src, p));
        if done {
            return;
        }
    }
    let [_, (_, version), (_, info), (src, main), (_, keys)] = pickles.as_slice() else {
        return;
    };
    header(cx, version, info);
    let Some(root) = main.root else { return };
    let storages = storages(cx, main, keys, pos);
    let lookup = |key: &[u8]| {
        storages.get(key).map(|s| Stored {
            range: Some(s.0),
            len: s.0.len,
            label: s.1.clone(),
        })
    };
    tensors::list(cx, src, main, root, b"", &lookup);
}

/// A file that is a pickle but no legacy checkpoint: `torch.load` unpickles its first pickle
/// as the magic number, which runs whatever it imports, then refuses the file.
fn bare(cx: &mut Context<'_>) {
    let bytes = cx.bytes;
    cx.inv.format_version = "a bare pickle".to_owned();
    let src = Source::file(bytes, 0);
    let options = Options::reporting(false);
    let p = pickle::read(cx, &src, options);
    pickle::judge(cx, &src, &p, options, &|_| None);
    let message = format!("torch.load runs what the pickle imports, then refuses the file (\"Invalid magic number; corrupt file?\"): the file is a pickle of {} bytes, not a checkpoint, which torch.load unpickles as the legacy magic number", p.end);
    cx.report(&LEGACY_HEADER, Place::field("magic number", 0), message);
    cx.inv.sections.push(Section {
        file: 0,
        kind: SectionKind::ModelData,
        range: ByteRange::between(0, p.end),
    });
}

/// Checks the protocol version and records the system facts.
fn header(cx: &mut Context<'_>, version: &Pickle<'_>, info: &Pickle<'_>) {
    let found = version.root.and_then(|r| version.int(r));
    if found != Some(PROTOCOL) {
        let shown = found.map_or_else(|| "not an integer".to_owned(), |v| v.to_string());
        let why = format!(
            "the protocol version pickle at byte {} is {shown}; torch reads {PROTOCOL}",
            version.start
        );
        let message = legacy_refused("Invalid protocol version", why);
        cx.report(
            &LEGACY_HEADER,
            Place::field("protocol version", version.start),
            message,
        );
    }
    let Some(root) = info.root else { return };
    if let Some(little) = info.get(root, b"little_endian").and_then(|v| info.int(v)) {
        let order = if little == 1 {
            "little-endian"
        } else {
            "big-endian"
        };
        cx.inv.property("byte order", order, Some(info.start));
    }
}

/// Where each storage is: the keys pickle lists them in order after the pickles, each a
/// `u64` element count and that many elements of the type the object's persistent ids give.
fn storages(
    cx: &mut Context<'_>,
    main: &Pickle<'_>,
    keys: &Pickle<'_>,
    start: u64,
) -> HashMap<Vec<u8>, (DataRange, String)> {
    let mut types: HashMap<&[u8], DType> = HashMap::new();
    let mut untyped = false;
    for value in &main.values {
        let Value::Persistent { pid, at } = value else {
            continue;
        };
        let Some([_, class, key, ..]) = main.items(*pid) else {
            continue;
        };
        let class = main.global(*class).unwrap_or_default();
        if class.ends_with("UntypedStorage") && !std::mem::replace(&mut untyped, true) {
            // torch.save writes dtypes with no typed storage class (uint16, float8, ...) this
            // way, but the legacy loader asks the class for its dtype.
            let error = "type object 'torch.storage.UntypedStorage' has no attribute 'dtype'";
            let why = format!("the legacy checkpoint's storage id at byte {at} names {class}; a tensor of this dtype loads only from a zip checkpoint");
            let message = legacy_refused(error, why);
            cx.report(&LEGACY_HEADER, Place::at(*at), message);
        }
        if let (Some(key), Some(dtype)) = (main.str(*key), dtypes::of_storage(&class)) {
            types.insert(key, dtype);
        }
    }
    let mut found = HashMap::new();
    let listed = keys.root.and_then(|r| keys.items(r)).unwrap_or_default();
    let mut cursor = Cursor::new(cx.bytes, start);
    for &key in listed {
        let Some(key) = keys.str(key) else { break };
        let element = types.get(key).and_then(|d| d.byte_size(1));
        let at = cursor.pos();
        let (Some(element), Some(count)) = (element, cursor.le_u64()) else {
            break;
        };
        let Some(len) = count.checked_mul(element) else {
            break;
        };
        let range = DataRange {
            file: 0,
            offset: cursor.pos(),
            len,
        };
        let size = bytes::len(cx.bytes);
        let sections = [
            (SectionKind::Header, ByteRange::between(at, at + 8)),
            (
                SectionKind::TensorData,
                ByteRange::between(range.offset, range.end().unwrap_or(size).min(size)),
            ),
        ];
        cx.inv
            .sections
            .extend(sections.map(|(kind, range)| Section {
                file: 0,
                kind,
                range,
            }));
        let label = format!("legacy storage '{}' at {at}", excerpt(key, EXCERPT_SHORT));
        found.insert(key.to_vec(), (range, label));
        if cursor.take(len).is_none() {
            break;
        }
    }
    found
}
