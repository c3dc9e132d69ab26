//! The totals from A to B: operators and how they paired, parameters and bytes.

use super::{Change, GraphDiff};
use crate::inventory::Inventory;
use serde::Serialize;

/// Operators, parameters and bytes from A to B.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Operators of each file, and how they paired.
    pub operators: Operators,
    /// Parameters (elements of constants) of each file.
    pub parameters: Change<u64>,
    /// Bytes of constants of each file.
    pub bytes: Change<u64>,
}

/// Operators of each file, and how they paired: `a` is `paired + replaced + removed`, `b` is
/// `paired + replaced + added`.
#[derive(Debug, Serialize)]
pub struct Operators {
    /// A's.
    pub a: u64,
    /// B's.
    pub b: u64,
    /// Pairs of one type.
    pub paired: u64,
    /// Pairs of two types, one in the other's place.
    pub replaced: u64,
    /// Only in B.
    pub added: u64,
    /// Only in A.
    pub removed: u64,
}

impl Summary {
    pub(super) fn of(a: &Inventory, b: &Inventory, graph: &GraphDiff) -> Self {
        let (ta, tb) = (a.totals(), b.totals());
        let (added, removed) = (graph.added.len() as u64, graph.removed.len() as u64);
        let replaced = graph.replaced() as u64;
        Summary {
            operators: Operators {
                a: graph.matched + replaced + removed,
                b: graph.matched + replaced + added,
                paired: graph.matched,
                replaced,
                added,
                removed,
            },
            parameters: Change {
                a: ta.parameters,
                b: tb.parameters,
            },
            bytes: Change {
                a: ta.bytes,
                b: tb.bytes,
            },
        }
    }
}
