//! Inventory values as text, for the `inspect` summary and the browser alike: dtypes, shapes
//! and attribute values, and the whole model described part by part.

use super::{
    AttrValue, DType, Dim, Graph, Inventory, NodeId, NodeKind, SizeRow, SizeTable, Storage, Tensor,
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

/// The model described part by part: the file, its properties, sections, main-graph inputs
/// and outputs, operator counts, tensor totals and metadata (parts with nothing to say about
/// optional facts are left out).
pub fn describe(inv: &Inventory) -> Vec<Part> {
    let mut parts = vec![file(inv)];
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
    parts.push(sections(inv));
    parts.extend(inv.sizes.iter().map(|table| size_table(inv, table)));
    if let Some(graph) = inv.graphs.first() {
        parts.push(io_list(inv, "Inputs", graph, &graph.inputs));
        parts.push(io_list(inv, "Outputs", graph, &graph.outputs));
    }
    if !inv.graphs.is_empty() {
        parts.push(operators(inv));
    }
    parts.push(tensors(inv));
    if !inv.imports.is_empty() {
        parts.push(imports(inv));
    }
    if !inv.metadata.is_empty() {
        parts.push(Part {
            heading: "Metadata".into(),
            lines: inv
                .metadata
                .iter()
                .map(|m| format!("{:<18} {}", m.key.display(), m.value.display()))
                .collect(),
        });
    }
    parts
}

fn file(inv: &Inventory) -> Part {
    let main = inv.main_file();
    let size = main.size.unwrap_or(0);
    let mut lines = vec![
        format!("format   {} {}", inv.format, inv.format_version),
        format!("size     {} ({size} bytes)", format_size(size, BINARY)),
    ];
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

fn sections(inv: &Inventory) -> Part {
    let mut lines = Vec::new();
    let mut file = 0;
    for s in &inv.sections {
        if s.file != file {
            file = s.file;
            let path = inv
                .files
                .get(file)
                .map(|f| f.path.display().to_string())
                .unwrap_or_default();
            lines.push(format!("in {}", sanitize(&path)));
        }
        let r = s.range;
        lines.push(format!(
            "{:<14} {:>12} .. {:<12} {:>10}",
            s.kind.label(),
            r.start,
            r.end(),
            format_size(r.len, BINARY)
        ));
    }
    Part {
        heading: "Sections".into(),
        lines,
    }
}

/// A size breakdown, each row with its share of all the files' bytes.
/// A size row's bits per element, such as `4.50 b/e`, where its table's rows differ in them.
pub fn bits_text(table: &SizeTable, row: &SizeRow) -> String {
    let bits = row.bits_per_element().filter(|_| table.bits_differ());
    bits.map(|b| format!("{b:.2} b/e")).unwrap_or_default()
}

fn size_table(inv: &Inventory, table: &SizeTable) -> Part {
    let whole = inv
        .files
        .iter()
        .filter_map(|f| f.size)
        .fold(0u64, u64::saturating_add)
        .max(1);
    let lines = table
        .rows
        .iter()
        .map(|row| {
            let items = row.items.map(|n| format!("  ({n})")).unwrap_or_default();
            let share = row.bytes as f64 * 100.0 / whole as f64;
            let bits = bits_text(table, row);
            let bits = if bits.is_empty() {
                bits
            } else {
                format!("  {bits}")
            };
            format!(
                "{:<40} {:>10} {share:>6.1}%{items}{bits}",
                crate::escape::clip(row.label.display(), 40),
                format_size(row.bytes, BINARY)
            )
        })
        .collect();
    Part {
        heading: format!("Size {}", table.title),
        lines,
    }
}

fn io_list(inv: &Inventory, title: &str, graph: &Graph, ids: &[NodeId]) -> Part {
    let lines = ids
        .iter()
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
                        format!("{} (constant)", dims_text(&t.shape)),
                    ),
                    None => (dtype_text(None), String::new()),
                },
                _ => (dtype_text(None), "(not a value)".into()),
            };
            format!("{:<24} {dtype:<5} {shape}", node.name.display())
        })
        .collect();
    Part {
        heading: format!("{title} ({})", ids.len()),
        lines,
    }
}

fn operators(inv: &Inventory) -> Part {
    let hist = inv.operator_histogram();
    let total: u64 = hist.iter().map(|(_, n)| n).sum();
    let nodes: usize = inv.graphs.iter().map(|g| g.nodes.len()).sum();
    // Users count operators as the graph's nodes; values and constants are its edges.
    let others = (nodes as u64).saturating_sub(total);
    Part {
        heading: format!(
            "Operators ({total} in {} graph{}; the graphs also hold {others} values and constants)",
            inv.graphs.len(),
            if inv.graphs.len() == 1 { "" } else { "s" }
        ),
        lines: hist
            .into_iter()
            .map(|(op, n)| format!("{:<24} {n:>8}", sanitize(op)))
            .collect(),
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

fn tensors(inv: &Inventory) -> Part {
    let t = inv.totals();
    let inline = inv
        .tensors
        .iter()
        .filter(|t| t.storage == Storage::Inline)
        .count();
    let in_attributes = match t.attribute_parameters {
        0 => String::new(),
        n => format!(" ({n} in attributes)"),
    };
    // Without a graph, every tensor is a weight: none is a constant of a graph.
    let kinds = if inv.graphs.is_empty() {
        "tensors"
    } else {
        "constants"
    };
    let mut lines = vec![format!(
        "{} {kinds} ({} external, {inline} inline), {} parameters{in_attributes}, {}",
        t.tensors,
        t.external,
        t.parameters,
        format_size(t.bytes, BINARY)
    )];
    if let Some(big) = inv.tensors.iter().max_by_key(|t| t.byte_size) {
        lines.push(format!(
            "largest: {} {} {}",
            big.name.display(),
            dims_text(&big.shape),
            format_size(big.byte_size.unwrap_or(0), BINARY)
        ));
    }
    Part {
        heading: "Tensors".into(),
        lines,
    }
}
