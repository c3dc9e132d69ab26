//! Graph-level rules: empty graphs, duplicate names and unused constants.

use super::{DUPLICATE_NAME, EMPTY_GRAPH, UNUSED_CONSTANT};
use crate::check::{Findings, Item, Place};
use crate::inventory::{Graph, Inventory, NodeKind};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

pub(super) fn check(inv: &Inventory, out: &mut Findings) {
    if let Some(main) = inv.graphs.first() {
        if !main
            .nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::Operator(_)))
        {
            out.add(
                &EMPTY_GRAPH,
                Place::at(main.offset).item(Item::Graph { graph: 0 }),
                format!(
                    "the main graph has {} nodes and no operators",
                    main.nodes.len()
                ),
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

/// Reports each node whose name an earlier node of the same class already has. The map is
/// keyed with ahash, seeded at random per process, so a hostile file cannot choose names that
/// collide.
fn duplicates(graph_id: usize, graph: &Graph, out: &mut Findings) {
    let mut first: HashMap<(bool, &[u8]), u32, ahash::RandomState> =
        HashMap::with_capacity_and_hasher(graph.nodes.len(), ahash::RandomState::new());
    for (id, node) in (0u32..).zip(&graph.nodes) {
        if node.name.is_empty() || matches!(node.kind, NodeKind::Unknown { .. }) {
            continue;
        }
        let is_op = matches!(node.kind, NodeKind::Operator(_));
        let earlier = match first.entry((is_op, node.name.as_bytes())) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                e.insert(id);
                continue;
            }
        };
        let what = if is_op { "operator" } else { "value" };
        out.add(
            &DUPLICATE_NAME,
            Place::at(node.offset).item(Item::Node {
                graph: graph_id,
                node: id,
            }),
            format!(
                "{what} name \"{}\" is also used by node {}",
                node.name, earlier
            ),
        );
    }
}

fn unused_constants(graph_id: usize, graph: &Graph, captured: &HashSet<&[u8]>, out: &mut Findings) {
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
        out.add(
            &UNUSED_CONSTANT,
            Place::at(node.offset).item(Item::Node {
                graph: graph_id,
                node: id,
            }),
            format!(
                "constant \"{}\" is read by no operator and is not a graph output",
                node.name
            ),
        );
    }
}
