//! One hostile fixture per check code (tests/fixtures/rten/bad, made by
//! tests/fixtures/gen/make_bad_rten.py). The manifest lists every finding each file must
//! produce, with its byte offset; a file may produce no other warning or error.

mod common;

use rtenx::check::{registry, Severity};
use std::collections::{BTreeMap, BTreeSet};

type Expected = BTreeMap<String, BTreeSet<(String, u64)>>;

fn manifest() -> Expected {
    let dir = common::fixtures().join("rten/bad");
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    let mut rows = Expected::new();
    for line in text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, code, offset, ..] = cols[..] else {
            panic!("bad manifest row {line}")
        };
        let offset = offset
            .parse()
            .unwrap_or_else(|_| panic!("offset in {line}"));
        rows.entry(file.to_owned())
            .or_default()
            .insert((code.to_owned(), offset));
    }
    rows
}

#[test]
fn each_bad_fixture_produces_exactly_its_findings() {
    let dir = common::fixtures().join("rten/bad");
    let mut failures = Vec::new();
    for (file, expected) in manifest() {
        let analysis = rtenx::analyze(&dir.join(&file)).unwrap();
        let actual: BTreeSet<(String, u64)> = analysis
            .findings
            .iter()
            .filter(|f| f.severity >= Severity::Warning || f.rule.code == "RT026")
            .map(|f| {
                (
                    f.rule.code.to_owned(),
                    f.offset.expect("every finding has an offset"),
                )
            })
            .collect();
        if actual != expected {
            failures.push(format!(
                "{file}:\n  expected {expected:?}\n  actual   {actual:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_fixture() {
    let covered: BTreeSet<String> = manifest()
        .into_values()
        .flatten()
        .map(|(code, _)| code)
        .collect();
    let missing: Vec<&str> = registry::all()
        .map(|r| r.code)
        .filter(|c| !covered.contains(*c))
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
}

#[test]
fn every_fixture_file_is_in_the_manifest() {
    let listed = manifest();
    let dir = common::fixtures().join("rten/bad");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".rten") {
            assert!(listed.contains_key(&name), "{name} has no manifest row");
        }
    }
}
