//! Graph-level rules: empty graphs, duplicate names and unused constants.

use super::{DUPLICATE_NAME, EMPTY_GRAPH, UNUSED_CONSTANT};
use crate::check::{Findings, Item, Place};
use crate::inventory::{Graph, Inventory, Name, Node, NodeKind};
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

/// Reports each node whose name an earlier node of the same class already has.
///
/// The named nodes are sorted by a hash of class and name (8 bytes a node; a hash map of
/// names took ten times the memory on a million-node graph), so names are compared only
/// where hashes meet. Exported graphs name nodes by long shared paths
/// (`/model/layers.0/...`), which made sorting by the names themselves a sixth of the check.
/// The hash is seeded per process, so a file cannot choose collisions; where hashes meet, the
/// nodes are sorted by name, which keeps the worst case at O(n log n) comparisons.
fn duplicates(graph_id: usize, graph: &Graph, out: &mut Findings) {
    let seed = ahash::RandomState::new();
    let repeats = repeats(graph, |n| seed.hash_one((class(n), n.name.as_bytes())));
    for (id, earlier) in repeats {
        let Some(node) = graph.node(id) else { continue };
        let what = if class(node) { "operator" } else { "value" };
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

/// Operators and values are named apart.
fn class(node: Node<'_>) -> bool {
    matches!(node.kind, NodeKind::Operator(_))
}

/// Each named node whose name an earlier node of its class has, with the first such node,
/// in node order; `key` hashes a node's class and name. Each named node takes 8 bytes: 32
/// bits of its hash above its id, so one sort of integers groups equal hashes in node order.
fn repeats(graph: &Graph, key: impl Fn(Node<'_>) -> u64) -> Vec<(u32, u32)> {
    let mut named: Vec<u64> = (0u32..)
        .zip(&graph.nodes)
        .filter(|(_, n)| !n.name.is_empty() && !matches!(n.kind, NodeKind::Unknown { .. }))
        .map(|(id, n)| key(n) << 32 | u64::from(id))
        .collect();
    sort_by_high_half(&mut named);
    let hash = |entry: &u64| entry >> 32;
    let mut repeats: Vec<(u32, u32)> = Vec::new();
    let mut clash: Vec<(bool, &Name, u32)> = Vec::new();
    for run in named.chunk_by(|a, b| hash(a) == hash(b)) {
        if run.len() < 2 {
            continue;
        }
        let ids = run.iter().map(|&entry| entry as u32); // the low 32 bits: the id
        let nodes = ids.filter_map(|id| Some((graph.node(id)?, id)));
        clash.clear();
        clash.extend(nodes.map(|(n, id)| (class(n), n.name, id)));
        clash.sort_unstable_by(|a, b| {
            (a.0.cmp(&b.0))
                .then_with(|| by_text(a.1, b.1))
                .then(a.2.cmp(&b.2))
        });
        for same in clash.chunk_by(|a, b| a.0 == b.0 && by_text(a.1, b.1) == Ordering::Equal) {
            if let [(_, _, first), rest @ ..] = same {
                repeats.extend(rest.iter().map(|&(_, _, id)| (id, *first)));
            }
        }
    }
    repeats.sort_unstable();
    repeats
}

/// Sorts `entries` by their high 32 bits, keeping entries with equal high halves in the
/// order they came in: a radix sort, four passes of one byte each, which on a graph's nodes
/// (ids ascending in the low halves) gives what a full sort would, in a fraction of the
/// comparisons.
fn sort_by_high_half(entries: &mut Vec<u64>) {
    if entries.len() < 256 {
        return entries.sort_unstable();
    }
    let mut from = std::mem::take(entries);
    let mut to = vec![0u64; from.len()];
    for shift in [32, 40, 48, 56] {
        let digit = |entry: u64| (entry >> shift & 0xff) as usize;
        let mut starts = [0usize; 256];
        from.iter().for_each(|&e| starts[digit(e)] += 1);
        let mut next = 0;
        for slot in &mut starts {
            (*slot, next) = (next, next + *slot);
        }
        for &e in &from {
            let at = &mut starts[digit(e)];
            to[*at] = e;
            *at += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    *entries = from;
}

/// The names of every graph's captured values, sorted; made once, when first needed.
fn captured_names(inv: &Inventory) -> Vec<&Name> {
    let mut names: Vec<&Name> = (inv.graphs.iter())
        .flat_map(|g| g.captures.iter().filter_map(|&id| g.node(id)))
        .map(|n| n.name)
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
        if captured.binary_search_by(|c| by_text(c, node.name)).is_ok() {
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

#[cfg(test)]
mod tests {
    use super::repeats;
    use crate::inventory::{Graph, NewKind, NewNode, Offset, Operator};

    /// Colliding hashes fall back to comparing names: with every hash equal, the same repeats
    /// are found as with a seeded hash.
    #[test]
    fn repeats_are_found_by_name_where_hashes_collide() {
        let node = |name: &str, op: bool| NewNode {
            name: name.into(),
            kind: if op {
                NewKind::Operator(Operator::new("Op".into(), Box::new([]), vec![], vec![]))
            } else {
                NewKind::Value(Default::default())
            },
            offset: Offset::NONE,
        };
        let names = [
            ("a", true),
            ("b", true),
            ("a", false),
            ("a", true),
            ("", true),
        ];
        let more = [("b", true), ("a", true), ("c", false), ("a", false)];
        let nodes = names.iter().chain(&more).map(|&(n, op)| node(n, op));
        let graph = Graph {
            nodes: nodes.collect(),
            ..Graph::default()
        };
        let expected = vec![(3, 0), (5, 1), (6, 0), (8, 2)];
        let seed = ahash::RandomState::new();
        let hashed = repeats(&graph, |n| {
            seed.hash_one((super::class(n), n.name.as_bytes()))
        });
        assert_eq!(hashed, expected);
        assert_eq!(repeats(&graph, |_| 0), expected);
    }

    /// The radix sort orders a graph's entries (ids ascending below the hashes) as a full
    /// sort does, on few and many distinct hashes.
    #[test]
    fn the_radix_sort_agrees_with_a_full_sort() {
        let seed = ahash::RandomState::new();
        for (len, distinct) in [(10, 3), (300, 7), (5000, 1 << 32), (5000, 50)] {
            let entries: Vec<u64> = (0..len)
                .map(|id: u64| (seed.hash_one(id) % distinct) << 32 | id)
                .collect();
            let mut sorted = entries.clone();
            sorted.sort_unstable();
            let mut radix = entries;
            super::sort_by_high_half(&mut radix);
            assert_eq!(radix, sorted);
        }
    }
}
