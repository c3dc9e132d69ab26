//! Hostile fixtures of every format: each `tests/fixtures/<format>/bad/manifest.tsv` lists
//! the findings each case must produce (schema: tests/fixtures/gen/README.md). A case is
//! copied into a temporary folder, its setup (symlinks, hard links, FIFOs, files next to it)
//! is applied, and its entry file is checked with `--verify-checksums`. A new format adds a
//! `bad/` folder with a manifest, and nothing here.
#![cfg(unix)] // Setup steps make symlinks and FIFOs; the ONNX rules read Unix link counts.

mod common;

use common::hostile::{self, Case};
use rtenx::check::{Finding, Item, Severity};
use std::collections::BTreeSet;

/// The name a finding's item has in a manifest: a tensor's or node's name, the data file's
/// name for a finding about a whole data file, or `-`.
fn item_name(a: &rtenx::Analysis, f: &Finding) -> String {
    let inv = &a.inventory;
    match f.item {
        Some(Item::Tensor { tensor }) => inv.tensors[tensor].name.to_string(),
        Some(Item::Node { graph, node }) => inv.graphs[graph]
            .node(node)
            .map(|n| n.name.to_string())
            .unwrap_or_default(),
        _ if f.file > 0 => inv.files[f.file]
            .path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        _ => "-".to_owned(),
    }
}

/// What `case` produces that its rows do not say, and what they say that it does not.
/// Compared: every error and warning, and the infos of the codes the case lists.
fn differences(case: &Case) -> Option<String> {
    let a = case.analyze();
    let listed: BTreeSet<&str> = case.rows.iter().map(|r| r.code.as_str()).collect();
    let actual: Vec<(&str, Option<u64>, String)> = a
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning || listed.contains(f.rule.code))
        .map(|f| (f.rule.code, f.offset, item_name(&a, f)))
        .collect();
    let unexpected: Vec<_> = actual
        .iter()
        .filter(|(code, offset, item)| !case.rows.iter().any(|r| r.matches(code, *offset, item)))
        .collect();
    let missing: Vec<_> = case
        .rows
        .iter()
        .filter(|r| !actual.iter().any(|(c, o, i)| r.matches(c, *o, i)))
        .collect();
    if unexpected.is_empty() && missing.is_empty() {
        return None;
    }
    let messages: Vec<String> = a
        .findings
        .iter()
        .map(|f| format!("{} @ {:?}: {}", f.rule.code, f.offset, f.message))
        .collect();
    Some(format!(
        "{}:\n  unexpected {unexpected:?}\n  missing    {missing:?}\n  all: {}",
        case.name(),
        messages.join("\n       ")
    ))
}

#[test]
fn each_hostile_case_produces_exactly_its_findings() {
    let cases = hostile::all_cases();
    assert!(cases.len() > 100, "only {} cases", cases.len());
    let failures: Vec<String> = cases.iter().filter_map(differences).collect();
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_rule_has_a_fixture() {
    let mut covered: BTreeSet<String> = hostile::all_cases()
        .into_iter()
        .flat_map(|c| c.rows)
        .map(|r| r.code)
        .collect();
    for (code, file, test) in hostile::GENERATED.iter().chain(hostile::LAID_OUT) {
        let source =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
                .unwrap();
        assert!(
            source.contains(&format!("fn {test}()")),
            "{file} has no {test}"
        );
        covered.insert(code.to_string());
    }
    let missing: Vec<&str> = common::rules()
        .map(|r| r.code)
        .filter(|c| !covered.contains(*c))
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
}

/// Everything in a `bad/` folder is a case, except the manifest, other `.tsv` notes and
/// `src/`, which holds sources.
#[test]
fn every_fixture_is_in_its_manifest() {
    for format in hostile::formats() {
        let units: BTreeSet<String> = hostile::cases(&format)
            .iter()
            .map(|c| c.unit().to_owned())
            .collect();
        for entry in std::fs::read_dir(common::fixtures().join(&format).join("bad")).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name != "src" && !name.ends_with(".tsv") {
                assert!(
                    units.contains(&name),
                    "{format}/bad/{name} has no manifest row"
                );
            }
        }
    }
}

/// A case is named after the rule it exists for, `<CODE>-<slug>`, or `ok-<slug>` when it
/// shows that something is not reported, so that a `bad/` folder reads as the rules it covers.
#[test]
fn every_case_is_named_after_a_rule() {
    let codes: BTreeSet<&str> = common::rules().map(|r| r.code).collect();
    let misnamed: Vec<String> = hostile::all_cases()
        .iter()
        .filter(|case| {
            let prefix = case.unit().split('-').next().unwrap_or_default();
            !prefix.eq_ignore_ascii_case("ok") && !codes.contains(prefix)
        })
        .map(Case::name)
        .collect();
    assert!(misnamed.is_empty(), "named after no rule: {misnamed:?}");
}
