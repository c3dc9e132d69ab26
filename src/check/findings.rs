//! The findings of one analysis, with at most [`PER_RULE`] of each rule.
//!
//! A hostile file can break one rule millions of times (a node with three million undefined
//! inputs fits in 9 MB). Listing them all would take gigabytes and help nobody, so each rule
//! keeps its first findings and counts the rest, which one closing finding reports.

use super::{Finding, Place, Rule};
use crate::inventory::hashing::HashMap;
use std::ops::{Deref, DerefMut};

/// Findings of one rule kept per analysis.
pub const PER_RULE: usize = 10_000;

/// Findings as a reader or rule adds them. It derefs to a slice, so kept findings can be
/// read and edited, but only [`Findings::push`] adds one.
#[derive(Debug, Default)]
pub struct Findings {
    kept: Vec<Finding>,
    /// How many findings each rule has had, kept or not.
    seen: HashMap<&'static str, (&'static Rule, usize)>,
}

impl Findings {
    /// Adds a finding of `rule` at `place`, unless the rule already has [`PER_RULE`].
    pub fn add(&mut self, rule: &'static Rule, place: Place, message: impl Into<String>) {
        self.push(Finding::new(rule, place, message));
    }

    /// Adds `finding`, unless its rule already has [`PER_RULE`].
    pub fn push(&mut self, finding: Finding) {
        let (_, seen) = self
            .seen
            .entry(finding.rule.code)
            .or_insert((finding.rule, 0));
        *seen += 1;
        if *seen <= PER_RULE {
            self.kept.push(finding);
        }
    }

    /// The kept findings, plus one per rule that had more, saying how many were left out.
    pub fn into_vec(self) -> Vec<Finding> {
        let mut over: Vec<_> = self
            .seen
            .into_values()
            .filter(|&(_, n)| n > PER_RULE)
            .collect();
        over.sort_by_key(|(rule, _)| rule.code);
        let mut kept = self.kept;
        kept.extend(over.into_iter().map(|(rule, n)| {
            Finding::new(
                rule,
                Place::FILE,
                format!(
                    "{} more {} findings are not listed; rtenx lists the first {PER_RULE} of each rule",
                    n - PER_RULE,
                    rule.code
                ),
            )
        }));
        kept
    }
}

impl Deref for Findings {
    type Target = [Finding];

    fn deref(&self) -> &[Finding] {
        &self.kept
    }
}

impl DerefMut for Findings {
    fn deref_mut(&mut self) -> &mut [Finding] {
        &mut self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::generic::UNKNOWN_FORMAT;

    #[test]
    fn keeps_the_first_of_each_rule_and_counts_the_rest() {
        let mut findings = Findings::default();
        for i in 0..PER_RULE + 5 {
            findings.add(&UNKNOWN_FORMAT, Place::FILE, format!("{i}"));
        }
        assert_eq!(findings.len(), PER_RULE);
        let all = findings.into_vec();
        assert_eq!(all.len(), PER_RULE + 1);
        assert_eq!(all[PER_RULE - 1].message, format!("{}", PER_RULE - 1));
        assert!(
            all[PER_RULE].message.starts_with("5 more "),
            "{}",
            all[PER_RULE].message
        );
        assert_eq!(all[PER_RULE].rule.code, UNKNOWN_FORMAT.code);
    }
}
