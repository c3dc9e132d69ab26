//! Zip checkpoints (`torch.save` since 1.6) and TorchScript archives: every member under one
//! folder, `data.pkl` (and `constants.pkl`) read as pickles whose persistent ids name the
//! storages `data/<key>`, each storage's bytes in place in the file.

use super::rules::{
    COMPRESSED_PICKLE, DATA_PKL_MISSING, MEMBER_OUTSIDE_FOLDER, TORCHSCRIPT_CODE, UNREAD_PICKLE,
};
use super::tensors::{self, Stored};
use super::{export, torchscript, weights_only};
use crate::check::Place;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::bytes;
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::{self, Located, Options, Pickle, Source, Tree};
use crate::formats::shared::zip::{self, Archive, Member};
use crate::inventory::{ByteRange, DataRange, Import, Name, SectionKind, Trust};
use std::collections::HashSet;

/// What an archive is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A checkpoint (`torch.save`).
    Checkpoint,
    /// A TorchScript archive (`torch.jit.save`).
    TorchScript,
    /// A `torch.export` archive (`torch.export.save`, `.pt2`).
    Export,
}

/// The records `torch.save` and `torch.jit.save` write under the archive's folder.
const RECORDS: &[&[u8]] = &[
    b"data.pkl",
    b"version",
    b"byteorder",
    b".format_version",
    b".storage_alignment",
    b"constants.pkl",
    b"archive_format",
];

/// Whether a member is a storage, `data/<key>` under the archive's folder: tensor bytes,
/// never unpickled.
pub fn is_storage(name: &[u8]) -> bool {
    let mut parts = name.splitn(3, |&b| b == b'/');
    let (_, dir) = (parts.next(), parts.next());
    dir.is_some_and(|d| d.eq_ignore_ascii_case(b"data")) && parts.next().is_some()
}

/// Whether an archive's member names are PyTorch's: a record under a folder, in any case,
/// as torch's reader finds records.
pub fn is_torch(names: &[&[u8]]) -> bool {
    names.iter().any(|name| {
        let file = name.rsplit(|&b| b == b'/').next().unwrap_or(name);
        name.contains(&b'/') && RECORDS.iter().any(|r| r.eq_ignore_ascii_case(file))
    })
}

/// Reads the archive at `range` of the file: the whole file, or (`nested`) a stored member of
/// a `.pt2` archive, whose pickles are judged but whose tensors and sections are not listed.
/// Returns what the archive is.
pub fn read(cx: &mut Context<'_>, range: ByteRange, nested: bool) -> Option<Kind> {
    let file = cx.bytes;
    let archive = zip::read(cx, file, range)?;
    let prefix = folder(cx, &archive);
    let under = |name: &[u8]| [prefix, name].concat();
    // torch finds records with miniz, ignoring case.
    let has = |name: &[u8]| archive.locate(&under(name)).is_some();
    let starts = |dir: &[u8]| {
        let dir = under(dir);
        archive.members.iter().any(|m| m.name.starts_with(&dir))
    };
    let listed = |name: &[u8]| {
        let name = under(name);
        archive.members.iter().any(|m| m.name == name)
    };
    let kind = if has(b"archive_format") || starts(b"models/") {
        Kind::Export
    } else if listed(b"constants.pkl") {
        // torch.load hands an archive to torch.jit.load only when `get_all_records()` lists
        // this record, a comparison that does not ignore case.
        Kind::TorchScript
    } else {
        Kind::Checkpoint
    };
    if !nested {
        properties(cx, &archive, prefix);
    }
    if kind == Kind::Export {
        let read_nested = |cx: &mut Context<'_>, range| {
            read(cx, range, true);
        };
        export::read(cx, &archive, prefix, nested, &read_nested);
    } else {
        let data = under(b"data.pkl");
        let loaded = archive.locate(&data).map(|m| m.header);
        // Every member torch could take for data.pkl is judged; the one it reads is listed.
        let pickles = (archive.members.iter()).filter(|m| m.name.eq_ignore_ascii_case(&data));
        let mut found = false;
        for member in pickles {
            found = true;
            let list = (!nested && Some(member.header) == loaded).then_some(&b""[..]);
            read_pickle(cx, &archive, member, &under(b"data/"), kind, list);
        }
        if !found {
            let first = archive.members.first().map(|m| m.header);
            let message = format!(
                "torch.load refuses the file (\"failed locating file data.pkl\"): the archive has no {}",
                excerpt(&data, EXCERPT)
            );
            cx.report(&DATA_PKL_MISSING, Place::field("data.pkl", first), message);
        }
        let mut read = (archive.members.iter())
            .filter(|m| m.name.eq_ignore_ascii_case(&data))
            .map(|m| m.header)
            .collect::<HashSet<u64>>();
        if kind == Kind::TorchScript {
            if let Some(constants) = archive.locate(&under(b"constants.pkl")) {
                read.insert(constants.header);
                // Its tensors are the module's constants, listed as `constants.<i>`.
                let list = (!nested).then_some(&b"constants."[..]);
                read_pickle(cx, &archive, constants, &under(b"constants/"), kind, list);
            }
            code(cx, &archive, &under(b"code/"));
        }
        unread_pickles(cx, &archive, &under(b"data/"), &read, kind);
    }
    if !nested {
        // Members that hold tensors are tensor data; other data (unused storages, sample
        // inputs, configs) is a blob.
        let used: HashSet<u64> = (cx.inv.tensors.iter())
            .filter_map(|t| Some(t.data?.offset))
            .collect();
        let data = under(b"data/");
        zip::declare(cx, &archive, |m| {
            if used.contains(&m.data) {
                SectionKind::TensorData
            } else if m.name.starts_with(&data) {
                SectionKind::BlobData
            } else {
                SectionKind::ModelData
            }
        });
    }
    Some(kind)
}

