//! Sharded checkpoints: `model.safetensors.index.json` maps each tensor to the shard that
//! holds it (`weight_map`) and states the bytes of them all (`metadata.total_size`). The
//! index is the model; its shards are data files, found and opened as every format's data
//! files are (no traversal, no symlink out of the folder, the checked file read).

use super::header;
use super::rules::*;
use crate::check::{Item, Place};
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::context::Context;
use crate::formats::shared::datafiles::{DataFiles, SharedRules};
use crate::formats::shared::json::{Error, Parser, Token};
use crate::formats::Detection;
use crate::inventory::{ByteRange, FileId, MetadataEntry, Name, Section, SectionKind};
use crate::source::ModelFile;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// How deep an index may nest: `metadata` may hold small structures.
const MAX_DEPTH: usize = 64;

/// Whether `bytes` start like a sharded checkpoint's index: a JSON object with a
/// `weight_map` key among its first bytes (`Magic`), or, without one, whose first key is
/// `metadata` holding a `total_size` (`Plausible`: an index that lost its map).
pub fn detect(bytes: &[u8]) -> Detection {
    let head = bytes.get(..4096).unwrap_or(bytes);
    let Some(object) = head.trim_ascii_start().strip_prefix(b"{") else {
        return Detection::No;
    };
    let has = |key: &[u8]| head.windows(key.len()).any(|w| w == key);
    if has(b"\"weight_map\"") {
        Detection::Magic
    } else if object.trim_ascii_start().starts_with(b"\"metadata\"") && has(b"\"total_size\"") {
        Detection::Plausible
    } else {
        Detection::No
    }
}

/// One `weight_map` entry, its text borrowed from the index where it needs no unescaping.
struct Listed<'a> {
    name: Cow<'a, str>,
    shard: Cow<'a, str>,
    /// Where the name's key starts.
    at: u64,
    /// Where the shard's file name starts.
    shard_at: u64,
}

/// What the index says.
#[derive(Default)]
struct Index<'a> {
    listed: Vec<Listed<'a>>,
    total_size: Option<(u64, u64)>,
}

/// Reads the index in `file` and the shards it names; whether every shard was read whole.
pub fn read(cx: &mut Context<'_>, file: &ModelFile) -> bool {
    let bytes = file.bytes();
    cx.inv.format_version = "sharded".into();
    let whole = ByteRange::between(0, bytes.len() as u64);
    cx.inv.sections.push(Section {
        file: 0,
        kind: SectionKind::ModelData,
        range: whole,
    });
    let mut index = Index::default();
    if let Err(e) = document(cx, &mut Parser::new(bytes, MAX_DEPTH), &mut index) {
        let message = format!("the index is not a sharded checkpoint index: {}", e.what);
        cx.report(&INDEX_INVALID, Place::at(e.at), message);
        return false;
    }
    shards(cx, file, &index)
}

/// Reads the index document into `index`, recording `metadata` as the model's.
fn document<'a>(
    cx: &mut Context<'_>,
    p: &mut Parser<'a>,
    index: &mut Index<'a>,
) -> Result<(), Error> {
    let not = |at, what: String| Error { at, what };
    p.object_document()?;
    let mut has_map = false;
    while let Some(key) = p.key_or_end()? {
        let Some((at, token)) = p.token()? else {
            break;
        };
        match (&*key.unescape(), token) {
            ("weight_map", Token::Object) => {
                has_map = true;
                while let Some(name) = p.key_or_end()? {
                    if !cx.spend(1, Place::at(name.at)) {
                        p.finish()?;
                        break;
                    }
                    match p.token()? {
                        Some((shard_at, Token::Str(shard))) => index.listed.push(Listed {
                            name: name.unescape(),
                            shard: shard.unescape(),
                            at: name.at.saturating_sub(1),
                            shard_at,
                        }),
                        Some((at, token)) => {
                            return Err(not(
                                at,
                                format!(
                                    "the shard of \"{}\" is {}, not a file name",
                                    excerpt(name.raw().as_bytes(), EXCERPT),
                                    token.kind()
                                ),
                            ))
                        }
                        None => break,
                    }
                }
            }
            ("weight_map", token) => {
                return Err(not(
                    at,
                    format!("weight_map is {}, not an object", token.kind()),
                ))
            }
            ("metadata", Token::Object) => metadata(cx, p, index)?,
            (_, token) => p.finish_value(&token)?,
        }
    }
    p.end()?;
    if !has_map {
        return Err(not(0, "it has no weight_map".into()));
    }
    Ok(())
}

/// The `metadata` object: `total_size` kept, every scalar recorded as metadata.
fn metadata(cx: &mut Context<'_>, p: &mut Parser<'_>, index: &mut Index<'_>) -> Result<(), Error> {
    while let Some(key) = p.key_or_end()? {
        let Some((at, token)) = p.token()? else {
            break;
        };
        let text = match token {
            Token::Number(n) => {
                if key.is("total_size") {
                    let total = n.as_u64().ok_or_else(|| Error {
                        at,
                        what: format!("metadata.total_size is {}, not a byte count", n.text()),
                    })?;
                    index.total_size = Some((total, at));
                }
                n.text().to_owned()
            }
            Token::Str(s) => s.unescape().into_owned(),
            Token::Bool(b) => b.to_string(),
            Token::Null => "null".to_owned(),
            other => {
                p.finish_value(&other)?;
                continue;
            }
        };
        let place = Place::at(key.at);
        let key = cx.copied(key.unescape().as_bytes(), place);
        let value = cx.copied(text.as_bytes(), place);
        cx.inv.metadata.push(MetadataEntry::new(key, value));
    }
    Ok(())
}

