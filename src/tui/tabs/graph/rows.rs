//! Nodes as short text: labels, values with their types, and an operator's one-line summary
//! (`Conv conv1  x f32[1,3,32,32] → c1 f32[1,8,32,32]`). Every piece is bounded, so a row
//! costs the same however long the names, shapes or input lists in the file are.

use crate::escape::sanitize;
use crate::inventory::display::dtype_text;
use crate::inventory::{Dim, Graph, Inventory, NodeId, NodeKind, OpRef, Tensor};
use std::fmt::Write;

/// Characters of a name shown in a row.
const NAME_CHARS: usize = 32;
/// Dimensions of a shape shown before `…`.
const DIMS: usize = 8;
/// Inputs or outputs listed in a row before `+N`.
const LINKS: usize = 3;

/// One-word description of a node: its op type, `value`, `weight` or `?tag`.
pub fn kind(graph: &Graph, id: NodeId) -> String {
    match graph.node(id).map(|n| n.kind) {
        Some(NodeKind::Operator(op)) => tail(&sanitize(op.op_type()), NAME_CHARS),
        Some(NodeKind::Value(_)) => "value".into(),
        Some(NodeKind::Constant { .. }) => "weight".into(),
        Some(NodeKind::Unknown { tag }) => format!("?{tag}"),
        None => "missing".into(),
    }
}

/// A node's name, escaped and cut short.
pub fn name(graph: &Graph, id: NodeId) -> String {
    graph
        .node(id)
        .map(|n| tail(&n.name.display(), NAME_CHARS))
        .unwrap_or_default()
}

/// The last `max` characters of `text`, after `…` if some were cut: the end of a path-like
/// name such as `/encoder/layer.3/attention/MatMul` says the most.
pub fn tail(text: &str, max: usize) -> String {
    let len = text.chars().count();
    if len <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(len - max + 1).collect();
    if max == 0 {
        return kept;
    }
    format!("…{kept}")
}

/// `#id kind "name"`.
pub fn label(graph: &Graph, id: NodeId) -> String {
    format!("#{id} {} \"{}\"", kind(graph, id), name(graph, id))
}

/// A value's or constant's element type and shape, such as `f32[1,3,32,32]`; empty for an
/// operator or a value of unknown type.
pub fn type_text(inv: &Inventory, graph: &Graph, id: NodeId) -> String {
    match graph.node(id).map(|n| n.kind) {
        Some(NodeKind::Value(v)) => {
            let dims = v.shape.as_deref().map(|dims| {
                dims.iter().map(|d| match d {
                    Dim::Fixed(n) => n.to_string(),
                    Dim::Symbolic(s) => tail(&s.display(), 12),
                })
            });
            match (dims, v.dtype, &v.composite) {
                (_, _, Some(text)) => text.to_string(),
                (Some(dims), dtype, None) => format!("{}{}", dtype_text(dtype), compact(dims)),
                (None, Some(dtype), None) => dtype.name().to_owned(),
                (None, None, None) => String::new(),
            }
        }
        Some(NodeKind::Constant { tensor }) => {
            inv.tensors.get(tensor).map_or_else(String::new, |t| {
                let dims = t.shape.iter().map(|&d| match d {
                    Tensor::NOT_A_SIZE => "invalid".to_owned(),
                    d => d.to_string(),
                });
                format!("{}{}", dtype_text(t.dtype), compact(dims))
            })
        }
        _ => String::new(),
    }
}

/// Dimensions as `[1,3,32,32]`, at most [`DIMS`] of them.
fn compact(dims: impl ExactSizeIterator<Item = String>) -> String {
    let len = dims.len();
    let mut text: Vec<String> = dims.take(DIMS).collect();
    if len > DIMS {
        text.push(format!("…{len}"));
    }
    format!("[{}]", text.join(","))
}

/// `name dtype[shape]`, or the name alone when nothing is known of the type.
pub fn value_text(inv: &Inventory, graph: &Graph, id: NodeId) -> String {
    match type_text(inv, graph, id) {
        t if t.is_empty() => name(graph, id),
        t => format!("{} {t}", name(graph, id)),
    }
}

/// Up to [`LINKS`] of `ids` as [`value_text`], with `+N` for the rest.
fn links(
    inv: &Inventory,
    graph: &Graph,
    ids: &[Option<NodeId>],
    skip: impl Fn(NodeId) -> bool,
) -> String {
    let mut shown = 0;
    let mut text = String::new();
    // Looking further than this for links to show would cost time on hostile lists.
    for &id in ids.iter().take(LINKS * 16).flatten() {
        if shown == LINKS || skip(id) {
            continue;
        }
        if shown > 0 {
            text.push_str(", ");
        }
        text.push_str(&value_text(inv, graph, id));
        shown += 1;
    }
    let rest = ids.len().saturating_sub(shown);
    if rest > 0 {
        let _ = write!(text, " +{rest}");
    }
    text
}

/// What flows in and out of `op`: its inputs that are not constants, then its outputs.
pub fn flow(inv: &Inventory, graph: &Graph, op: OpRef<'_>) -> (String, String) {
    let constant = |id| {
        matches!(
            graph.node(id).map(|n| n.kind),
            Some(NodeKind::Constant { .. })
        )
    };
    (
        links(inv, graph, op.inputs(), constant),
        links(inv, graph, op.outputs(), |_| false),
    )
}

/// An operator's row: `Conv conv1  x f32[1,3,32,32] → c1 f32[1,8,32,32]`; for any other node,
/// its kind, name and type.
pub fn summary(inv: &Inventory, graph: &Graph, id: NodeId) -> (String, String, String) {
    match graph.node(id).map(|n| n.kind) {
        Some(NodeKind::Operator(op)) => {
            let (ins, outs) = flow(inv, graph, op);
            (kind(graph, id), name(graph, id), format!("{ins} → {outs}"))
        }
        _ => (kind(graph, id), name(graph, id), type_text(inv, graph, id)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::index::tests::{inventory, node, op};
    use super::*;
    use crate::inventory::{NewKind, Value};

    #[test]
    fn a_row_lists_what_flows_in_and_out_with_long_lists_cut() {
        let value = |shape: Vec<u64>| {
            node(NewKind::Value(Value {
                dtype: Some(crate::inventory::DType::F16),
                shape: Some(shape.into_iter().map(Dim::Fixed).collect::<Vec<_>>().into()),
                composite: None,
            }))
        };
        let mut nodes = vec![value(vec![1, 3]), value((0..20).collect())];
        nodes.push(op(&[0, 0, 0, 0, 0], &[1]));
        let inv = inventory(nodes);
        let g = &inv.graphs[0];
        let (kind, _, flow) = summary(&inv, g, 2);
        assert_eq!(kind, "Op");
        assert_eq!(
            flow,
            "n f16[1,3], n f16[1,3], n f16[1,3] +2 → n f16[0,1,2,3,4,5,6,7,…20]"
        );
        assert_eq!(summary(&inv, g, 0).2, "f16[1,3]");
        assert_eq!(label(g, 9), "#9 missing \"\"");
        assert_eq!(tail("/a/b/MatMul", 7), "…MatMul");
        assert_eq!(tail("ééé", 3), "ééé");
        assert_eq!(tail("abc", 0), "");
    }
}