/// The archive's folder, from its first member as torch takes it, reporting members outside
/// it (those whose names escape are reported as such).
fn folder<'a>(cx: &mut Context<'_>, archive: &Archive<'a>) -> &'a [u8] {
    let first = archive.members.first().map_or(&b""[..], |m| m.name);
    let prefix = match first.iter().position(|&b| b == b'/') {
        Some(slash) => first.get(..=slash).unwrap_or_default(),
        None => &b""[..],
    };
    for member in &archive.members {
        let inside = !prefix.is_empty() && member.name.starts_with(prefix);
        if !inside && !zip::escapes(member.name) {
            let message = format!(
                "torch.load refuses the file (\"file in archive is not in a subdirectory\"): member \"{}\" at {} is not under the archive's folder \"{}\"",
                excerpt(member.name, EXCERPT),
                member.header,
                excerpt(prefix, EXCERPT)
            );
            cx.report(&MEMBER_OUTSIDE_FOLDER, Place::at(member.header), message);
        }
    }
    prefix
}

/// The small records torch writes beside the pickle, as properties.
fn properties(cx: &mut Context<'_>, archive: &Archive<'_>, prefix: &[u8]) {
    for (record, key) in [
        (&b"version"[..], "version"),
        (b".format_version", "format version"),
        (b"byteorder", "byte order"),
        (b".storage_alignment", "storage alignment"),
        (b"archive_format", "archive format"),
    ] {
        let Some(member) = archive.locate(&[prefix, record].concat()) else {
            continue;
        };
        let Some(text) = member
            .raw(cx.bytes)
            .filter(|t| t.len() <= 64 && member.stored())
        else {
            continue;
        };
        let text = String::from_utf8_lossy(text).trim().to_owned();
        if key == "storage alignment" {
            cx.inv.preferred_alignment = text.parse().ok();
        }
        if key == "version" {
            cx.inv.format_version = format!("zip, version {}", crate::escape::sanitize(&text));
        }
        cx.inv
            .property(key, crate::escape::sanitize(&text), Some(member.data));
    }
}

