//! Every rule rtenx reports, group by group: the readers' shared groups, the value rules, then
//! one group per format. `explain`, `--allow`/`--deny` selectors, settings files and the rule
//! docs look rules up here.

use crate::check::{Rule, RuleGroup};
use crate::formats::registry::{FORMATS, SHARED_GROUPS};

/// Every rule group: the shared ones first, then one per format.
pub fn groups() -> impl Iterator<Item = &'static RuleGroup> {
    (SHARED_GROUPS.iter().copied())
        .chain(std::iter::once(&crate::values::GROUP))
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
