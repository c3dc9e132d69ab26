//! `metadata.json`: the Keras version that saved the archive and when, and the loading CVEs
//! that version has.

use super::rules::{METADATA_INVALID, VULNERABLE_VERSION};
use super::tree::Tree;
use crate::check::Place;
use crate::escape::{excerpt, sanitize};
use crate::formats::shared::context::Context;
use crate::inventory::MetadataEntry;

/// The loading CVEs of Keras, each with the versions it affects (from, before).
const CVES: &[(&str, [u32; 3], [u32; 3], &str)] = &[
    (
        "CVE-2024-3660",
        [0, 0, 0],
        [2, 13, 0],
        "Lambda bytecode run without safe mode",
    ),
    (
        "CVE-2025-1550",
        [3, 0, 0],
        [3, 9, 0],
        "any module a config names imported",
    ),
    (
        "CVE-2025-8747",
        [3, 0, 0],
        [3, 11, 0],
        "keras.utils.get_file reachable from a config",
    ),
    (
        "CVE-2025-9906",
        [3, 0, 0],
        [3, 11, 0],
        "enable_unsafe_deserialization reachable from a config",
    ),
    (
        "CVE-2025-9905",
        [3, 0, 0],
        [3, 11, 3],
        "safe_mode ignored for legacy .h5 files",
    ),
    (
        "CVE-2025-49655",
        [3, 11, 0],
        [3, 11, 3],
        "TorchModuleWrapper unpickled in safe mode",
    ),
];

/// What `metadata.json` says.
#[derive(Debug, Default)]
pub struct Metadata {
    /// `keras_version`, as written.
    pub version: Option<String>,
}

impl Metadata {
    /// The major version, if the version is readable.
    pub fn major(&self) -> Option<u32> {
        major(self.version.as_deref()?)
    }
}

/// The major version of `version`, if readable.
pub fn major(version: &str) -> Option<u32> {
    parse(version).map(|v| v[0])
}

/// Reads `metadata.json` (`text`, whose findings are placed at `at`).
pub fn read(cx: &mut Context<'_>, text: &[u8], at: u64) -> Metadata {
    let place = Place::field("metadata.json", at);
    let tree = match Tree::parse(cx, text, place) {
        Ok(tree) => tree,
        Err(e) => {
            let message = format!("metadata.json at {at} is not JSON: {e}");
            cx.report(&METADATA_INVALID, place, message);
            return Metadata::default();
        }
    };
    let root = tree.root().unwrap_or_default();
    let field = |key| {
        tree.string(root, key)
            .map(|s| sanitize(&s.unescape()).into_owned())
    };
    let (version, date) = (field("keras_version"), field("date_saved"));
    for (key, value) in [("keras_version", &version), ("date_saved", &date)] {
        if let Some(value) = value {
            let mut entry = MetadataEntry::new(key, value.as_str());
            entry.offset = Some(at);
            cx.inv.metadata.push(entry);
        }
    }
    let Some(shown) = &version else {
        let message = format!("metadata.json at {at} names no keras_version: the version that saved the model, and the CVEs it has, are unknown");
        cx.report(&METADATA_INVALID, place, message);
        return Metadata::default();
    };
    vulnerable(cx, shown, place);
    Metadata { version }
}

/// Reports the loading CVEs of `shown`, the Keras version that saved the file (KR011).
pub fn vulnerable(cx: &mut Context<'_>, shown: &str, place: Place) {
    let Some(v) = parse(shown) else {
        return;
    };
    let cves: Vec<String> = (CVES.iter())
        .filter(|(_, from, before, _)| *from <= v && v < *before)
        .map(|(id, _, _, what)| format!("{id} ({what})"))
        .collect();
    if !cves.is_empty() {
        let message = format!(
            "saved by Keras {}, whose loading has {}: load it with Keras 3.11.3 or later",
            excerpt(shown.as_bytes(), 40),
            cves.join(", ")
        );
        cx.report(&VULNERABLE_VERSION, place, message);
    }
}

/// `major.minor.patch` from the start of a version (`3.15.1`, `2.13.1-tf`); missing parts
/// are 0.
fn parse(version: &str) -> Option<[u32; 3]> {
    let mut parts = version.split(['.', '-', '+']).map(|p| p.parse::<u32>());
    let major = parts.next()?.ok()?;
    let mut next = || parts.next().and_then(Result::ok).unwrap_or(0);
    Some([major, next(), next()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_their_start() {
        assert_eq!(parse("3.15.1"), Some([3, 15, 1]));
        assert_eq!(parse("2.13.1-tf"), Some([2, 13, 1]));
        assert_eq!(parse("3"), Some([3, 0, 0]));
        assert_eq!(parse("x"), None);
    }
}
