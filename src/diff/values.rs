//! Tensor values: the one part of a diff that reads tensor bytes. Each tensor is read once,
//! through the memory map, in chunks whose pages are dropped once compared, so memory stays
//! bounded whatever the size of the files; the pairs are shared between two threads.

use crate::inventory::hashing::Seeded;
use crate::inventory::{Inventory, Name, TensorId};
use crate::values::{decoder, release, Decode, Files, CHUNK};
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// How the values of the paired tensors differ.
#[derive(Debug, Default, Serialize)]
pub struct ValuesDiff {
    /// Pairs whose bytes were compared.
    pub compared: u64,
    /// Pairs with identical bytes.
    pub equal: u64,
    /// The tolerance: the largest absolute difference that counts as equal.
    pub tolerance: f64,
    /// Pairs whose bytes differ, by A's tensor name.
    pub changed: Vec<ValueChange>,
    /// Pairs that could not be compared, and why.
    pub not_compared: Vec<NotCompared>,
    /// Tensors of A paired with none of B: their values were not compared.
    pub unpaired_a: u64,
    /// Tensors of B paired with none of A.
    pub unpaired_b: u64,
}

impl ValuesDiff {
    /// Whether no pair differs beyond the tolerance and every tensor was paired.
    pub fn is_empty(&self) -> bool {
        self.changed.iter().all(|c| c.within_tolerance)
            && self.unpaired_a == 0
            && self.unpaired_b == 0
    }
}

/// A pair of tensors whose bytes differ.
#[derive(Debug, Serialize)]
pub struct ValueChange {
    /// A's name.
    pub a: Name,
    /// B's name.
    pub b: Name,
    /// Element-wise figures, for numeric types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numeric: Option<Numeric>,
    /// Whether every element is within the tolerance and no NaN or infinity appeared.
    pub within_tolerance: bool,
}

/// Element-wise differences of two numeric tensors.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize)]
pub struct Numeric {
    /// Largest absolute difference between finite elements.
    pub max_abs: f64,
    /// Largest difference relative to the larger magnitude of the two elements.
    pub max_rel: f64,
    /// Elements that differ by more than the tolerance (or in NaN or infinity).
    pub differing: u64,
    /// Elements that are NaN in B but not in A.
    pub nan_appeared: u64,
    /// Elements that are infinite in B but not in A.
    pub inf_appeared: u64,
}

/// A pair whose values were not compared.
#[derive(Debug, Serialize)]
pub struct NotCompared {
    /// A's name.
    pub a: Name,
    /// B's name.
    pub b: Name,
    /// Why not.
    pub reason: &'static str,
}

/// A hash of the bytes of each tensor of `ids` that can be read, to find renamed tensors:
/// `state` is the same for both models, so that equal bytes hash alike.
pub(super) fn hashes(
    inv: &Inventory,
    ids: &[TensorId],
    state: &Seeded,
) -> HashMap<TensorId, Option<u64>> {
    let files = Files::open(inv, None);
    ids.iter()
        .map(|&id| {
            let hash = files.bytes(id).ok().and_then(|(file, bytes)| {
                let mut h = state.build_hasher();
                for chunk in bytes.chunks(CHUNK) {
                    file.fetch_tensors(chunk).ok()?;
                    h.write(chunk);
                    release(file, chunk);
                }
                Some(h.finish())
            });
            (id, hash)
        })
        .collect()
}

/// Compares the values of every pair, on two threads (one if a file is remote, see
/// [`Files::remote`]); with the pairs that differ beyond the tolerance.
pub(super) fn compare(
    a: &Inventory,
    b: &Inventory,
    pairs: &[(TensorId, TensorId)],
    tolerance: f64,
) -> (ValuesDiff, Vec<(TensorId, TensorId)>) {
    let (fa, fb) = (Files::open(a, None), Files::open(b, None));
    let threads = if fa.remote() || fb.remote() { 1 } else { 2 };
    let mut results: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let work = |part: usize| {
            let (fa, fb) = (&fa, &fb);
            move || {
                (pairs.iter().enumerate())
                    .skip(part)
                    .step_by(threads)
                    .map(|(k, &(x, y))| (k, compare_pair(fa, fb, x, y, tolerance)))
                    .collect::<Vec<_>>()
            }
        };
        let others: Vec<_> = (1..threads).map(|part| scope.spawn(work(part))).collect();
        let mut mine = work(0)();
        for other in others {
            mine.extend(
                other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        mine
    });
    results.sort_unstable_by_key(|r| r.0);
    let mut diff = ValuesDiff {
        tolerance,
        ..ValuesDiff::default()
    };
    let mut differing = Vec::new();
    for (k, outcome) in results {
        let (x, y) = pairs[k];
        let (a, b) = (a.tensors[x].name.clone(), b.tensors[y].name.clone());
        match outcome {
            Outcome::Equal => (diff.compared, diff.equal) = (diff.compared + 1, diff.equal + 1),
            Outcome::Differ(numeric) => {
                diff.compared += 1;
                let within_tolerance = numeric.is_some_and(|n| n.differing == 0);
                if !within_tolerance {
                    differing.push((x, y));
                }
                diff.changed.push(ValueChange {
                    a,
                    b,
                    numeric,
                    within_tolerance,
                });
            }
            Outcome::Skipped(reason) => diff.not_compared.push(NotCompared { a, b, reason }),
        }
    }
    (diff, differing)
}

