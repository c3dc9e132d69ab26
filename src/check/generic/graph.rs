//! Graph-level rules: empty graphs, duplicate names and unused constants.

use super::{DUPLICATE_NAME, EMPTY_GRAPH, UNUSED_CONSTANT};
use crate::check::{Findings, Item, Place};
use crate::inventory::{Graph, Inventory, Name, NodeKind};
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
    let mut ids = NameIds::default();
    let captured: HashSet<u32, ahash::RandomState> = inv
        .graphs
        .iter()
        .flat_map(|g| g.captures.iter().filter_map(|&id| g.node(id)))
        .map(|n| ids.id(&n.name))
        .collect();
    for (index, graph) in inv.graphs.iter().enumerate() {
        duplicates(index, graph, &mut ids, out);
        unused_constants(index, graph, &captured, &mut ids, out);
    }
}

/// Names numbered by their text, each copy's text hashed once: nodes hold names as shared
/// handles (a capture holds its value's name), so hashing the text at every node would hash
/// a long name once per reference. Copies are told apart by address, and are all alive
/// while the inventory is borrowed. Keys are hashed with ahash, seeded at random per
/// process, so a hostile file cannot choose names that collide.
#[derive(Default)]
struct NameIds<'a> {
    by_copy: HashMap<usize, u32, ahash::RandomState>,
    by_text: HashMap<&'a [u8], u32, ahash::RandomState>,
}

impl<'a> NameIds<'a> {
    fn id(&mut self, name: &'a Name) -> u32 {
        let copy = name.as_bytes().as_ptr() as usize;
        if let Some(&id) = self.by_copy.get(&copy) {
            return id;
        }
        let next = u32::try_from(self.by_text.len()).unwrap_or(u32::MAX);
        let id = *self.by_text.entry(name.as_bytes()).or_insert(next);
        self.by_copy.insert(copy, id);
        id
    }
}

/// Reports each node whose name an earlier node of the same class already has.
fn duplicates<'a>(graph_id: usize, graph: &'a Graph, ids: &mut NameIds<'a>, out: &mut Findings) {
    let mut first: HashMap<(bool, u32), u32, ahash::RandomState> =
        HashMap::with_capacity_and_hasher(graph.nodes.len(), ahash::RandomState::new());
    for (id, node) in (0u32..).zip(&graph.nodes) {
        if node.name.is_empty() || matches!(node.kind, NodeKind::Unknown { .. }) {
            continue;
        }
        let is_op = matches!(node.kind, NodeKind::Operator(_));
        let earlier = match first.entry((is_op, ids.id(&node.name))) {
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

fn unused_constants<'a>(
    graph_id: usize,
    graph: &'a Graph,
    captured: &HashSet<u32, ahash::RandomState>,
    ids: &mut NameIds<'a>,
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
            op.inputs.iter().flatten().for_each(|&id| mark(id));
        }
    }
    graph.outputs.iter().for_each(|&id| mark(id));
    for (id, (node, used)) in (0u32..).zip(graph.nodes.iter().zip(used)) {
        let NodeKind::Constant { .. } = node.kind else {
            continue;
        };
        if used || captured.contains(&ids.id(&node.name)) {
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
