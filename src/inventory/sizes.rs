//! Where a model's bytes go: tables of byte counts a reader fills in, such as bytes per
//! method or per backend.

use super::{Inventory, Name, NodeKind, Scope, ScopeTree, Storage, Tensor, TensorId};
use serde::Serialize;
use std::collections::HashMap;

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
    /// The tensor the row is, for rows of single tensors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor: Option<TensorId>,
    /// Elements of the tensors the bytes hold, where they are all known: with `bytes`, the
    /// bits each weight takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<u64>,
}

impl SizeTable {
    /// Whether the rows' bits per element differ, so that showing them tells something (a
    /// model all in f32 takes 32 bits everywhere).
    pub fn bits_differ(&self) -> bool {
        let mut bits = self.rows.iter().filter_map(SizeRow::bits_per_element);
        let first = bits.next();
        bits.any(|b| Some(b) != first)
    }

    /// Tensor bytes by the scopes of `tree` that are `depth` deep (see [`ScopeTree`]), with
    /// the tensors in no scope that deep in one row; the standard tables take the depth where
    /// the weights divide ([`ScopeTree::dividing_depth`]).
    pub fn by_scope(tree: &ScopeTree, depth: u32) -> Self {
        SizeTable {
            title: "by scope",
            rows: by_scope(tree, depth),
        }
    }

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
            tensor: None,
            elements: None,
        }
    }

    /// Bits per element, where the row's elements are known and not zero.
    pub fn bits_per_element(&self) -> Option<f64> {
        let elements = self.elements.filter(|&n| n > 0)?;
        Some(self.bytes as f64 * 8.0 / elements as f64)
    }
}

/// Rows a table of the standard breakdowns keeps; the rest are summed in one row.
const MAX_ROWS: usize = 12;

impl Inventory {
    /// Breakdowns every format gets from its tensors: bytes by element type, by storage, by
    /// file, by the operator type that reads them, by scope (see [`ScopeTree`]) and the
    /// largest tensors, with
    /// their element counts. A breakdown by storage or file into a single row says nothing and
    /// is left out, as is the one by operator type for a model without a graph. Empty when
    /// the model has no tensor data.
    pub fn standard_sizes(&self) -> Vec<SizeTable> {
        if self.tensors.iter().all(|t| stored(t) == 0) {
            return Vec::new();
        }
        let dtype = |t: &Tensor| t.dtype.map_or("unknown", |d| d.name()).to_owned();
        let storage = |t: &Tensor| {
            match t.storage {
                Storage::Inline => "inline",
                Storage::External => "external",
                Storage::Missing => "missing",
            }
            .to_owned()
        };
        let file = |t: &Tensor| {
            let file = t.data.and_then(|d| self.files.get(d.file));
            file.map_or("no data".into(), |f| match f.path.file_name() {
                Some(name) => name.to_string_lossy().into_owned(),
                None => f.path.display().to_string(),
            })
        };
        let readers = self.readers();
        let reader = |id: TensorId, _: &Tensor| {
            let op = readers.get(id).copied().flatten();
            op.unwrap_or("no operator").to_owned()
        };
        let mut largest: Vec<(TensorId, &Tensor)> = self.tensors.iter().enumerate().collect();
        largest.sort_by_key(|(_, t)| std::cmp::Reverse(stored(t)));
        let largest = largest
            .into_iter()
            .take(MAX_ROWS)
            .map(|(id, t)| SizeRow {
                tensor: Some(id),
                elements: t.elements,
                ..SizeRow::new(t.name.as_bytes(), stored(t), None)
            })
            .collect();
        let table = |title, key: &dyn Fn(TensorId, &Tensor) -> String| SizeTable {
            title,
            rows: self.grouped(key),
        };
        let mut tables = vec![
            table("by element type", &|_, t| dtype(t)),
            table("by storage", &|_, t| storage(t)),
            table("by file", &|_, t| file(t)),
        ];
        if !self.graphs.is_empty() {
            tables.push(table("by operator type", &reader));
        }
        let tree = ScopeTree::build(self);
        tables.push(SizeTable::by_scope(&tree, tree.dividing_depth()));
        let said =
            |t: &SizeTable| t.rows.len() > 1 || matches!(t.title, "by element type" | "by scope");
        tables.retain(said);
        tables.push(SizeTable {
            title: "of the largest tensors",
            rows: largest,
        });
        tables
    }

