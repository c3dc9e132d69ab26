//! The archive: its members as Keras' `saving_lib` finds them (by exact name, the last of a
//! name winning, as `zipfile` does), the variant it is, and its sections.

use super::config::{self, Located};
use super::rules::{CONFIG_INVALID, MEMBER_MISSING, METADATA_INVALID, ZIP_BOMB};
use super::tree::Tree;
use super::{graph, h5, metadata};
use crate::check::Place;
use crate::escape::excerpt;
use crate::formats::shared::bytes;
use crate::formats::shared::context::Context;
use crate::formats::shared::zip::{self, Archive, Member};
use crate::inventory::{ByteRange, SectionKind};
use std::borrow::Cow;

const CONFIG: &[u8] = b"config.json";
const METADATA: &[u8] = b"metadata.json";
const WEIGHTS: &[&[u8]] = &[b"model.weights.h5", b"model.weights.npz"];

/// Keras refuses a member above this many bytes once decompressed...
const BOMB_FLOOR: u64 = 1 << 32;
/// ...that is also more than this many times its stored size (`_reject_zip_bomb`).
const BOMB_RATIO: u64 = 100;

/// Whether an archive's member names are a Keras archive's: `config.json` and
/// `metadata.json`, or the weights; or a lone name that `model.save` writes first, which is
/// what [`zip::peek_names`] gives of an archive cut short.
pub fn is_keras(names: &[&[u8]]) -> bool {
    let has = |name: &[u8]| names.contains(&name);
    let first = names
        .first()
        .is_some_and(|n| *n == METADATA || *n == CONFIG);
    (has(CONFIG) && has(METADATA)) || WEIGHTS.iter().any(|w| has(w)) || (names.len() == 1 && first)
}

/// Whether a member is one of the JSON documents read whole.
pub fn is_json(name: &[u8]) -> bool {
    name == CONFIG || name == METADATA
}

/// Reads the archive.
pub fn read(cx: &mut Context<'_>) {
    let file = cx.bytes;
    let whole = ByteRange::between(0, file.len() as u64);
    let Some(archive) = zip::read(cx, file, whole) else {
        return;
    };
    for member in &archive.members {
        bomb(cx, member);
    }
    let first = archive.members.first().map_or(0, |m| m.header);
    let version = match archive.get(METADATA) {
        Some(m) => match text(cx, m) {
            Some(text) => metadata::read(cx, &text, if m.stored() { m.data } else { m.header }),
            None => metadata::Metadata::default(),
        },
        None => {
            let message = "the archive has no metadata.json: the Keras version that saved it is unknown (model.save always writes it; load_model does not read it)";
            cx.report(
                &METADATA_INVALID,
                Place::field("metadata.json", first),
                message,
            );
            metadata::Metadata::default()
        }
    };
    let variant = match version.major() {
        Some(2) => "Keras 2 .keras archive",
        _ => "Keras 3 archive (.keras)",
    };
    cx.inv.format_version = variant.into();
    cx.inv.property("variant", variant, None);
    weights(cx, &archive, first);
    match archive.get(CONFIG) {
        Some(m) => read_config(cx, m),
        None => {
            let message = "load_model refuses the archive (\"There is no item named 'config.json' in the archive\"): the model's config is missing";
            cx.report(&MEMBER_MISSING, Place::field("config.json", first), message);
        }
    }
    zip::declare(cx, &archive, |m| match WEIGHTS.contains(&m.name) {
        true => SectionKind::BlobData,
        false => SectionKind::ModelData,
    });
}

/// The weights member, listed with its size, or reported missing.
fn weights(cx: &mut Context<'_>, archive: &Archive<'_>, first: u64) {
    match WEIGHTS.iter().find_map(|w| archive.get(w)) {
        Some(m) => {
            // A stored HDF5 member is read in place: its datasets are the tensors.
            let listed = m.stored() && m.name.ends_with(b".h5");
            let how = if listed {
                "datasets listed"
            } else {
                "not read"
            };
            let what = format!("{}, {} bytes ({how})", excerpt(m.name, 40), m.size);
            cx.inv.property("weights", what, Some(m.data));
            if listed {
                h5::weights(cx, m.data);
            }
        }
        None => {
            let message = "load_model refuses the archive (\"Expected a model.weights.h5 or model.weights.npz file\"): it has no weights member";
            cx.report(&MEMBER_MISSING, Place::field("weights", first), message);
        }
    }
}

/// A member Keras would refuse as a decompression bomb.
fn bomb(cx: &mut Context<'_>, m: &Member<'_>) {
    if m.size > BOMB_FLOOR && m.size > m.compressed.saturating_mul(BOMB_RATIO) {
        let message = format!("load_model refuses the archive (\"refusing to load a potential decompression bomb\"): member \"{}\" at {} declares {} bytes decompressed from {} stored, more than 4 GiB and {BOMB_RATIO} times its size", excerpt(m.name, 200), m.header, m.size, m.compressed);
        cx.report(&ZIP_BOMB, Place::at(m.header), message);
    }
}

/// A member's bytes: in place if stored, else inflated within the budget.
fn text<'a>(cx: &mut Context<'a>, m: &Member<'_>) -> Option<Cow<'a, [u8]>> {
    let file = cx.bytes;
    if m.stored() {
        return bytes::range(file, m.data, m.compressed).map(Cow::Borrowed);
    }
    zip::inflate_paid(cx, file, m).map(Cow::Owned)
}

/// Reads and walks `config.json`.
fn read_config(cx: &mut Context<'_>, m: &Member<'_>) {
    let Some(text) = text(cx, m) else {
        return;
    };
    let doc = Located {
        name: "config.json",
        legacy_h5: false,
        data: m.stored().then_some(m.data),
        header: m.header,
    };
    let place = Place::field("config.json", m.header);
    let tree = match Tree::parse(cx, &text, place) {
        Ok(tree) => tree,
        Err(e) => {
            let message = format!(
                "load_model refuses the archive: config.json is not JSON it reads whole ({} at {})",
                e.what,
                doc.of(e.at)
            );
            cx.report(&CONFIG_INVALID, Place::at(doc.of(e.at)), message);
            return;
        }
    };
    if !tree
        .root()
        .and_then(|r| tree.get(r))
        .is_some_and(|v| matches!(v.kind, super::tree::Kind::Object))
    {
        let message = "load_model refuses the archive: config.json is not a JSON object";
        cx.report(&CONFIG_INVALID, place, message);
        return;
    }
    let model = config::walk(cx, &tree, doc);
    graph::build(cx, &model);
}
