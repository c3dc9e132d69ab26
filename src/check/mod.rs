//! Check rules, findings and severity overrides.
//!
//! Readers emit format-specific findings while they parse; [`generic`] rules then run on
//! the finished inventory. Rules come in groups that share a code prefix; the list of every
//! group is the format registry's (`formats::registry`), since each format brings its own.

mod finding;
mod findings;
pub mod generic;
mod overrides;
#[doc(hidden)]
pub mod rule;

pub use finding::{Finding, Item, Place};
pub use findings::{Findings, PER_RULE};
pub use overrides::{Action, Overrides, Selector, SelectorError};
pub use rule::{DocBlock, Moved, Rule, RuleGroup, Severity};

/// Counts of findings by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Errors.
    pub errors: u64,
    /// Warnings.
    pub warnings: u64,
    /// Infos.
    pub infos: u64,
}

impl Counts {
    /// Adds one finding of `severity`.
    pub fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Info => self.infos += 1,
        }
    }

    /// Counts over a list of findings.
    pub fn of(findings: &[Finding]) -> Self {
        let mut counts = Counts::default();
        findings.iter().for_each(|f| counts.add(f.severity));
        counts
    }

    /// Adds another set of counts.
    pub fn merge(&mut self, other: Counts) {
        self.errors += other.errors;
        self.warnings += other.warnings;
        self.infos += other.infos;
    }
}
