//! Every rule known to rtenx: the format-neutral ones and each format's own.

use super::Rule;

/// All rules, format-neutral first, then by format; codes within a group ascend.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    super::generic::RULES
        .iter()
        .chain(
            crate::formats::FORMATS
                .iter()
                .flat_map(|f| f.rules().iter()),
        )
        .copied()
}

/// The rule with this code, ignoring ASCII case.
pub fn lookup(code: &str) -> Option<&'static Rule> {
    all().find(|rule| rule.code.eq_ignore_ascii_case(code) || rule.name == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_and_names_are_unique_and_well_formed() {
        let mut codes = HashSet::new();
        let mut names = HashSet::new();
        for rule in all() {
            assert!(codes.insert(rule.code), "duplicate code {}", rule.code);
            assert!(names.insert(rule.name), "duplicate name {}", rule.name);
            assert_eq!(rule.code.len(), 5, "{}", rule.code);
            assert!(rule.code[2..].chars().all(|c| c.is_ascii_digit()));
            assert!(rule
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()));
            assert!(!rule.summary.is_empty() && rule.explanation.len() > rule.summary.len());
        }
    }
}
