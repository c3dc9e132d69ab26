//! Inventory values as text, for the `inspect` summary and the browser alike: dtypes, shapes
//! and attribute values, and the whole model described part by part.

use super::{
    AttrValue, DType, Dim, Graph, Inventory, NodeId, NodeKind, SizeRow, SizeTable, Tensor,
    TensorId, Value,
};
use crate::escape::sanitize;
use humansize::{format_size, BINARY};

/// An element type's name, or `?` when it is not known.
pub fn dtype_text(dtype: Option<DType>) -> &'static str {
    dtype.map_or("?", DType::name)
}

/// A value's shape, such as `[batch, 16]`; `[?]` when it is not known.
pub fn shape_text(dims: Option<&[Dim]>) -> String {
    let Some(dims) = dims else {
        return "[?]".into();
    };
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Fixed(n) => n.to_string(),
            Dim::Symbolic(name) => name.display().into_owned(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A constant tensor's dimensions, such as `[3, 224, 224]`.
pub fn dims_text(dims: &[u64]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|&d| match d {
            Tensor::NOT_A_SIZE => "invalid".to_owned(),
            d => d.to_string(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// An attribute value, with tensors and subgraphs described.
pub fn attr_text(inv: &Inventory, value: &AttrValue) -> String {
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    match value {
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::Int(i) => i.to_string(),
        AttrValue::Float(f) => f.to_string(),
        AttrValue::Str(s) => format!("\"{s}\""),
        AttrValue::Ints(v) => list(v.iter().map(|i| i.to_string()).collect()),
        AttrValue::Floats(v) => list(v.iter().map(|f| f.to_string()).collect()),
        AttrValue::Strs(v) => list(v.iter().map(|s| format!("\"{s}\"")).collect()),
        AttrValue::Enum(e) => e
            .name
            .map_or_else(|| format!("{} (unknown)", e.value), str::to_owned),
        AttrValue::Graph(g) => format!("subgraph {}", g.graph),
        AttrValue::Graphs(gs) => list(gs.iter().map(|g| format!("subgraph {}", g.graph)).collect()),
        AttrValue::Tensor(t) => tensor_text(inv, t.tensor),
        AttrValue::Tensors(ts) => list(ts.iter().map(|t| tensor_text(inv, t.tensor)).collect()),
    }
}

fn tensor_text(inv: &Inventory, id: TensorId) -> String {
    inv.tensors.get(id).map_or_else(String::new, |t| {
        format!(
            "tensor \"{}\" {}{}",
            t.name,
            dtype_text(t.dtype),
            dims_text(&t.shape)
        )
    })
}

/// One titled part of a model's description; its lines are meant to be indented under the
/// heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The heading.
    pub heading: String,
    /// The lines under it.
    pub lines: Vec<String>,
}

/// Inputs or outputs listed before the rest are counted.
const MAX_IO: usize = 10;

/// Operator types named in the mix before the rest are counted.
const MAX_OP_TYPES: usize = 20;

/// Metadata entries listed before a pointer to the Metadata tab.
const MAX_METADATA: usize = 12;

/// The model described part by part, what a user looks for first at the top: the file
/// (format, producer, opset, size, data files), its signature, the main graph's inputs and outputs, the
/// parameters, the operator mix, what loading imports, then metadata and header properties.
/// Byte sections and size tables are too long for a summary: a line says where they are.
pub fn describe(inv: &Inventory) -> Vec<Part> {
    let mut parts = vec![file(inv)];
    parts.extend(inv.signature.as_ref().map(|s| s.part()));
    if let Some(graph) = inv.graphs.first() {
        parts.push(io_list(inv, "Inputs", graph, &graph.inputs));
        parts.push(io_list(inv, "Outputs", graph, &graph.outputs));
    }
    parts.push(tensors(inv));
    if !inv.graphs.is_empty() {
        parts.push(operators(inv));
    }
    if !inv.imports.is_empty() {
        parts.push(imports(inv));
    }
    parts.push(Part {
        heading: "Where the bytes go".into(),
        lines: vec![format!(
            "byte sections: {}; size tables: {}; in Layout (tab 2), Sizes (tab 7) and `rtenx dump --json`",
            inv.sections.len(),
            inv.sizes.len()
        )],
    });
    if !inv.metadata.is_empty() {
        let mut lines: Vec<String> = (inv.metadata.iter().take(MAX_METADATA))
            .map(|m| {
                format!(
                    "{:<18} {}",
                    m.key.display(),
                    crate::escape::clip(m.value.display(), 200)
                )
            })
            .collect();
        lines.extend(more(inv.metadata.len(), MAX_METADATA, "Metadata (tab 8)"));
        parts.push(Part {
            heading: format!("Metadata ({})", inv.metadata.len()),
            lines,
        });
    }
    if !inv.properties.is_empty() {
        parts.push(Part {
            heading: "Properties".into(),
            lines: inv
                .properties
                .iter()
                .map(|p| {
                    let at = p.offset.map(|o| format!("@{o}")).unwrap_or_default();
                    format!("{:<20} {:<14} {at}", p.key, sanitize(&p.value))
                })
                .collect(),
        });
    }
    parts
}

/// `... and N more (where)` when `total` items were cut at `shown`.
fn more(total: usize, shown: usize, place: &str) -> Option<String> {
    (total > shown).then(|| format!("... and {} more: {place}", total - shown))
}

/// The values of the properties whose key passes `keep`, as `key value` pairs or values.
fn properties(inv: &Inventory, keep: impl Fn(&str) -> bool, with_key: bool) -> String {
    let values = inv.properties.iter().filter(|p| keep(&p.key)).map(|p| {
        if with_key {
            format!("{} {}", sanitize(&p.key), sanitize(&p.value))
        } else {
            sanitize(&p.value).into_owned()
        }
    });
    values.collect::<Vec<_>>().join(" ")
}

fn file(inv: &Inventory) -> Part {
    let main = inv.main_file();
    let size = main.size.unwrap_or(0);
    let mut lines = vec![format!("format   {} {}", inv.format, inv.format_version)];
    if let Some(arch) = &inv.architecture {
        let sizes = arch.sizes_text();
        let sizes = if sizes.is_empty() {
            sizes
        } else {
            format!(" ({sizes})")
        };
        lines.push(format!("model    {}{sizes}", arch.name.display()));
        lines.push(format!("verdict  {}", arch.answer()));
        if !arch.companions.is_empty() {
            lines.push(format!("beside   {}", arch.companions_text()));
        }
    }
    let producer = properties(inv, |k| k.starts_with("producer"), false);
    if !producer.is_empty() {
        lines.push(format!("producer {producer}"));
    }
    let opsets = properties(inv, |k| k.starts_with("opset "), true);
    if !opsets.is_empty() {
        lines.push(format!("opsets   {}", opsets.replace("opset ", "")));
    }
    lines.push(format!(
        "size     {} ({size} bytes)",
        format_size(size, BINARY)
    ));
    let data: Vec<String> = (inv.files.iter().skip(1).take(MAX_IO))
        .map(|f| {
            let name = f.path.file_name().map_or(f.path.as_os_str(), |n| n);
            let size = f.size.map_or("missing".into(), |s| format_size(s, BINARY));
            format!("{} ({size})", sanitize(&name.to_string_lossy()))
        })
        .collect();
    if !data.is_empty() {
        let rest = inv.files.len().saturating_sub(1 + MAX_IO);
        let rest = if rest > 0 {
            format!(" +{rest}")
        } else {
            String::new()
        };
        lines.push(format!("data     {}{rest}", data.join(", ")));
    }
    if let Some(rt) = &inv.runtime {
        lines.push(format!(
            "needs    {} >= {} ({})",
            rt.runtime, rt.min_version, rt.reason
        ));
    }
    Part {
        heading: sanitize(&main.path.display().to_string()).into_owned(),
        lines,
    }
}

/// A size row's bits per element, such as `4.50 b/e`, where its table's rows differ in them.
pub fn bits_text(table: &SizeTable, row: &SizeRow) -> String {
    let bits = row.bits_per_element().filter(|_| table.bits_differ());
    bits.map(|b| format!("{b:.2} b/e")).unwrap_or_default()
}

fn io_list(inv: &Inventory, title: &str, graph: &Graph, ids: &[NodeId]) -> Part {
    let mut lines: Vec<String> = (ids.iter().take(MAX_IO))
        .map(|&id| {
            let Some(node) = graph.node(id) else {
                return format!("#{id} (out of range)");
            };
            let (dtype, shape) = match &node.kind {
                // A sequence or map has no element type of its own: its text says it all.
                NodeKind::Value(Value {
                    composite: Some(text),
                    ..
                }) => ("", text.to_string()),
                NodeKind::Value(v) => (dtype_text(v.dtype), shape_text(v.shape.as_deref())),
                NodeKind::Constant { tensor } => match inv.tensors.get(*tensor) {
                    Some(t) => (
                        dtype_text(t.dtype),
                        format!("{} (weight)", dims_text(&t.shape)),
                    ),
                    None => (dtype_text(None), String::new()),
                },
                _ => (dtype_text(None), "(not a value)".into()),
            };
            format!("{:<24} {dtype:<5} {shape}", node.name.display())
        })
        .collect();
    lines.extend(more(ids.len(), MAX_IO, "Graph (tab 3)"));
    Part {
        heading: format!("{title} ({})", ids.len()),
        lines,
    }
}

/// The operator mix: counts by type, most frequent first, several to a line.
fn operators(inv: &Inventory) -> Part {
    let hist = inv.operator_histogram();
    let total: u64 = hist.iter().map(|(_, n)| n).sum();
    let nodes: usize = inv.graphs.iter().map(|g| g.nodes.len()).sum();
    // Users count operators as the graph's nodes; values and weights are its edges.
    let others = (nodes as u64).saturating_sub(total);
    let cells: Vec<String> = (hist.iter().take(MAX_OP_TYPES))
        .map(|(op, n)| {
            format!(
                "{:<27} ",
                format!("{} {n}", crate::escape::column(&sanitize(op), 24))
            )
        })
        .collect();
    let mut lines: Vec<String> = cells
        .chunks(4)
        .map(|c| c.concat().trim_end().to_owned())
        .collect();
    lines.extend(more(hist.len(), MAX_OP_TYPES, "Operators (tab 4)"));
    Part {
        heading: format!(
            "Operators: {total} of {} types in {} graph{}, with {others} values and weights",
            hist.len(),
            inv.graphs.len(),
            if inv.graphs.len() == 1 { "" } else { "s" }
        ),
        lines,
    }
}

/// Imports listed before the rest are counted.
const MAX_IMPORTS: usize = 20;

/// What loading imports and runs: counts by trust, then the first imports, least trusted first.
fn imports(inv: &Inventory) -> Part {
    let mut by_trust: Vec<&super::Import> = inv.imports.iter().collect();
    by_trust.sort_by_key(|i| std::cmp::Reverse(i.trust));
    let unsafe_count = by_trust.iter().filter(|i| !i.trust.is_safe()).count();
    let mut lines: Vec<String> = (by_trust.iter().take(MAX_IMPORTS))
        .map(|i| {
            let call = i
                .call
                .map(|c| {
                    format!(
                        "  (called by {} @{}{})",
                        c.kind,
                        c.offset,
                        if c.count > 1 {
                            format!(", {} calls", c.count)
                        } else {
                            String::new()
                        }
                    )
                })
                .unwrap_or_default();
            format!(
                "{:<10} {:<12} @{:<10} {}{call}",
                i.trust.label(),
                i.kind,
                i.offset,
                i.name.display()
            )
        })
        .collect();
    if inv.imports.len() > MAX_IMPORTS {
        lines.push(format!("... and {} more", inv.imports.len() - MAX_IMPORTS));
    }
    Part {
        heading: format!(
            "Imports ({} that loading runs, {unsafe_count} beyond rebuilding data)",
            inv.imports.len()
        ),
        lines,
    }
}

/// What a check read beside the model and what its loader would say, on one line, for a
/// model that is more than one file or that an architecture table judged:
/// `2 data files · LlamaForCausalLM: matches config.json for transformers 5.24.0: yes ·
/// config.json checked · generation_config.json not checked`.
pub fn checked_note(inv: &Inventory) -> Option<String> {
    let mut parts = Vec::new();
    match inv.files.len().saturating_sub(1) {
        0 => {}
        1 => parts.push("1 data file".to_owned()),
        n => parts.push(format!("{} data files", count_text(n as u64))),
    }
    if let Some(arch) = &inv.architecture {
        parts.push(format!("{}: {}", arch.name.display(), arch.answer()));
        if !arch.companions.is_empty() {
            parts.push(arch.companions_text());
        }
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// A count with its digits grouped by threes: `1,234,567`.
pub fn count_text(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Parameters: how many, in how many tensors, their bytes, by element type on one line, and
/// the largest tensor.
fn tensors(inv: &Inventory) -> Part {
    let t = inv.totals();
    let in_attributes = match t.attribute_parameters {
        0 => String::new(),
        n => format!(" ({} in attributes)", count_text(n)),
    };
    let elsewhere = match t.in_data_files {
        0 => String::new(),
        n if n == t.tensors => " (all in data files)".to_owned(),
        n => format!(" ({} in data files)", count_text(n)),
    };
    let mut lines = vec![format!(
        "{} parameters{in_attributes}, {} in {} tensors{elsewhere}",
        count_text(t.parameters),
        format_size(t.bytes, BINARY),
        count_text(t.tensors),
    )];
    let by_dtype = by_dtype(inv);
    if !by_dtype.is_empty() {
        lines.push(format!("by type  {by_dtype}"));
    }
    if let Some(big) = inv.tensors.iter().max_by_key(|t| t.byte_size) {
        lines.push(format!(
            "largest  {} {} {}",
            crate::escape::clip(big.name.display(), 80),
            dims_text(&big.shape),
            format_size(big.byte_size.unwrap_or(0), BINARY)
        ));
    }
    Part {
        heading: "Parameters".into(),
        lines,
    }
}

/// Parameters and bytes by element type, largest first, on one line:
/// `f32 5651 (22.07 KiB) · f16 ...`.
fn by_dtype(inv: &Inventory) -> String {
    let mut groups = std::collections::HashMap::<&str, (u64, u64)>::new();
    for t in &inv.tensors {
        let entry = groups.entry(dtype_text(t.dtype)).or_default();
        entry.0 = entry.0.saturating_add(t.parameters());
        entry.1 = entry.1.saturating_add(t.byte_size.unwrap_or(0));
    }
    let mut groups: Vec<_> = groups.into_iter().collect();
    groups.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
    let cells = groups
        .iter()
        .map(|(dtype, (elements, bytes))| match elements {
            0 => format!("{dtype} ({})", format_size(*bytes, BINARY)),
            n => format!(
                "{dtype} {} ({})",
                count_text(*n),
                format_size(*bytes, BINARY)
            ),
        });
    cells.collect::<Vec<_>>().join(" · ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_group_their_digits_by_threes() {
        let shown = [0, 7, 999, 1000, 65_536, 1_234_567, u64::MAX].map(super::count_text);
        let expected = [
            "0",
            "7",
            "999",
            "1,000",
            "65,536",
            "1,234,567",
            "18,446,744,073,709,551,615",
        ];
        assert_eq!(shown, expected);
    }
}
