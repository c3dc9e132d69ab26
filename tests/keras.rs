//! Keras archives saved by Keras 3.15.1 (tests/fixtures/keras, made by
//! tests/fixtures/gen/make_keras_fixtures.py and make_foreign_fixtures.py) are read as Keras,
//! their layers as the scope tree and graph, and held to what `keras.saving.load_model` says
//! of them (`verdicts.tsv`): wherever it refuses a file with `safe_mode=True`, rtenx reports an
//! error, except where the refusal is only that the code of a custom object is not
//! registered, which rtenx reports as a warning (KR006).

mod common;

use rtenx::check::Severity;
use rtenx::inventory::{FileFormat, ScopeTree, Trust};

#[test]
fn archives_saved_by_keras_are_read_clean_with_their_layers_as_scopes() {
    let dir = common::fixtures().join("keras");
    for file in [
        "plain.keras",
        "sequential.keras",
        "tensorflow.keras",
        "misnamed/model.rten",
    ] {
        let a = rtenx::analyze(&dir.join(file)).unwrap();
        assert_eq!(a.inventory.format, FileFormat::Read("keras"), "{file}");
        let serious: Vec<_> = (a.findings.iter())
            .filter(|f| f.severity >= Severity::Warning && f.rule.code != "RX020")
            .map(|f| f.message.clone())
            .collect();
        assert!(serious.is_empty(), "{file}: {serious:?}");
        assert!(
            a.inventory.imports.iter().all(|i| i.trust == Trust::Safe),
            "{file}"
        );
        assert!(!a.inventory.graphs.is_empty(), "{file}");
    }
    let plain = rtenx::analyze(&dir.join("plain.keras")).unwrap();
    let tree = ScopeTree::build(&plain.inventory);
    let path = |name: &str| {
        let mut at = tree
            .scopes
            .iter()
            .position(|s| s.name.to_string() == name)
            .unwrap();
        let mut parts = vec![];
        while let Some(parent) = tree.scopes[at].parent {
            parts.push(tree.scopes[at].name.to_string());
            at = parent as usize;
        }
        parts.reverse();
        parts.join("/")
    };
    assert_eq!(path("hidden"), "plain/block/hidden");
    assert_eq!(path("head"), "plain/head");
    let graph = &plain.inventory.graphs[0];
    let names = |ids: &[u32]| -> Vec<String> {
        ids.iter()
            .map(|&i| graph.node(i).unwrap().name.to_string())
            .collect()
    };
    assert_eq!(names(&graph.inputs), ["features"]);
    assert_eq!(names(&graph.outputs), ["head"]);
    let weights = plain
        .inventory
        .properties
        .iter()
        .find(|p| p.key == "weights");
    assert!(weights
        .unwrap()
        .value
        .starts_with("model.weights.h5, 25080 bytes"));
}

#[test]
fn what_safe_mode_refuses_is_an_error() {
    let dir = common::fixtures().join("keras");
    let verdicts = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut checked = 0;
    for line in verdicts.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, safe) = (cols[0], cols[1]);
        let a = rtenx::analyze(&dir.join(file)).unwrap();
        let worst = a.findings.iter().map(|f| f.severity).max();
        let custom = a.findings.iter().any(|f| f.rule.code == "KR006");
        if !safe.starts_with("refuses") || file.ends_with(".h5") {
            continue;
        }
        if custom && safe.contains("Could not locate") {
            assert!(worst >= Some(Severity::Warning), "{file}: {safe}");
        } else {
            assert_eq!(worst, Some(Severity::Error), "{file}: {safe}");
        }
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} refused fixtures");
}

#[test]
fn legacy_h5_is_named_for_the_keras_file_it_is() {
    let a = rtenx::analyze(&common::fixtures().join("keras/legacy.h5")).unwrap();
    assert_eq!(a.inventory.format, FileFormat::NotRead("keras-h5"));
    assert!(
        a.findings[0].message.contains("full-model .h5"),
        "{}",
        a.findings[0].message
    );
}
