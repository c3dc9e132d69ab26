//! `--deny`, `--warn` and `--allow`: changing or silencing severities.

use super::{Finding, Rule, Severity};
use std::collections::HashMap;

/// What an override applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Every finding whose current severity is this level.
    Level(Severity),
    /// One rule, by code.
    Code(&'static str),
}

/// Errors in override arguments.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SelectorError {
    /// Neither a level nor a known code.
    #[error("unknown rule code or level `{0}` (levels: error, warning, info; `rtenx explain` lists codes)")]
    Unknown(String),
}

impl Selector {
    /// Parses a level, or a rule code or name that `lookup` knows.
    pub fn parse(
        s: &str,
        lookup: impl Fn(&str) -> Option<&'static Rule>,
    ) -> Result<Self, SelectorError> {
        let lower = s.to_ascii_lowercase();
        let level = match lower.as_str() {
            "error" | "errors" => Some(Severity::Error),
            "warning" | "warnings" | "warn" => Some(Severity::Warning),
            "info" | "infos" => Some(Severity::Info),
            _ => None,
        };
        if let Some(level) = level {
            return Ok(Selector::Level(level));
        }
        lookup(s)
            .map(|rule| Selector::Code(rule.code))
            .ok_or_else(|| SelectorError::Unknown(s.to_owned()))
    }
}

/// The new level of a selected finding; `None` drops it.
pub type Action = Option<Severity>;

/// A set of overrides. Level selectors apply first, to the default severity; code selectors
/// then win over them. Among selectors of one kind, the last one given wins.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    levels: HashMap<Severity, Action>,
    codes: HashMap<&'static str, Action>,
}

impl Overrides {
    /// Adds an override.
    pub fn set(&mut self, selector: Selector, action: Action) {
        match selector {
            Selector::Level(level) => self.levels.insert(level, action),
            Selector::Code(code) => self.codes.insert(code, action),
        };
    }

    /// The severity a finding of `code` with default `severity` ends up with.
    pub fn resolve(&self, code: &str, severity: Severity) -> Action {
        if let Some(action) = self.codes.get(code) {
            return *action;
        }
        self.levels
            .get(&severity)
            .copied()
            .unwrap_or(Some(severity))
    }

    /// Applies the overrides in place, dropping allowed findings.
    pub fn apply(&self, findings: &mut Vec<Finding>) {
        findings.retain_mut(|f| match self.resolve(f.rule.code, f.rule.severity) {
            Some(severity) => {
                f.severity = severity;
                true
            }
            None => false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Selector, SelectorError> {
        let generic = |code: &str| {
            let rules = crate::check::generic::RULES.iter();
            rules.copied().find(|r| r.code.eq_ignore_ascii_case(code))
        };
        Selector::parse(s, generic)
    }

    #[test]
    fn codes_beat_levels_and_allow_drops() {
        let mut o = Overrides::default();
        o.set(parse("warning").unwrap(), Some(Severity::Error));
        o.set(parse("RX005").unwrap(), None);
        assert_eq!(o.resolve("RX003", Severity::Warning), Some(Severity::Error));
        assert_eq!(o.resolve("RX005", Severity::Warning), None);
        assert_eq!(o.resolve("RX002", Severity::Error), Some(Severity::Error));
    }

    #[test]
    fn selectors_reject_unknown_words() {
        assert!(parse("RX999").is_err());
        assert!(parse("rx002").is_ok());
        assert!(parse("Warnings").is_ok());
    }
}
