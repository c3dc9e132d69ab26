//! The files: format, version, size, producer and metadata.

use super::Change;
use crate::inventory::{Inventory, Name};
use serde::Serialize;
use std::collections::BTreeMap;

/// How the files differ.
#[derive(Debug, Default, Serialize)]
pub struct FilesDiff {
    /// Format names, such as `onnx` and `rten`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Change<&'static str>>,
    /// Format versions as the files state them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<Change<String>>,
    /// Bytes over the model file and its data files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Change<u64>>,
    /// The producer properties (`producer_name` and the like), joined by spaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<Change<String>>,
    /// Metadata keys added, removed or given another value.
    pub metadata: Vec<MetadataChange>,
}

/// One metadata key whose value differs; a side without the key has `null`.
#[derive(Debug, Serialize)]
pub struct MetadataChange {
    /// The key.
    pub key: Name,
    /// A's value.
    pub a: Option<Name>,
    /// B's value.
    pub b: Option<Name>,
}

impl FilesDiff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.format.is_none()
            && self.version.is_none()
            && self.size.is_none()
            && self.producer.is_none()
            && self.metadata.is_empty()
    }
}

pub(super) fn compare(a: &Inventory, b: &Inventory) -> FilesDiff {
    let size = |inv: &Inventory| inv.files.iter().filter_map(|f| f.size).sum::<u64>();
    let producer = |inv: &Inventory| {
        let parts: Vec<&str> = (inv.properties.iter())
            .filter(|p| p.key.starts_with("producer"))
            .map(|p| p.value.as_str())
            .collect();
        parts.join(" ")
    };
    FilesDiff {
        format: Change::of(a.format.name(), b.format.name()),
        version: Change::of(a.format_version.clone(), b.format_version.clone()),
        size: Change::of(size(a), size(b)),
        producer: Change::of(producer(a), producer(b)),
        metadata: metadata(a, b),
    }
}

/// A metadata key, and its value on each side.
type Sides<'a> = (&'a Name, Option<&'a Name>, Option<&'a Name>);

/// Metadata compared key by key; a key a file repeats keeps its last value.
fn metadata(a: &Inventory, b: &Inventory) -> Vec<MetadataChange> {
    let mut keys: BTreeMap<&[u8], Sides> = BTreeMap::new();
    for entry in &a.metadata {
        keys.entry(entry.key.as_bytes())
            .or_insert((&entry.key, None, None))
            .1 = Some(&entry.value);
    }
    for entry in &b.metadata {
        keys.entry(entry.key.as_bytes())
            .or_insert((&entry.key, None, None))
            .2 = Some(&entry.value);
    }
    keys.into_values()
        .filter(|(_, a, b)| a.map(Name::as_bytes) != b.map(Name::as_bytes))
        .map(|(key, a, b)| MetadataChange {
            key: key.clone(),
            a: a.cloned(),
            b: b.cloned(),
        })
        .collect()
}
