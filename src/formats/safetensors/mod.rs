//! safetensors files and sharded safetensors checkpoints.
//!
//! A safetensors file is an 8-byte little-endian header length, a JSON header naming each
//! tensor's dtype, shape and byte range in the data section, and the data section. A sharded
//! checkpoint is a `*.safetensors.index.json` whose `weight_map` names the shard of each
//! tensor; the index is read as the model and its shards as its data files. Everything the
//! `safetensors` crate refuses is an error here; see `../shared/reference/safetensors-gguf.md`.

mod dtypes;
mod header;
mod index;
pub mod rules;

use crate::check::Findings;
use crate::formats::shared::bytes::le_u64;
use crate::formats::shared::context::Context;
use crate::formats::shared::hf;
use crate::formats::{extension, About, Detection, Format, ReadOptions, Scan};
use crate::inventory::{ByteRange, Inventory};
use crate::source::fetched::Fetched;
use crate::source::ModelFile;
use std::path::Path;

/// The safetensors format.
pub struct Safetensors;

/// Whether `bytes` start like a safetensors file: a header length, then a JSON object. The
/// reference parser hands the header to serde_json, which skips JSON's white space (space,
/// tab, line feed, carriage return) before the `{` and nothing else, so the same holds here:
/// a pretty-printed header is one, a header after a form feed is not.
fn is_safetensors(bytes: &[u8]) -> bool {
    let Some(len) = le_u64(bytes, 0) else {
        return false;
    };
    // Within the header, which the parser reads no further than its size limit.
    let within = usize::try_from(len.min(header::MAX_HEADER)).unwrap_or(usize::MAX);
    let head = bytes.get(8..).unwrap_or_default();
    let head = head.get(..within.min(head.len())).unwrap_or_default();
    let start = head
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    len >= 2 && start == Some(&b'{')
}

/// Whether `path` is named as a shard: `NAME-00001-of-00003.safetensors`.
fn is_shard(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let stem = name.strip_suffix(".safetensors").unwrap_or_default();
    let digits = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
    stem.rsplit_once("-of-").is_some_and(|(rest, count)| {
        digits(count) && rest.rsplit_once('-').is_some_and(|(_, no)| digits(no))
    })
}

static ABOUT: About = About {
    name: "safetensors",
    extensions: &["safetensors"],
    rules: &rules::GROUP,
};

impl Format for Safetensors {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if is_safetensors(bytes) {
            Detection::Magic
        } else {
            index::detect(bytes)
        }
    }

    /// Shards are checked with the index beside them; an index always, so that one that
    /// lost its `weight_map` is reported too; other `.json` files only if they are an index.
    fn scan(&self, path: &Path) -> Scan {
        let name = path.file_name().map(|n| n.as_encoded_bytes());
        match extension(path).as_deref() {
            Some("safetensors") if is_shard(path) => Scan::Companion,
            Some("safetensors") => Scan::Model,
            Some("json") if name.is_some_and(|n| n.ends_with(b".safetensors.index.json")) => {
                Scan::Model
            }
            Some("json") => Scan::ModelIfDetected,
            _ => Scan::Skip,
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        if is_safetensors(file.bytes()) {
            cx.inv.format_version = "single file".into();
            let header = header::read(&mut cx, file.bytes(), 0);
            // Unclaimed bytes mean something only when every entry could be placed.
            let placed = header.as_ref().is_some_and(|h| h.complete);
            if let Some(header) = header {
                header::tensors(&mut cx, &header, 0, file.bytes().len() as u64);
            }
            if placed {
                cx.inv.fill_gaps();
            }
        } else if index::read(&mut cx, file) {
            cx.inv.fill_gaps();
        }
        hf::check(&mut cx);
        cx.inv
    }

    /// The header's length, then the header, as `huggingface_hub.get_safetensors_metadata`
    /// fetches it; an index is read whole.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        let len = bytes.len() as u64;
        if !fetched.covers(0, 8.min(len)) {
            return vec![ByteRange::between(0, 8)];
        }
        if !is_safetensors(bytes) {
            return vec![ByteRange::between(0, len)];
        }
        // A header past the parser's limit is refused unread.
        let header = le_u64(bytes, 0).filter(|&n| n <= header::MAX_HEADER);
        vec![ByteRange::between(0, header.map_or(8, |n| n + 8))]
    }
}