/// Reads one pickle member and judges it; lists its tensors, named after `list` and their key
/// path, if it is given, with storages under `storages`.
pub fn read_pickle(
    cx: &mut Context<'_>,
    archive: &Archive<'_>,
    member: &Member<'_>,
    storages: &[u8],
    kind: Kind,
    list: Option<&[u8]>,
) {
    let file = cx.bytes;
    let inflated;
    let src = if member.stored() {
        Source::file(
            bytes::range(file, 0, member.range().end()).unwrap_or_default(),
            member.data,
        )
    } else {
        let message = format!("a scanner that reads stored members or raw bytes misses the pickle torch.load runs: {} at {} is compressed (method {}), where torch.save stores it as is", excerpt(member.name, EXCERPT), member.header, member.method);
        cx.report(&COMPRESSED_PICKLE, Place::at(member.header), message);
        let Some(found) = zip::inflate_paid(cx, file, member) else {
            return;
        };
        inflated = found;
        Source {
            bytes: &inflated,
            start: 0,
            located: Located::Member {
                header: member.header,
                name: Name::from(member.name),
            },
            item: None,
            nth: 0,
        }
    };
    let options = Options::reporting(true);
    let p = pickle::read(cx, &src, options);
    let torchscript = kind == Kind::TorchScript;
    let known = |i: usize| {
        let import = p.imports.get(i)?;
        let resolved = p.resolution(import)?;
        (torchscript && torchscript::resolves(&resolved)).then_some(Trust::Recognised)
    };
    let trusts = pickle::judge(cx, &src, &p, options, &known);
    pickle::read_rest(cx, &src, &p, options);
    if kind == Kind::Checkpoint {
        weights_only::check(cx, &src, &p, &trusts);
    }
    let (Some(root), Some(prefix)) = (p.root, list) else {
        return;
    };
    let lookup = |key: &[u8]| {
        let name = [storages, key].concat();
        let m = archive.locate(&name)?;
        Some(Stored {
            range: m.stored().then_some(DataRange {
                file: 0,
                offset: m.data,
                len: m.compressed,
            }),
            len: m.size,
            label: excerpt(&name, EXCERPT).into_owned(),
        })
    };
    tensors::list(cx, &src, &p, root, prefix, &lookup);
}

/// Judges every other member that is a pickle by content, and reports it as one torch never
/// reads. Storages under `data/` are tensor bytes, never unpickled; TorchScript's `.debug_pkl`
/// records are its own.
fn unread_pickles(
    cx: &mut Context<'_>,
    archive: &Archive<'_>,
    storages: &[u8],
    read: &HashSet<u64>,
    kind: Kind,
) {
    for member in &archive.members {
        let storage = (member.name.get(..storages.len()))
            .is_some_and(|dir| dir.eq_ignore_ascii_case(storages));
        if read.contains(&member.header) || storage {
            continue;
        }
        // TorchScript's debug records are read by its own unpickler, with its own names.
        let debug = kind == Kind::TorchScript && member.name.ends_with(b".debug_pkl");
        let known = |p: &Pickle<'_>, i: usize| {
            let resolved = p.resolution(p.imports.get(i)?)?;
            (debug && torchscript::resolves(&resolved)).then_some(Trust::Recognised)
        };
        if !zip::pickle_member(cx, cx.bytes, member, &known) || debug {
            continue;
        }
        let message = format!("a tool that unpacks the archive, or loads member \"{}\", runs what that pickle imports (rtenx judges it): the member at {} is a pickle that torch.load never reads (it reads data.pkl)", excerpt(member.name, EXCERPT), member.header);
        cx.report(&UNREAD_PICKLE, Place::at(member.header), message);
    }
}

/// Lists the TorchScript sources under `code/` as code that loading runs, and reports them.
fn code(cx: &mut Context<'_>, archive: &Archive<'_>, dir: &[u8]) {
    let sources: Vec<&Member<'_>> = (archive.members.iter())
        .filter(|m| m.name.starts_with(dir) && m.name.ends_with(b".py"))
        .collect();
    let Some(first) = sources.first() else {
        return;
    };
    let message = format!("torch.jit.load compiles code that runs when the model is called: a TorchScript archive, with {} source files under {} (first: {})", sources.len(), excerpt(dir, EXCERPT), excerpt(first.name, EXCERPT));
    cx.report(&TORCHSCRIPT_CODE, Place::at(first.header), message);
    for m in sources {
        if !cx.spend(1, Place::at(m.header)) {
            return;
        }
        let name = cx.name(m.name);
        cx.inv.imports.push(Import {
            name,
            kind: "code",
            file: 0,
            offset: m.header,
            call: None,
            trust: Trust::Code,
        });
    }
}
