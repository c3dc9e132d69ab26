//! Aligning two sequences by keys in O(n log n), never by comparing every pair.
//!
//! Patience diff, level by level: a level is one key per position on each side, most
//! specific first. Within every stretch that earlier levels left unpaired, the common prefix
//! and suffix are paired, then the keys that occur exactly once on each side, kept where they
//! keep the order (the longest increasing subsequence). What is left is paired by the last
//! level's key in order of appearance, then one to one where a stretch has as many positions
//! left on each side (a substitution).

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// Passes over one level: each can find new unique keys in the smaller gaps the last one left.
const PASSES: usize = 4;

/// How the positions of `a` and `b` pair up.
#[derive(Debug, Default, PartialEq)]
pub struct Alignment {
    /// Pairs with the same key at the last level, in order.
    pub same: Vec<(usize, usize)>,
    /// Pairs whose keys differ even at the last level: one replaced by the other.
    pub replaced: Vec<(usize, usize)>,
}

/// Aligns `a` with `b`; `levels` holds each level's keys for both sides, the last being the
/// coarsest (such as the operator type). Every level must have `a`'s and `b`'s lengths.
pub fn align(levels: &[(&[u64], &[u64])]) -> Alignment {
    let Some(&(coarse_a, coarse_b)) = levels.last() else {
        return Alignment::default();
    };
    let (n, m) = (coarse_a.len(), coarse_b.len());
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for &(ka, kb) in levels {
        for _ in 0..PASSES {
            let mut found = Vec::new();
            for (ra, rb) in gaps(&pairs, n, m) {
                anchor(ka, kb, ra, rb, &mut found);
            }
            if found.is_empty() {
                break;
            }
            pairs.extend(found);
            pairs.sort_unstable();
        }
    }
    let mut alignment = Alignment::default();
    for (ra, rb) in gaps(&pairs, n, m) {
        leftovers(coarse_a, coarse_b, ra, rb, &mut alignment);
    }
    alignment.same.extend(pairs);
    alignment.same.sort_unstable();
    alignment
}

type Range = std::ops::Range<usize>;

/// The stretches between consecutive pairs (which increase in both positions).
fn gaps(pairs: &[(usize, usize)], n: usize, m: usize) -> Vec<(Range, Range)> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    for &(pi, pj) in pairs.iter().chain([(n, m)].iter()) {
        if pi > i && pj > j {
            out.push((i..pi, j..pj));
        }
        (i, j) = (pi + 1, pj + 1);
    }
    out
}

/// Pairs the common prefix and suffix of one gap, then its keys unique on both sides that
/// keep their order.
fn anchor(ka: &[u64], kb: &[u64], mut ra: Range, mut rb: Range, out: &mut Vec<(usize, usize)>) {
    while !ra.is_empty() && !rb.is_empty() && ka[ra.start] == kb[rb.start] {
        out.push((ra.start, rb.start));
        (ra.start, rb.start) = (ra.start + 1, rb.start + 1);
    }
    while !ra.is_empty() && !rb.is_empty() && ka[ra.end - 1] == kb[rb.end - 1] {
        (ra.end, rb.end) = (ra.end - 1, rb.end - 1);
        out.push((ra.end, rb.end));
    }
    if ra.is_empty() || rb.is_empty() {
        return;
    }
    let unique = unique_pairs(ra.map(|i| (ka[i], i)), rb.map(|j| (kb[j], j)));
    out.extend(increasing(&unique));
}

/// The positions of the keys that occur exactly once in `a` and once in `b`, paired and
/// sorted by their position in `a`.
pub(super) fn unique_pairs<K: Hash + Eq>(
    a: impl IntoIterator<Item = (K, usize)>,
    b: impl IntoIterator<Item = (K, usize)>,
) -> Vec<(usize, usize)> {
    // Per key: occurrences in a, the last position there, occurrences in b, the last there.
    let mut seen: HashMap<K, (u32, usize, u32, usize)> = HashMap::new();
    for (k, i) in a {
        let e = seen.entry(k).or_default();
        (e.0, e.1) = (e.0.saturating_add(1), i);
    }
    for (k, j) in b {
        if let Some(e) = seen.get_mut(&k) {
            (e.2, e.3) = (e.2.saturating_add(1), j);
        }
    }
    let mut unique: Vec<(usize, usize)> = (seen.into_values())
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.1, e.3))
        .collect();
    unique.sort_unstable();
    unique
}

/// The longest subsequence of `pairs` (sorted by the first position) whose second positions
/// increase, in O(k log k).
fn increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[len - 1]: the index of the pair ending the best subsequence of length len.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(_, j)) in pairs.iter().enumerate() {
        let len = tails.partition_point(|&t| pairs[t].1 < j);
        before[k] = len.checked_sub(1).map(|l| tails[l]);
        if len == tails.len() {
            tails.push(k);
        } else {
            tails[len] = k;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(k) = at {
        out.push(pairs[k]);
        at = before[k];
    }
    out.reverse();
    out
}

/// Pairs what a gap has left: equal keys in order of appearance, then, if as many are left
/// on each side, the rest one to one.
fn leftovers(ka: &[u64], kb: &[u64], ra: Range, rb: Range, out: &mut Alignment) {
    let mut by_key: HashMap<u64, VecDeque<usize>> = HashMap::new();
    for j in rb.clone() {
        by_key.entry(kb[j]).or_default().push_back(j);
    }
    let mut paired_b = vec![false; rb.len()];
    let mut left_a = Vec::new();
    for i in ra {
        match by_key.get_mut(&ka[i]).and_then(VecDeque::pop_front) {
            Some(j) => {
                paired_b[j - rb.start] = true;
                out.same.push((i, j));
            }
            None => left_a.push(i),
        }
    }
    let start = rb.start;
    let left_b: Vec<usize> = rb.filter(|&j| !paired_b[j - start]).collect();
    if left_a.len() == left_b.len() {
        out.replaced.extend(left_a.into_iter().zip(left_b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &str) -> Vec<u64> {
        s.bytes().map(u64::from).collect()
    }

    #[test]
    fn an_insertion_in_a_repeated_chain_shifts_nothing_after_it() {
        let (a, b) = (keys("abababab"), keys("ababXabab"));
        let al = align(&[(&a, &b)]);
        let expected: Vec<_> = (0..4)
            .map(|i| (i, i))
            .chain((4..8).map(|i| (i, i + 1)))
            .collect();
        assert_eq!(al.same, expected);
        assert!(al.replaced.is_empty());
    }

    #[test]
    fn unique_keys_anchor_moved_blocks_and_leftovers_pair_by_key_then_one_to_one() {
        // Fine keys tell the two x apart; the coarse level pairs by letter.
        let (fine_a, fine_b) = (vec![1, 2, 3, 4, 5], vec![9, 2, 3, 4, 8]);
        let (coarse_a, coarse_b) = (keys("xbcdy"), keys("zbcdx"));
        let al = align(&[(&fine_a, &fine_b), (&coarse_a, &coarse_b)]);
        assert_eq!(al.same, [(1, 1), (2, 2), (3, 3)]);
        // The first gap holds x and z, the last y and x: each a substitution.
        assert_eq!(al.replaced, [(0, 0), (4, 4)]);
    }

    #[test]
    fn the_longest_increasing_run_of_anchors_wins() {
        let pairs = [(0, 3), (1, 0), (2, 1), (3, 4), (4, 2)];
        assert_eq!(increasing(&pairs), [(1, 0), (2, 1), (4, 2)]);
    }
}
