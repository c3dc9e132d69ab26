//! The one list of formats and of rule groups.
//!
//! Adding a format is a folder under `formats/` plus one line in [`FORMATS`]; its rules,
//! detection and directory scanning come with it. Everything that needs to know every
//! format or every rule (detection, `explain`, `--allow`, SARIF rule lists) asks here.

use super::foreign::{self, Foreign};
use super::shared::{datafiles, hf, pickle, zip};
use super::{extension, Detection, Format, Scan};
use crate::check::{generic, Rule, RuleGroup};
use crate::source::ModelFile;

/// Every format rtenx reads. Of two formats equally sure of a file, whose extension neither
/// claims, the later one reads it: plain pickles after PyTorch (which also takes any pickle
/// `torch.load` would unpickle), any zip last.
pub static FORMATS: &[&dyn Format] = &[
    &super::rten::Rten,
    &super::onnx::Onnx,
    &super::executorch::ExecuTorch,
    &super::tflite::TfLite,
    &super::paddle::Paddle,
    &super::gguf::Gguf,
    &super::safetensors::Safetensors,
    &super::pytorch::PyTorch,
    &super::pickle::Pickles,
    &super::numpy::NumPy,
    &super::archive::Archives,
];

/// Rule groups that belong to no one format: the format-neutral rules, the data-file rules, and
/// the pickle and zip rules of the formats built on them.
static SHARED_GROUPS: &[&RuleGroup] = &[
    &generic::GROUP,
    &datafiles::rules::GROUP,
    &pickle::rules::GROUP,
    &zip::rules::GROUP,
    &hf::rules::GROUP,
    &crate::values::GROUP,
];

/// Every rule group: the shared ones first, then one per format.
pub fn groups() -> impl Iterator<Item = &'static RuleGroup> {
    SHARED_GROUPS
        .iter()
        .copied()
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

/// What a file is, as far as its content tells.
#[derive(Clone, Copy)]
pub enum Detected {
    /// A format rtenx reads.
    Read(&'static dyn Format),
    /// A known format rtenx does not read.
    NotRead(&'static Foreign),
    /// Nothing rtenx knows.
    Unknown,
}

/// The format of `file`: the strongest detection wins, and among equally strong ones, a
/// format whose extension matches the file name, then a format rtenx reads.
pub fn detect(file: &ModelFile) -> Detected {
    let bytes = file.bytes();
    let ext = extension(file.path());
    let named = |exts: &[&str]| ext.as_deref().is_some_and(|e| exts.contains(&e));
    let read: Vec<_> = (FORMATS.iter())
        .map(|f| {
            (
                (f.detect(bytes), named(f.about().extensions), true),
                Detected::Read(*f),
            )
        })
        .collect();
    // A format rtenx reads whose magic and extension both match outranks every format it
    // does not read, whose detectors then need not look (some look far into the file, which
    // a remote file would fetch).
    let sure = read
        .iter()
        .any(|(rank, _)| *rank == (Detection::Magic, true, true));
    let not_read = (foreign::FOREIGN.iter()).filter(|_| !sure).map(|f| {
        let rank = ((f.detect)(bytes), named(f.extensions), false);
        (rank, Detected::NotRead(f))
    });
    read.into_iter()
        .chain(not_read)
        .filter(|((detection, ..), _)| *detection != Detection::No)
        .max_by_key(|(rank, _)| *rank)
        .map_or(Detected::Unknown, |(_, found)| found)
}

/// When the extension of `path` belongs to another format than `format`, which its content
/// is in: the message that names both. An extension that formats claim only by content
/// (`.json`) names no format.
pub fn misnamed(format: &dyn Format, path: &std::path::Path) -> Option<String> {
    let ext = extension(path)?;
    if format.scan(path) != Scan::Skip
        || FORMATS
            .iter()
            .any(|f| f.scan(path) == Scan::ModelIfDetected)
    {
        return None;
    }
    let read = FORMATS.iter().find(|f| f.scan(path) != Scan::Skip);
    let owner = match read {
        Some(f) => f.about().name,
        None => {
            foreign::FOREIGN
                .iter()
                .find(|f| f.extensions.contains(&ext.as_str()))?
                .title
        }
    };
    Some(format!(
        "the extension .{ext} says {owner}, but the content is {}",
        format.about().name
    ))
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