    /// Tensor bytes, counts and elements grouped by `key`, largest first, capped at
    /// [`MAX_ROWS`].
    fn grouped(&self, key: &dyn Fn(TensorId, &Tensor) -> String) -> Vec<SizeRow> {
        let mut groups: HashMap<String, (u64, u64, Option<u64>)> = HashMap::new();
        for (id, t) in self.tensors.iter().enumerate() {
            let entry = groups.entry(key(id, t)).or_insert((0, 0, Some(0)));
            entry.0 = entry.0.saturating_add(stored(t));
            entry.1 += 1;
            entry.2 = entry.2.zip(t.elements).and_then(|(a, b)| a.checked_add(b));
        }
        let rows = groups
            .into_iter()
            .map(|(label, (bytes, n, elements))| SizeRow {
                elements,
                ..SizeRow::new(label, bytes, Some(n))
            })
            .collect();
        capped(rows)
    }

    /// For each tensor, the type of the first operator that reads it: as an input, or, for a
    /// tensor held by an operator's attribute, that operator.
    fn readers(&self) -> Vec<Option<&str>> {
        let mut readers = vec![None; self.tensors.len()];
        for graph in &self.graphs {
            for node in &graph.nodes {
                let NodeKind::Operator(op) = &node.kind else {
                    continue;
                };
                for input in op.inputs().iter().flatten() {
                    if let Some(NodeKind::Constant { tensor }) = graph.node(*input).map(|n| n.kind)
                    {
                        if let Some(slot @ None) = readers.get_mut(tensor) {
                            *slot = Some(&**op.op_type());
                        }
                    }
                }
            }
        }
        for (t, slot) in self.tensors.iter().zip(&mut readers) {
            let holder = t.node.and_then(|n| self.graphs.get(t.graph)?.node(n));
            if let (None, Some(NodeKind::Operator(op))) = (&slot, holder.map(|n| n.kind)) {
                *slot = Some(&**op.op_type());
            }
        }
        readers
    }
}

/// The bytes a tensor's data takes in its file.
fn stored(t: &Tensor) -> u64 {
    t.data.map_or(0, |d| d.len)
}

/// Tensor bytes by the scopes `depth` deep, with the tensors in no scope that deep in one row.
fn by_scope(tree: &ScopeTree, depth: u32) -> Vec<SizeRow> {
    let row = |label: String, s: &Scope| SizeRow {
        elements: Some(s.parameters),
        ..SizeRow::new(label, s.bytes, Some(s.tensors))
    };
    let at_depth = (0u32..).zip(&tree.scopes).filter(|(_, s)| s.depth == depth);
    let mut rows: Vec<SizeRow> = (at_depth.filter(|(_, s)| s.tensors > 0))
        .map(|(id, s)| row(tree.label(id), s))
        .collect();
    if let Some(root) = tree.scopes.first() {
        let mut rest = root.clone();
        for r in &rows {
            rest.tensors -= r.items.unwrap_or(0);
            rest.bytes = rest.bytes.saturating_sub(r.bytes);
            rest.parameters = rest.parameters.saturating_sub(r.elements.unwrap_or(0));
        }
        if rest.tensors > 0 {
            rows.push(row("(in no scope this deep)".into(), &rest));
        }
    }
    capped(rows)
}

/// The largest [`MAX_ROWS`] rows, and the rest summed in one.
fn capped(mut rows: Vec<SizeRow>) -> Vec<SizeRow> {
    rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.label.cmp(&b.label)));
    if rows.len() > MAX_ROWS {
        let rest = rows.split_off(MAX_ROWS - 1);
        let bytes = rest.iter().map(|r| r.bytes).fold(0u64, u64::saturating_add);
        let items = rest.iter().filter_map(|r| r.items).sum();
        let elements = (rest.iter()).try_fold(0u64, |n, r| n.checked_add(r.elements?));
        rows.push(SizeRow {
            elements,
            ..SizeRow::new(format!("{} more", rest.len()), bytes, Some(items))
        });
    }
    rows
}
