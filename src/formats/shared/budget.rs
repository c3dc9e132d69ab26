//! A bound on what one model may add to the inventory.
//!
//! Hostile files can declare millions of empty entries in a few bytes each, or point many
//! times at one shared table; every reader spends from one budget per model for each entry it
//! keeps, and stops adding entries once it runs out, which is reported once (RX016).

use crate::check::generic::TOO_LARGE_TO_READ;
use crate::check::{Findings, Place};

/// Entries (nodes, node inputs and outputs, tensors, attributes, list values, ...) one model
/// may add: a bound on memory and work for hostile files, far above any real model.
pub const MAX_ENTRIES: u64 = 1 << 22;

/// Entries a subgraph costs: its graph, scope and queue entry take about as much memory as 32
/// nodes or values, so millions of empty subgraphs run the budget out early.
pub const SUBGRAPH_ENTRIES: u64 = 32;

/// The entries one model may still add.
#[derive(Debug)]
pub struct Budget {
    left: u64,
    over: bool,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            left: MAX_ENTRIES,
            over: false,
        }
    }
}

impl Budget {
    /// Takes `n` entries. The first time the budget runs out, reports RX016 at `place`; then,
    /// and from then on, returns false, and the caller adds nothing more.
    pub fn spend(&mut self, n: u64, place: Place, out: &mut Findings) -> bool {
        if let Some(left) = self.left.checked_sub(n).filter(|_| !self.over) {
            self.left = left;
            return true;
        }
        if !self.over {
            self.over = true;
            let message = format!(
                "the model holds more than {MAX_ENTRIES} nodes, values, tensors, attributes and \
list values; rtenx reads it up to here"
            );
            out.add(&TOO_LARGE_TO_READ, place, message);
        }
        false
    }

    /// Entries left, for decoders that keep list values up to a limit.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// Whether the budget ran out.
    pub fn exhausted(&self) -> bool {
        self.over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_out_once_and_stays_out() {
        let mut out = Findings::default();
        let mut budget = Budget::default();
        assert!(budget.spend(MAX_ENTRIES - 1, Place::FILE, &mut out));
        assert!(!budget.spend(2, Place::at(7), &mut out));
        assert!(!budget.spend(1, Place::at(9), &mut out), "stays out");
        assert!(budget.exhausted());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].offset, Some(7));
    }
}
