//! Where a model's bytes go: tables of byte counts a reader fills in, such as bytes per
//! method or per backend.

use super::Name;
use serde::Serialize;

/// One way of dividing the bytes, such as "by backend".
#[derive(Debug, Clone, Serialize)]
pub struct SizeTable {
    /// What the rows divide, such as `by content`.
    pub title: &'static str,
    /// Rows, largest first unless the order means something (such as segment order).
    pub rows: Vec<SizeRow>,
}

/// A share of the bytes.
#[derive(Debug, Clone, Serialize)]
pub struct SizeRow {
    /// What the bytes are, such as a method or backend name.
    pub label: Name,
    /// How many bytes.
    pub bytes: u64,
    /// How many items (tensors, blobs, instructions) they hold, where that means something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
}

impl SizeTable {
    /// A table titled `title` whose rows are sorted by size, largest first (ties by label).
    pub fn largest_first(title: &'static str, mut rows: Vec<SizeRow>) -> Self {
        rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.label.cmp(&b.label)));
        SizeTable { title, rows }
    }
}

impl SizeRow {
    /// `bytes` of `label`, holding `items` items if given.
    pub fn new(label: impl Into<Name>, bytes: u64, items: Option<u64>) -> Self {
        SizeRow {
            label: label.into(),
            bytes,
            items,
        }
    }
}
