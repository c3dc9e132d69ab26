//! Node names that onnxruntime refuses to see twice in one graph.

use super::node_view::NodeView;
use super::rules::DUPLICATE_NODE_NAME;
use crate::check::{Finding, Item, Place};
use crate::inventory::{GraphId, Name, NodeId};
use std::collections::HashMap;

/// The operator names of one graph seen so far. onnxruntime refuses a graph in which two
/// nodes share a non-empty name ("two nodes with same node name"); onnx's checker and
/// function bodies do not care, and Constant nodes are exempt, as onnxruntime turns them
/// into initializers first. Names are slices of the mapped file, checked while each node is
/// read, so the check costs one hash per node.
#[derive(Default)]
pub(super) struct NodeNames<'b> {
    first: HashMap<&'b [u8], NodeId, ahash::RandomState>,
}

impl<'b> NodeNames<'b> {
    /// Room for `nodes` names.
    pub(super) fn with_capacity(nodes: usize) -> Self {
        NodeNames {
            first: HashMap::with_capacity_and_hasher(nodes, Default::default()),
        }
    }

    /// Records node `id` of `graph` (read as `n`, at `at`), or reports it if an earlier
    /// operator has its name.
    pub(super) fn see(
        &mut self,
        n: &NodeView<'b>,
        graph: GraphId,
        id: NodeId,
        at: Option<u64>,
    ) -> Option<Finding> {
        let standard = matches!(n.domain, b"" | b"ai.onnx");
        if n.name.is_empty() || (n.op_type == b"Constant" && standard) {
            return None;
        }
        let earlier = *self.first.entry(n.name).or_insert(id);
        (earlier != id).then(|| {
            let message = format!(
                "node name \"{}\" is also the name of node {earlier}; onnxruntime refuses a \
graph with two nodes of one name",
                Name::from(n.name)
            );
            Finding::new(
                &DUPLICATE_NODE_NAME,
                Place::at(at).item(Item::Node { graph, node: id }),
                message,
            )
        })
    }
}
