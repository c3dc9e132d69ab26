//! Graph-level rules: empty graphs, duplicate names and unused constants.

use super::{DUPLICATE_NAME, EMPTY_GRAPH, UNUSED_CONSTANT};
use crate::check::{Findings, Item, Place};
use crate::inventory::{Graph, Inventory, Name, Node, NodeKind};

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

/// Reports each node whose name an earlier node of the same class already has.
fn duplicates(graph_id: usize, graph: &Graph, out: &mut Findings) {
    for (id, earlier) in graph.repeated_names(class) {
        let Some(node) = graph.node(id) else { continue };
        let what = if class(node) == Some(1) {
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

/// Operators and values are named apart; nodes of unknown kinds are not compared.
fn class(node: Node<'_>) -> Option<u8> {
    match node.kind {
        NodeKind::Operator(_) => Some(1),
        NodeKind::Unknown { .. } => None,
        _ => Some(0),
    }
}

/// The names of every graph's captured values, sorted; made once, when first needed.
fn captured_names(inv: &Inventory) -> Vec<&Name> {
    let mut names: Vec<&Name> = (inv.graphs.iter())
        .flat_map(|g| g.captures.iter().filter_map(|&id| g.node(id)))
        .map(|n| n.name)
        .collect();
    names.sort_unstable();
    names.dedup();
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
        if captured.binary_search(&node.name).is_ok() {
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
