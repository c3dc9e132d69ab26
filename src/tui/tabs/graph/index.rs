//! Who produces and who consumes each value of a graph, for the Graph view's detail pane.

use crate::inventory::{GraphId, Inventory, NodeId, NodeKind};

/// Producer and consumers of every node of one graph, in compressed form: built with two
/// passes over the operators and no allocation per node.
pub struct GraphIndex {
    /// The graph indexed.
    pub graph: GraphId,
    producer: Vec<Option<NodeId>>,
    starts: Vec<usize>,
    consumers: Vec<NodeId>,
}

impl GraphIndex {
    /// Indexes graph `graph` of `inv` (an empty index if it does not exist).
    pub fn build(inv: &Inventory, graph: GraphId) -> Self {
        let nodes = inv.graphs.get(graph).map_or(&[][..], |g| &g.nodes[..]);
        let n = nodes.len();
        let mut producer = vec![None; n];
        let mut counts = vec![0usize; n + 1];
        let ops = (0u32..)
            .zip(nodes)
            .filter_map(|(id, node)| match &node.kind {
                NodeKind::Operator(op) => Some((id, op)),
                _ => None,
            });
        for (id, op) in ops.clone() {
            for &out in op.outputs.iter().flatten() {
                if let Some(slot) = producer.get_mut(out as usize) {
                    *slot = Some(id);
                }
            }
            for &input in op.inputs.iter().flatten() {
                if let Some(c) = counts.get_mut(input as usize) {
                    *c += 1;
                }
            }
        }
        let mut starts = Vec::with_capacity(n + 1);
        let mut total = 0;
        for c in &counts[..n] {
            starts.push(total);
            total += c;
        }
        starts.push(total);
        let mut fill = starts.clone();
        let mut consumers = vec![0; total];
        for (id, op) in ops {
            for &input in op.inputs.iter().flatten() {
                if let Some(pos) = fill.get_mut(input as usize) {
                    consumers[*pos] = id;
                    *pos += 1;
                }
            }
        }
        GraphIndex {
            graph,
            producer,
            starts,
            consumers,
        }
    }

    /// The operator that writes `node`, if any.
    pub fn producer(&self, node: NodeId) -> Option<NodeId> {
        self.producer.get(node as usize).copied().flatten()
    }

    /// The operators that read `node`.
    pub fn consumers(&self, node: NodeId) -> &[NodeId] {
        let i = node as usize;
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.consumers[a..b],
            _ => &[],
        }
    }
}