enum Outcome {
    Equal,
    Differ(Option<Numeric>),
    Skipped(&'static str),
}

fn compare_pair(fa: &Files, fb: &Files, x: TensorId, y: TensorId, tolerance: f64) -> Outcome {
    let (ta, tb) = (&fa.inv.tensors[x], &fb.inv.tensors[y]);
    if ta.dtype != tb.dtype {
        return Outcome::Skipped("dtypes differ");
    }
    if ta.shape != tb.shape {
        return Outcome::Skipped("shapes differ");
    }
    let ((file_a, a), (file_b, b)) = match (fa.bytes(x), fb.bytes(y)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(reason), _) | (_, Err(reason)) => return Outcome::Skipped(reason),
    };
    if a.len() != b.len() {
        return Outcome::Skipped("sizes differ");
    }
    let decoder = ta.dtype.and_then(decoder);
    // Chunks hold whole elements.
    let step = decoder.map_or(1, |(size, _)| size);
    let chunk = CHUNK / step * step;
    let mut numeric = decoder.map(|_| Numeric::default());
    let mut equal = true;
    for (ca, cb) in a.chunks(chunk).zip(b.chunks(chunk)) {
        if file_a.fetch_tensors(ca).is_err() || file_b.fetch_tensors(cb).is_err() {
            return Outcome::Skipped("its bytes could not be fetched");
        }
        if ca != cb {
            equal = false;
            if let (Some(n), Some((size, decode))) = (numeric.as_mut(), decoder) {
                elements(n, ca, cb, size, decode, tolerance);
            }
        }
        release(file_a, ca);
        release(file_b, cb);
    }
    if equal {
        Outcome::Equal
    } else {
        Outcome::Differ(numeric)
    }
}

/// Adds the element-wise differences of `a` and `b` to `n`.
fn elements(n: &mut Numeric, a: &[u8], b: &[u8], size: usize, decode: Decode, tolerance: f64) {
    for (ea, eb) in a.chunks_exact(size).zip(b.chunks_exact(size)) {
        if ea == eb {
            continue;
        }
        let (x, y) = (decode(ea), decode(eb));
        let nan = y.is_nan() && !x.is_nan();
        let inf = y.is_infinite() && !x.is_infinite();
        n.nan_appeared += u64::from(nan);
        n.inf_appeared += u64::from(inf);
        if x.is_finite() && y.is_finite() {
            let abs = (x - y).abs();
            n.max_abs = n.max_abs.max(abs);
            let scale = x.abs().max(y.abs());
            if scale > 0.0 {
                n.max_rel = n.max_rel.max(abs / scale);
            }
            n.differing += u64::from(abs > tolerance);
        } else if !(x.is_nan() && y.is_nan()) && x != y {
            n.differing += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn element_figures_count_what_exceeds_the_tolerance_and_what_became_nan_or_infinite() {
        let (size, decode) = decoder(crate::inventory::DType::F32).unwrap();
        let a = f32s(&[1.0, 2.0, 3.0, 4.0, 0.0]);
        let b = f32s(&[1.0, 2.5, f32::NAN, f32::INFINITY, 0.001]);
        let mut n = Numeric::default();
        elements(&mut n, &a, &b, size, decode, 0.01);
        assert_eq!((n.differing, n.nan_appeared, n.inf_appeared), (3, 1, 1));
        assert_eq!(n.max_abs, 0.5);
        assert!((n.max_rel - 1.0).abs() < 1e-12, "{}", n.max_rel);
    }
}
