//! Node names that onnxruntime refuses to see twice.

use super::rules::DUPLICATE_NODE_NAME;
use crate::check::{Finding, Findings, Item};
use crate::inventory::{Graph, GraphId, NodeId, NodeKind};
use std::collections::HashMap;

/// Reports each operator of graph `id` whose non-empty name an earlier operator already
/// has. onnxruntime refuses such a graph ("two nodes with same node name"); onnx's checker
/// and function bodies do not care. Constant nodes are left out: onnxruntime turns them
/// into initializers first.
pub(super) fn check_unique(graph: &Graph, id: GraphId, out: &mut Findings) {
    let mut first: HashMap<&[u8], usize, ahash::RandomState> = HashMap::default();
    for (index, node) in graph.nodes.iter().enumerate() {
        let NodeKind::Operator(op) = &node.kind else {
            continue;
        };
        let standard = matches!(op.domain.as_deref(), None | Some("" | "ai.onnx"));
        if node.name.is_empty() || (op.op_type == "Constant" && standard) {
            continue;
        }
        let earlier = *first.entry(node.name.as_bytes()).or_insert(index);
        if earlier == index {
            continue;
        }
        let message = format!(
            "node name \"{}\" is also the name of node {earlier}; onnxruntime refuses a graph \
with two nodes of one name",
            node.name
        );
        let item = Item::Node {
            graph: id,
            node: index as NodeId,
        };
        out.push(
            Finding::new(&DUPLICATE_NODE_NAME, message)
                .at(node.offset)
                .item(item),
        );
    }
}
