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

/// Rows a table of the standard breakdowns keeps; the rest are summed in one row.
const MAX_ROWS: usize = 12;

impl super::Inventory {
    /// Breakdowns every format gets from its tensors: bytes by element type, by storage, by
    /// layer (the name up to its first number, such as `encoder.layers.3`, or without its
    /// last part) and the largest tensors. Empty when the model has no tensor data.
    pub fn standard_sizes(&self) -> Vec<SizeTable> {
        let stored = |t: &super::Tensor| t.data.map_or(0, |d| d.len);
        if self.tensors.iter().all(|t| stored(t) == 0) {
            return Vec::new();
        }
        let group = |key: &dyn Fn(&super::Tensor) -> String| {
            let mut groups: std::collections::HashMap<String, (u64, u64)> = Default::default();
            for t in &self.tensors {
                let entry = groups.entry(key(t)).or_default();
                entry.0 = entry.0.saturating_add(stored(t));
                entry.1 += 1;
            }
            let rows = groups
                .into_iter()
                .map(|(label, (bytes, n))| SizeRow::new(label, bytes, Some(n)))
                .collect();
            capped(rows)
        };
        let dtype = |t: &super::Tensor| t.dtype.map_or("unknown", |d| d.name()).to_owned();
        let storage = |t: &super::Tensor| {
            match t.storage {
                super::Storage::Inline => "inline",
                super::Storage::External => "external",
                super::Storage::Missing => "missing",
            }
            .to_owned()
        };
        let mut largest: Vec<&super::Tensor> = self.tensors.iter().collect();
        largest.sort_by_key(|t| std::cmp::Reverse(stored(t)));
        let largest = largest
            .into_iter()
            .take(MAX_ROWS)
            .map(|t| SizeRow::new(t.name.as_bytes(), stored(t), None))
            .collect();
        vec![
            SizeTable {
                title: "by element type",
                rows: group(&dtype),
            },
            SizeTable {
                title: "by storage",
                rows: group(&storage),
            },
            SizeTable {
                title: "by layer",
                rows: group(&|t| layer(&t.name.display())),
            },
            SizeTable {
                title: "of the largest tensors",
                rows: largest,
            },
        ]
    }
}

/// The layer a tensor name belongs to: up to and including its first numeric part
/// (`encoder.layers.3.attn.q.weight` → `encoder.layers.3`), or without its last part
/// (`fc1.weight` → `fc1`); a name with one part is its own layer.
fn layer(name: &str) -> String {
    let parts: Vec<&str> = name.split(['.', '/']).filter(|p| !p.is_empty()).collect();
    let numbered = parts
        .iter()
        .position(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let keep = match numbered {
        Some(i) => i + 1,
        None => parts.len().saturating_sub(1).max(1),
    };
    parts
        .iter()
        .take(keep)
        .copied()
        .collect::<Vec<_>>()
        .join(".")
}

/// The largest [`MAX_ROWS`] rows, and the rest summed in one.
fn capped(mut rows: Vec<SizeRow>) -> Vec<SizeRow> {
    rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.label.cmp(&b.label)));
    if rows.len() > MAX_ROWS {
        let rest = rows.split_off(MAX_ROWS - 1);
        let bytes = rest.iter().map(|r| r.bytes).fold(0u64, u64::saturating_add);
        let items = rest.iter().filter_map(|r| r.items).sum();
        rows.push(SizeRow::new(
            format!("{} more", rest.len()),
            bytes,
            Some(items),
        ));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::layer;

    #[test]
    fn layers_are_name_prefixes() {
        assert_eq!(layer("encoder.layers.3.attn.q.weight"), "encoder.layers.3");
        assert_eq!(layer("fc1.weight"), "fc1");
        assert_eq!(layer("bias"), "bias");
        assert_eq!(layer("model/conv/kernel"), "model.conv");
        assert_eq!(layer("blocks.0.w"), "blocks.0");
        assert_eq!(layer("/lm/h.1/attn/Constant"), "lm.h.1");
        assert_eq!(layer(""), "");
    }
}
