//! Every rule rtenx reports, group by group: the readers' shared groups, the value rules, the
//! signature rules, then
//! one group per format. `explain`, `--allow`/`--deny` selectors, settings files and the rule
//! docs look rules up here.

use crate::check::{Rule, RuleGroup};
use crate::formats::registry::{FORMATS, SHARED_GROUPS};

/// Every rule group: the shared ones first, then one per format.
pub fn groups() -> impl Iterator<Item = &'static RuleGroup> {
    (SHARED_GROUPS.iter().copied())
        .chain(std::iter::once(&crate::values::GROUP))
        .chain(std::iter::once(&crate::signing::rules::GROUP))
        .chain(FORMATS.iter().map(|f| f.about().rules))
}

/// Every rule, group by group, codes ascending within a group.
pub fn rules() -> impl Iterator<Item = &'static Rule> {
    groups().flat_map(|g| g.rules.iter().copied())
}

/// The rule with this code or name, ignoring ASCII case; a code that moved to another group
/// finds the rule that carries it on.
pub fn lookup(code: &str) -> Option<&'static Rule> {
    let named = rules().find(|rule| rule.code.eq_ignore_ascii_case(code) || rule.name == code);
    named.or_else(|| {
        groups()
            .flat_map(|g| g.moved)
            .find(|m| m.code.eq_ignore_ascii_case(code))
            .map(|m| m.rule)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_and_carry_their_group_prefix() {
        let mut codes = HashSet::new();
        let mut names = HashSet::new();
        let mut prefixes = HashSet::new();
        for group in groups() {
            assert!(prefixes.insert(group.prefix), "prefix {}", group.prefix);
            assert_eq!(group.prefix.len(), 2, "{}", group.prefix);
            for rule in group.rules {
                assert!(codes.insert(rule.code), "duplicate code {}", rule.code);
                assert!(names.insert(rule.name), "duplicate name {}", rule.name);
                assert!(
                    rule.code.starts_with(group.prefix),
                    "{} is in group {}",
                    rule.code,
                    group.prefix
                );
                assert!(rule.code.len() == 5 && rule.code[2..].chars().all(|c| c.is_ascii_digit()));
                assert!(rule
                    .name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()));
                assert!(!rule.summary.is_empty() && rule.explanation().len() > rule.summary.len());
            }
        }
        for group in groups() {
            for moved in group.moved {
                assert!(moved.code.starts_with(group.prefix), "{}", moved.code);
                assert!(codes.insert(moved.code), "moved code {} reused", moved.code);
                assert!(std::ptr::eq(lookup(moved.code).unwrap(), moved.rule));
            }
        }
    }

    #[test]
    fn lookup_takes_codes_names_and_moved_codes() {
        assert_eq!(lookup("rx001").map(|r| r.code), Some("RX001"));
        assert_eq!(lookup("tensor-overlap").map(|r| r.code), Some("RX009"));
        assert_eq!(lookup("OX014").map(|r| r.name), Some("symlink-escape"));
        assert!(lookup("ZZ999").is_none());
    }
}
