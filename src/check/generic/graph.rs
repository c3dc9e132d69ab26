//! Graph-level rules: empty graphs, duplicate names and unused constants.

use super::{DUPLICATE_NAME, EMPTY_GRAPH, UNUSED_CONSTANT};
use crate::check::{Finding, Item};
use crate::inventory::{Graph, Inventory, NodeKind};
use std::collections::HashSet;

pub(super) fn check(inv: &Inventory, out: &mut Vec<Finding>) {
    if let Some(main) = inv.graphs.first() {
        if !main
            .nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::Operator(_)))
        {
            out.push(
                Finding::new(
                    &EMPTY_GRAPH,
                    format!(
                        "the main graph has {} nodes and no operators",
                        main.nodes.len()
                    ),
                )
                .at(main.offset)
                .item(Item::Graph { graph: 0 }),
            );
        }
    }
    let captured: HashSet<&[u8]> = inv
        .graphs
        .iter()
        .flat_map(|g| g.captures.iter().filter_map(|&id| g.node(id)))
        .map(|n| n.name.as_bytes())
        .collect();
    for (index, graph) in inv.graphs.iter().enumerate() {
        duplicates(index, graph, out);
        unused_constants(index, graph, &captured, out);
    }
}

/// Reports each node whose name an earlier node of the same class already has. Sorting
/// rather than hashing keeps this O(n log n) whatever names a hostile file holds.
fn duplicates(graph_id: usize, graph: &Graph, out: &mut Vec<Finding>) {
    // Keys carry each name's length and first 8 bytes, computed once: most names differ
    // there, so few comparisons reach a memcmp.
    let mut named: Vec<(bool, usize, u64, &[u8], u32)> = (0u32..)
        .zip(&graph.nodes)
        .filter(|(_, n)| !n.name.is_empty() && !matches!(n.kind, NodeKind::Unknown { .. }))
        .map(|(id, n)| {
            let name = n.name.as_bytes();
            (
                matches!(n.kind, NodeKind::Operator(_)),
                name.len(),
                prefix(name),
                name,
                id,
            )
        })
        .collect();
    named.sort_unstable();
    for group in named.chunk_by(|a, b| (a.0, a.3) == (b.0, b.3)) {
        let [(is_op, _, _, _, first), rest @ ..] = group else {
            continue;
        };
        let what = if *is_op { "operator" } else { "value" };
        for &(.., id) in rest {
            let node = &graph.nodes[id as usize];
            out.push(
                Finding::new(
                    &DUPLICATE_NAME,
                    format!("{what} name \"{}\" is also used by node {first}", node.name),
                )
                .at(node.offset)
                .item(Item::Node {
                    graph: graph_id,
                    node: id,
                }),
            );
        }
    }
}

/// The first 8 bytes of `name`, big-endian, so that integer order is byte order.
fn prefix(name: &[u8]) -> u64 {
    let mut head = [0u8; 8];
    let n = name.len().min(8);
    head[..n].copy_from_slice(&name[..n]);
    u64::from_be_bytes(head)
}

fn unused_constants(
    graph_id: usize,
    graph: &Graph,
    captured: &HashSet<&[u8]>,
    out: &mut Vec<Finding>,
) {
    let mut used = vec![false; graph.nodes.len()];
    let mut mark = |id: u32| {
        if let Some(slot) = usize::try_from(id).ok().and_then(|i| used.get_mut(i)) {
            *slot = true;
        }
    };
    for node in &graph.nodes {
        if let NodeKind::Operator(op) = &node.kind {
            op.inputs.iter().flatten().for_each(|&id| mark(id));
        }
    }
    graph.outputs.iter().for_each(|&id| mark(id));
    for (id, (node, used)) in (0u32..).zip(graph.nodes.iter().zip(used)) {
        let NodeKind::Constant { .. } = node.kind else {
            continue;
        };
        if used || captured.contains(node.name.as_bytes()) {
            continue;
        }
        out.push(
            Finding::new(
                &UNUSED_CONSTANT,
                format!(
                    "constant \"{}\" is read by no operator and is not a graph output",
                    node.name
                ),
            )
            .at(node.offset)
            .item(Item::Node {
                graph: graph_id,
                node: id,
            }),
        );
    }
}