/// Reads each shard the index names, once, and checks the index against them; whether every
/// shard was read whole. Names are resolved before any shard is read, so that the names
/// that lead to one file (`w.safetensors`, `./w.safetensors`, a hard link) read it once.
fn shards(cx: &mut Context<'_>, file: &ModelFile, index: &Index<'_>) -> bool {
    // Each shard name, with where the index first gives it.
    let mut names: BTreeMap<&str, u64> = BTreeMap::new();
    for listed in &index.listed {
        names.entry(&listed.shard).or_insert(listed.shard_at);
    }
    let mut files = DataFiles::new(file, &SharedRules);
    // The file each name leads to, and each file once with the first name that led to it.
    let mut file_of: HashMap<&str, FileId> = HashMap::new();
    let mut first_name: Vec<(FileId, &str)> = Vec::new();
    let mut known: HashSet<FileId> = HashSet::new();
    for (&shard, &at) in &names {
        let Some(id) = files.file(shard.as_bytes(), Place::at(at), &mut cx.inv, cx.out) else {
            continue;
        };
        if known.insert(id) {
            first_name.push((id, shard));
        }
        file_of.insert(shard, id);
    }
    let shards: Vec<String> = first_name.iter().map(|(_, s)| (*s).to_owned()).collect();
    files.folder().prefetch(&shards);
    // Where each tensor of every shard is: its file and its inventory index.
    let mut held: HashMap<Name, (FileId, usize)> = HashMap::new();
    let mut read: HashMap<FileId, &str> = HashMap::new();
    let mut whole = true;
    for &(id, shard) in &first_name {
        let Some(data) = files.open(id, &cx.inv, cx.out) else {
            continue;
        };
        cx.inv.forget_whole_file_section(id);
        let before = cx.inv.tensors.len();
        match header::read(cx, data.bytes(), id) {
            Some(header) => {
                whole &= header.complete;
                header::tensors(cx, &header, id, data.bytes().len() as u64);
            }
            None => whole = false,
        }
        DataFiles::report_change(&data, id, cx.out);
        read.insert(id, shard);
        for t in before..cx.inv.tensors.len() {
            let Some(name) = cx.inv.tensors.get(t).map(|t| t.name.clone()) else {
                continue;
            };
            if let Some(&(other, _)) = held.get(&name) {
                let message = format!(
                    "tensor \"{}\" is in shard {} and in shard {}",
                    excerpt(name.as_bytes(), EXCERPT),
                    excerpt(
                        read.get(&other).copied().unwrap_or_default().as_bytes(),
                        EXCERPT
                    ),
                    excerpt(shard.as_bytes(), EXCERPT)
                );
                let place =
                    Place::at(cx.inv.tensors.get(t).and_then(|t| t.decl_offset)).in_file(id);
                cx.report(
                    &TENSOR_IN_TWO_SHARDS,
                    place.item(Item::Tensor { tensor: t }),
                    message,
                );
            } else {
                held.insert(name, (id, t));
            }
        }
    }
    let mut listed_bytes = 0u64;
    let mut listed: HashMap<&[u8], ()> = HashMap::new();
    for entry in &index.listed {
        listed.insert(entry.name.as_bytes(), ());
        let Some(&id) = file_of
            .get(entry.shard.as_ref())
            .filter(|id| read.contains_key(id))
        else {
            continue;
        };
        match held.get(&Name::from(entry.name.as_ref())) {
            Some(&(holder, t)) if holder == id => {
                let bytes = cx
                    .inv
                    .tensors
                    .get(t)
                    .and_then(|t| t.data)
                    .map_or(0, |d| d.len);
                listed_bytes = listed_bytes.saturating_add(bytes);
            }
            _ => {
                let message = format!(
                    "weight_map puts tensor \"{}\" in {}, which does not hold it",
                    excerpt(entry.name.as_bytes(), EXCERPT),
                    excerpt(entry.shard.as_bytes(), EXCERPT)
                );
                cx.report(&TENSOR_NOT_IN_SHARD, Place::at(entry.at), message);
            }
        }
    }
    for (name, &(id, t)) in &held {
        if !listed.contains_key(name.as_bytes()) {
            let shard = read.get(&id).copied().unwrap_or_default();
            let message = format!(
                "shard {} holds tensor \"{}\", which weight_map does not list",
                excerpt(shard.as_bytes(), EXCERPT),
                excerpt(name.as_bytes(), EXCERPT)
            );
            let place = Place::at(cx.inv.tensors.get(t).and_then(|t| t.decl_offset)).in_file(id);
            cx.report(
                &TENSOR_NOT_LISTED,
                place.item(Item::Tensor { tensor: t }),
                message,
            );
        }
    }
    let all_read =
        (names.keys()).all(|name| file_of.get(name).is_some_and(|id| read.contains_key(id)));
    if let (Some((total, at)), true) = (index.total_size, all_read) {
        if total != listed_bytes {
            let message = format!("metadata.total_size = {total}, but the tensors weight_map lists take {listed_bytes} bytes");
            cx.report(
                &TOTAL_SIZE,
                Place::field("metadata.total_size", at),
                message,
            );
        }
    }
    whole && all_read
}
