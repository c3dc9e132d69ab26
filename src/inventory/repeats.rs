//! Nodes named like an earlier node of their class, found by sorting rather than hashing.

use super::hashing::Seeded;
use super::{Graph, Name, Node, NodeId};
use std::hash::BuildHasher;

impl Graph {
    /// Each node that `class` puts in a class and whose non-empty name an earlier node of
    /// the same class has, with the first such node, in node order.
    ///
    /// The named nodes are sorted by a hash of class and name: 8 bytes a node, 32 bits of the
    /// hash above the id, sorted by a radix sort in passes over memory. A hash map of names
    /// took ten times the memory on a million-node graph, and its random accesses missed the
    /// cache on every node. Names are compared only where hashes meet. The hash is seeded per
    /// process, so a file cannot choose collisions; where hashes meet, the nodes are sorted by
    /// name, which keeps the worst case at O(n log n) comparisons.
    pub fn repeated_names(&self, class: impl Fn(Node<'_>) -> Option<u8>) -> Vec<(NodeId, NodeId)> {
        let seed = Seeded::default();
        repeats(self, class, |class, name| seed.hash_one((class, name)))
    }
}

/// [`Graph::repeated_names`], with names hashed by `hash`.
fn repeats(
    graph: &Graph,
    class: impl Fn(Node<'_>) -> Option<u8>,
    hash: impl Fn(u8, &[u8]) -> u64,
) -> Vec<(NodeId, NodeId)> {
    let mut named: Vec<u64> = Vec::with_capacity(graph.nodes.len());
    for (id, n) in (0u32..).zip(&graph.nodes) {
        let name = n.name.as_bytes();
        if let (false, Some(class)) = (name.is_empty(), class(n)) {
            named.push(hash(class, name) << 32 | u64::from(id));
        }
    }
    sort_by_high_half(&mut named);
    let high = |entry: &u64| entry >> 32;
    let mut repeats: Vec<(NodeId, NodeId)> = Vec::new();
    let mut clash: Vec<(Option<u8>, &Name, NodeId)> = Vec::new();
    for run in named.chunk_by(|a, b| high(a) == high(b)) {
        if run.len() < 2 {
            continue;
        }
        let ids = run.iter().map(|&entry| entry as NodeId); // the low 32 bits: the id
        let nodes = ids.filter_map(|id| Some((graph.node(id)?, id)));
        clash.clear();
        clash.extend(nodes.map(|(n, id)| (class(n), n.name, id)));
        clash.sort_unstable();
        for same in clash.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
            if let [(_, _, first), rest @ ..] = same {
                repeats.extend(rest.iter().map(|&(_, _, id)| (id, *first)));
            }
        }
    }
    repeats.sort_unstable();
    repeats
}

/// Sorts `entries` by their high 32 bits, keeping entries with equal high halves in the
/// order they came in: a radix sort of three 11-bit digits, counted in one pass and placed in
/// three, which on a graph's nodes (ids ascending in the low halves) gives what a full sort
/// would, in a fraction of the comparisons.
fn sort_by_high_half(entries: &mut Vec<u64>) {
    const BITS: u32 = 11;
    const DIGITS: usize = 3; // 33 bits cover the high half
    if entries.len() < 1 << (BITS + 1) {
        return entries.sort_unstable();
    }
    let digit =
        |entry: u64, d: usize| (entry >> (32 + BITS * d as u32) & ((1 << BITS) - 1)) as usize;
    let mut starts = vec![[0usize; 1 << BITS]; DIGITS];
    for &e in entries.iter() {
        for (d, counts) in starts.iter_mut().enumerate() {
            counts[digit(e, d)] += 1;
        }
    }
    let mut from = std::mem::take(entries);
    let mut to = vec![0u64; from.len()];
    for (d, starts) in starts.iter_mut().enumerate() {
        let mut next = 0;
        for slot in starts.iter_mut() {
            (*slot, next) = (next, next + *slot);
        }
        for &e in &from {
            let at = &mut starts[digit(e, d)];
            to[*at] = e;
            *at += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    *entries = from;
}

#[cfg(test)]
mod tests {
    use super::{repeats, Seeded};
    use crate::inventory::{Graph, NewKind, NewNode, Node, NodeKind, Offset, Operator};
    use std::hash::BuildHasher;

    fn class(n: Node<'_>) -> Option<u8> {
        Some(matches!(n.kind, NodeKind::Operator(_)).into())
    }

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
        assert_eq!(graph.repeated_names(class), expected);
        assert_eq!(repeats(&graph, class, |_, _| 0), expected);
        let operators = |n: Node<'_>| class(n).filter(|&c| c == 1);
        assert_eq!(
            graph.repeated_names(operators),
            vec![(3, 0), (5, 1), (6, 0)]
        );
    }

    /// The radix sort orders a graph's entries (ids ascending below the hashes) as a full
    /// sort does, on few and many distinct hashes.
    #[test]
    fn the_radix_sort_agrees_with_a_full_sort() {
        let seed = Seeded::default();
        for (len, distinct) in [
            (10, 3),
            (300, 7),
            (5000, 1 << 32),
            (5000, 50),
            (70_000, 1 << 32),
        ] {
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
