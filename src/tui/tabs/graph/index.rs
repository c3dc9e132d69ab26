//! Who produces and who consumes each node of a graph, built once per graph as compact arrays
//! of `u32` (compressed sparse rows): 8 bytes a node and 4 a link.

use crate::inventory::grouped::Grouped;
use crate::inventory::{GraphId, Inventory, NodeId, NodeKind, Nodes};

/// No producer.
const NONE: u32 = u32::MAX;

/// Producer and consumers of every node of one graph.
pub struct GraphIndex {
    /// The graph indexed.
    pub graph: GraphId,
    /// The operator writing each node, or [`NONE`].
    producer: Vec<u32>,
    /// The operators reading each node.
    consumers: Grouped<NodeId>,
    /// The graph's inputs and its captures, each sorted, to tell what a value with no
    /// producer is.
    inputs: Vec<NodeId>,
    captures: Vec<NodeId>,
}

/// Where a node's data comes from, in the words of the panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Written by an operator.
    Operator(NodeId),
    /// A graph input.
    GraphInput,
    /// A value captured by name from an enclosing graph.
    Captured,
    /// A weight (an initializer): a tensor stored in the file.
    Weight,
    /// A value that nothing writes.
    Unwritten,
}

impl Origin {
    /// The words for an origin other than an operator.
    pub fn words(self) -> &'static str {
        match self {
            Origin::Operator(_) => "an operator",
            Origin::GraphInput => "graph input",
            Origin::Captured => "captured from the enclosing graph",
            Origin::Weight => "weight (stored in the file)",
            Origin::Unwritten => "nothing (a value no operator writes)",
        }
    }
}

impl GraphIndex {
    /// Indexes graph `graph` of `inv` (an empty index if it does not exist). Links past
    /// `u32::MAX` in all are left out, so no count can overflow.
    pub fn build(inv: &Inventory, graph: GraphId) -> Self {
        let none = Nodes::default();
        let nodes = inv.graphs.get(graph).map_or(&none, |g| &g.nodes);
        let n = nodes.len().min(NONE as usize - 1);
        let mut producer = vec![NONE; n];
        let ops = (0u32..)
            .zip(nodes.iter().take(n))
            .filter_map(|(id, node)| match node.kind {
                NodeKind::Operator(op) => Some((id, op)),
                _ => None,
            });
        for (id, op) in ops.clone() {
            for &out in op.outputs().iter().flatten() {
                if let Some(slot) = producer.get_mut(out as usize) {
                    *slot = id;
                }
            }
        }
        let reads = ops.flat_map(|(id, op)| op.inputs().iter().flatten().map(move |&i| (id, i)));
        let consumers = Grouped::build(n, reads);
        let sorted = |ids: Option<&Vec<NodeId>>| {
            let mut ids = ids.cloned().unwrap_or_default();
            ids.sort_unstable();
            ids
        };
        let g = inv.graphs.get(graph);
        GraphIndex {
            graph,
            producer,
            consumers,
            inputs: sorted(g.map(|g| &g.inputs)),
            captures: sorted(g.map(|g| &g.captures)),
        }
    }

    /// Where `node`'s data comes from: the operator that writes it, or what it is.
    pub fn origin(&self, inv: &Inventory, node: NodeId) -> Origin {
        if let Some(p) = self.producer(node) {
            return Origin::Operator(p);
        }
        let kind = inv.graphs.get(self.graph).and_then(|g| g.node(node));
        if let Some(NodeKind::Constant { .. }) = kind.map(|n| n.kind) {
            Origin::Weight
        } else if self.inputs.binary_search(&node).is_ok() {
            Origin::GraphInput
        } else if self.captures.binary_search(&node).is_ok() {
            Origin::Captured
        } else {
            Origin::Unwritten
        }
    }

    /// The operator that writes `node`, if any.
    pub fn producer(&self, node: NodeId) -> Option<NodeId> {
        self.producer
            .get(node as usize)
            .copied()
            .filter(|&p| p != NONE)
    }

    /// The operators that read `node`.
    pub fn consumers(&self, node: NodeId) -> &[NodeId] {
        self.consumers.get(node)
    }

    /// Bytes the index holds.
    pub fn bytes(&self) -> usize {
        let lists = [&self.producer, &self.inputs, &self.captures];
        4 * lists.iter().map(|l| l.capacity()).sum::<usize>() + self.consumers.bytes()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::inventory::{FileEntry, FileFormat, Graph, NewKind, NewNode, Operator, Value};

    pub fn node(kind: NewKind) -> NewNode {
        NewNode {
            name: "n".into(),
            kind,
            offset: crate::inventory::Offset::NONE,
        }
    }

    pub fn op(inputs: &[u32], outputs: &[u32]) -> NewNode {
        node(NewKind::Operator(Operator::new(
            "Op".into(),
            Box::new([]),
            inputs.iter().map(|&i| Some(i)).collect::<Vec<_>>(),
            outputs.iter().map(|&i| Some(i)).collect::<Vec<_>>(),
        )))
    }

    /// An inventory whose main graph is `nodes`.
    pub fn inventory(nodes: Vec<NewNode>) -> Inventory {
        let file = FileEntry::model("m", 0);
        let mut inv = Inventory::new(FileFormat::Read("rten"), "", file);
        inv.graphs.push(Graph {
            nodes: nodes.into_iter().collect(),
            ..Graph::default()
        });
        inv
    }

    /// x -> a -> y; x -> b -> z; (y, z, c) -> m -> w -> r; 30 more readers of w; and an
    /// operator reading node 99, which does not exist. Returns the inventory and m.
    pub fn diamond() -> (Inventory, NodeId) {
        let value = || node(NewKind::Value(Value::default()));
        let mut nodes = vec![
            value(),                               // 0 x
            op(&[0], &[3]),                        // 1 a
            op(&[0], &[4]),                        // 2 b
            value(),                               // 3 y
            value(),                               // 4 z
            op(&[3, 4, 8], &[6]),                  // 5 m
            value(),                               // 6 w
            op(&[6], &[]),                         // 7 r
            node(NewKind::Constant { tensor: 0 }), // 8 c
        ];
        nodes.extend((0..30).map(|_| op(&[6], &[])));
        nodes.push(op(&[99], &[]));
        (inventory(nodes), 5)
    }

    #[test]
    fn producers_and_consumers_of_a_branch_and_a_merge() {
        let (inv, m) = diamond();
        let index = GraphIndex::build(&inv, 0);
        assert_eq!(index.consumers(0), [1, 2]);
        assert_eq!(index.consumers(3), [m]);
        assert_eq!(index.consumers(6).len(), 31);
        assert_eq!(index.consumers(7), [] as [u32; 0]);
        assert_eq!(index.consumers(99), [] as [u32; 0]);
        assert_eq!(
            (index.producer(3), index.producer(6), index.producer(0)),
            (Some(1), Some(m), None)
        );
        assert_eq!(index.bytes(), 4 * (40 + 41 + 36), "40 nodes, 36 links");
        assert_eq!(GraphIndex::build(&inv, 7).consumers(0), [] as [u32; 0]);
    }
}
