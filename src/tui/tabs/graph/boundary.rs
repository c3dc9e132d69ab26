//! A scope's boundary: what flows into a scope of the main graph from outside it and out of
//! it to the outside, for the neighbourhood view that draws the scope as one box.
//!
//! An operator is inside when its scope is the scope or below it; values belong to the
//! operator that writes them. One pass over the links of the operators inside, each end
//! placed with a walk up the tree of at most its depth, each value written inside followed
//! to its readers once, then a sort: O(n log n) in the links of the graph, computed once when
//! the view opens, not per frame.

use super::index::GraphIndex;
use crate::inventory::{Graph, NodeId, NodeKind, ScopeId, ScopeTree};

/// What crosses the edge of one scope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Boundary {
    /// The scope.
    pub scope: ScopeId,
    /// Operators outside writing a value read inside, and graph inputs read inside, each
    /// once, in graph order.
    pub producers: Vec<NodeId>,
    /// Operators outside reading a value written inside, and the values written inside that
    /// nothing reads (graph outputs), each once, in graph order.
    pub consumers: Vec<NodeId>,
    /// Links crossing in: a value from outside read by an operator inside (each input slot).
    pub edges_in: usize,
    /// Links crossing out: a value written inside read by an operator outside, or read by
    /// nothing.
    pub edges_out: usize,
}

impl Boundary {
    /// The boundary of `scope` of the main graph `graph`, whose index is `index`.
    pub fn of(graph: &Graph, index: &GraphIndex, tree: &ScopeTree, scope: ScopeId) -> Self {
        let inside = |op: NodeId| tree.within(tree.scope_of(op), scope);
        let mut out = Boundary {
            scope,
            ..Boundary::default()
        };
        // Values written inside: a value listed by several writers is followed once, so a
        // file whose operators all write one value read a million times stays linear.
        let mut written = Vec::new();
        for id in tree.operators_within(scope) {
            let Some(NodeKind::Operator(op)) = graph.node(id).map(|n| n.kind) else {
                continue;
            };
            written.extend(op.outputs().iter().flatten());
            for &input in op.inputs().iter().flatten() {
                let from = match index.producer(input) {
                    Some(p) if inside(p) => continue,
                    Some(p) => p,
                    // A value nothing writes is a graph input; weights are the scope's own.
                    None => match graph.node(input).map(|n| n.kind) {
                        Some(NodeKind::Value(_)) => input,
                        _ => continue,
                    },
                };
                out.producers.push(from);
                out.edges_in += 1;
            }
        }
        written.sort_unstable();
        written.dedup();
        for output in written {
            let readers = index.consumers(output);
            if readers.is_empty() {
                out.consumers.push(output);
                out.edges_out += 1;
            }
            for &reader in readers.iter().filter(|&&r| !inside(r)) {
                out.consumers.push(reader);
                out.edges_out += 1;
            }
        }
        for ends in [&mut out.producers, &mut out.consumers] {
            ends.sort_unstable();
            ends.dedup();
            ends.shrink_to_fit();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::index::tests::{inventory, node, op};
    use super::*;
    use crate::inventory::{Inventory, NewKind, Value};

    /// `x → /a/A → /a/B → /b/C → y`, `/a/B` also read by `/c/D` (its output nothing reads), and
    /// a weight read by `/a/A`.
    fn chain() -> Inventory {
        let named = |mut n: crate::inventory::NewNode, name: &str| {
            n.name = name.into();
            n
        };
        let value = || node(NewKind::Value(Value::default()));
        let nodes = vec![
            named(value(), "x"),                   // 0
            named(op(&[0, 2], &[3]), "/a/A"),      // 1
            node(NewKind::Constant { tensor: 0 }), // 2
            named(value(), "/a/A_out"),            // 3
            named(op(&[3], &[5]), "/a/inner/B"),   // 4
            named(value(), "/a/B_out"),            // 5
            named(op(&[5], &[7]), "/b/C"),         // 6
            named(value(), "y"),                   // 7
            named(op(&[5], &[9]), "/c/D"),         // 8
            named(value(), "/c/D_out"),            // 9
        ];
        inventory(nodes)
    }

    #[test]
    fn a_scope_has_what_flows_across_its_edge_and_nothing_inside() {
        let inv = chain();
        let g = &inv.graphs[0];
        let index = GraphIndex::build(&inv, 0);
        let tree = ScopeTree::build(&inv);
        let find = |name: &str| {
            let s = tree
                .scopes
                .iter()
                .position(|s| s.name.as_str() == Some(name));
            s.expect(name) as ScopeId
        };
        let a = Boundary::of(g, &index, &tree, find("a"));
        assert_eq!(
            a.producers,
            [0],
            "the graph input, not the weight nor A for B"
        );
        assert_eq!(a.consumers, [6, 8], "C and D read B's output");
        assert_eq!((a.edges_in, a.edges_out), (1, 2));
        let inner = Boundary::of(g, &index, &tree, find("inner"));
        assert_eq!((inner.producers, inner.consumers), (vec![1], vec![6, 8]));
        let c = Boundary::of(g, &index, &tree, find("c"));
        assert_eq!(c.producers, [4]);
        assert_eq!(
            c.consumers,
            [9],
            "an output nothing reads stands for itself"
        );
        let root = Boundary::of(g, &index, &tree, 0);
        assert_eq!((root.producers, root.consumers), (vec![0], vec![7, 9]));
        let none = Boundary::of(g, &index, &tree, 999);
        assert_eq!((none.edges_in, none.edges_out), (0, 0));
    }

    /// Operators inside that all list one output: its readers are counted once, not once per
    /// writer (a file can make that a million writers of a value read a million times).
    #[test]
    fn a_value_written_many_times_inside_is_followed_once() {
        let named = |mut n: crate::inventory::NewNode, name: &str| {
            n.name = name.into();
            n
        };
        let mut nodes = vec![named(node(NewKind::Value(Value::default())), "/a/v")];
        nodes.extend((0..1000).map(|_| named(op(&[], &[0]), "/a/W")));
        nodes.extend((0..1000).map(|_| named(op(&[0], &[]), "/b/R")));
        let inv = inventory(nodes);
        let (index, tree) = (GraphIndex::build(&inv, 0), ScopeTree::build(&inv));
        let a = tree
            .scopes
            .iter()
            .position(|s| s.name.as_str() == Some("a"));
        let b = Boundary::of(&inv.graphs[0], &index, &tree, a.unwrap() as ScopeId);
        assert_eq!((b.edges_out, b.consumers.len()), (1000, 1000));
    }
}
