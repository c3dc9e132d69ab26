//! Graph-level rules: empty graphs, duplicate names and unused constants.

use super::{DUPLICATE_NAME, EMPTY_GRAPH, UNUSED_CONSTANT};
use crate::check::{Findings, Item, Place};
use crate::inventory::{Graph, Inventory, Name, NodeKind};
use std::cmp::Ordering;

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
    for (index, graph) in inv.graphs.iter().enumerate() {
        duplicates(index, graph, out);
    }
    let mut captured: Option<Vec<&Name>> = None;
    for (index, graph) in inv.graphs.iter().enumerate() {
        unused_constants(index, graph, inv, &mut captured, out);
    }
}

/// Orders names by their bytes; two handles to one copy are equal without reading it, so a
/// name shared by a million nodes is compared once per distinct copy, not per byte.
fn by_text(a: &Name, b: &Name) -> Ordering {
    if std::ptr::eq(a.as_bytes(), b.as_bytes()) {
        Ordering::Equal
    } else {
        a.as_bytes().cmp(b.as_bytes())
    }
}

/// Reports each node whose name an earlier node of the same class already has. Sorting the
/// named nodes takes 16 bytes a node and O(n log n) comparisons; a hash map of names took
/// five times the memory on a million-node graph.
fn duplicates(graph_id: usize, graph: &Graph, out: &mut Findings) {
    let mut named: Vec<(bool, &Name, u32)> = (0u32..)
        .zip(&graph.nodes)
        .filter(|(_, n)| !n.name.is_empty() && !matches!(n.kind, NodeKind::Unknown { .. }))
        .map(|(id, n)| (matches!(n.kind, NodeKind::Operator(_)), &n.name, id))
        .collect();
    named.sort_unstable_by(|a, b| {
        (a.0.cmp(&b.0))
            .then_with(|| by_text(a.1, b.1))
            .then(a.2.cmp(&b.2))
    });
    // (node, the first node of its name), in node order.
    let mut repeats: Vec<(u32, u32)> = Vec::new();
    for run in named.chunk_by(|a, b| a.0 == b.0 && by_text(a.1, b.1) == Ordering::Equal) {
        if let [(_, _, first), rest @ ..] = run {
            repeats.extend(rest.iter().map(|&(_, _, id)| (id, *first)));
        }
    }
    repeats.sort_unstable();
    for (id, earlier) in repeats {
        let Some(node) = graph.node(id) else { continue };
        let what = if matches!(node.kind, NodeKind::Operator(_)) {
            "operator"
        } else {
            "value"
        };
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

/// The names of every graph's captured values, sorted; made once, when first needed.
fn captured_names(inv: &Inventory) -> Vec<&Name> {
    let mut names: Vec<&Name> = (inv.graphs.iter())
        .flat_map(|g| g.captures.iter().filter_map(|&id| g.node(id)))
        .map(|n| &n.name)
        .collect();
    names.sort_unstable_by(|a, b| by_text(a, b));
    names.dedup_by(|a, b| by_text(a, b) == Ordering::Equal);
    names
}

fn unused_constants<'a>(
    graph_id: usize,
    graph: &'a Graph,
    inv: &'a Inventory,
    captured: &mut Option<Vec<&'a Name>>,
    out: &mut Findings,
) {
    let mut used = vec![false; graph.nodes.len()];
    let mut mark = |id: u32| {
        if let Some(slot) = usize::try_from(id).ok().and_then(|i| used.get_mut(i)) {
            *slot = true;
        }
    };
    for node in &graph.nodes {
        if let NodeKind::Operator(op) = &node.kind {
            op.inputs().iter().flatten().for_each(|&id| mark(id));
        }
    }
    graph.outputs.iter().for_each(|&id| mark(id));
    for (id, (node, used)) in (0u32..).zip(graph.nodes.iter().zip(used)) {
        let NodeKind::Constant { .. } = node.kind else {
            continue;
        };
        if used {
            continue;
        }
        let captured = captured.get_or_insert_with(|| captured_names(inv));
        if captured
            .binary_search_by(|c| by_text(c, &node.name))
            .is_ok()
        {
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
