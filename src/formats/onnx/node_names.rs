//! Node names that onnxruntime refuses to see twice in one graph.

use super::rules::DUPLICATE_NODE_NAME;
use crate::check::{Findings, Item, Place};
use crate::inventory::{GraphId, Inventory, Node, NodeKind};

/// Reports each operator whose name an earlier operator of its graph has. onnxruntime
/// refuses a graph in which two nodes share a non-empty name ("two nodes with same node
/// name"); onnx's checker and function bodies (`function_bodies`, ascending) do not care, and
/// Constant nodes are exempt, as onnxruntime turns them into initializers first.
pub(super) fn check(inv: &Inventory, function_bodies: &[GraphId], out: &mut Findings) {
    for (graph_id, graph) in inv.graphs.iter().enumerate() {
        if function_bodies.binary_search(&graph_id).is_ok() {
            continue;
        }
        for (id, earlier) in graph.repeated_names(named) {
            let Some(node) = graph.node(id) else { continue };
            let message = format!(
                "node name \"{}\" is also the name of node {earlier}; onnxruntime refuses a \
graph with two nodes of one name",
                node.name
            );
            let item = Item::Node {
                graph: graph_id,
                node: id,
            };
            out.add(
                &DUPLICATE_NODE_NAME,
                Place::at(node.offset).item(item),
                message,
            );
        }
    }
}

/// Operators other than the standard domain's Constant are held to unique names.
fn named(node: Node<'_>) -> Option<u8> {
    let NodeKind::Operator(op) = node.kind else {
        return None;
    };
    let standard = matches!(op.domain(), None | Some("" | "ai.onnx"));
    (!(op.op_type() == "Constant" && standard)).then_some(0)
}
