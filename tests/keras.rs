//! Keras archives saved by Keras 3.15.1 and by tf-keras 2.21 (tests/fixtures/keras, made by
//! tests/fixtures/gen/make_keras_fixtures.py, make_keras2_fixture.py and
//! make_foreign_fixtures.py) are read as Keras, their layers as the scope tree and graph, and
//! held to what `keras.saving.load_model` says of them (`verdicts.tsv`): wherever it refuses a
//! file with `safe_mode=True`, rtenx reports an error, except where the refusal is only that
//! the code of a custom object is not registered, which rtenx reports as a warning (KR006), or
//! that the file's extension is not `.keras`, which it reports as a misnamed file (RX020).
//! Legacy `.h5` files are held to the same verdicts (tests/keras_h5.rs holds their datasets
//! to h5py).

mod common;

use rtenx::check::Severity;
use rtenx::inventory::{FileFormat, NodeKind, ScopeTree, Trust};

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
        let keras2 = a.findings.iter().any(|f| f.rule.code == "KR013");
        // A weights-only .h5 is no model load_model loads: its refusal is no verdict.
        if !safe.starts_with("refuses") || safe.contains("No model config found") {
            continue;
        }
        let unregistered = safe.contains("Could not locate") || safe.contains("Unknown layer");
        if safe.contains("File format not supported") {
            // load_model goes by the extension, rtenx by the content: the name is reported.
            let renamed = a.findings.iter().any(|f| f.rule.code == "RX020");
            assert!(renamed, "{file}: {safe}");
        } else if (custom || keras2) && unregistered {
            // Its code must be registered, or (Keras 2) loaded by tf_keras: a warning.
            assert!(worst >= Some(Severity::Warning), "{file}: {safe}");
        } else {
            assert_eq!(worst, Some(Severity::Error), "{file}: {safe}");
        }
        checked += 1;
    }
    assert!(checked >= 17, "only {checked} refused fixtures");
}

#[test]
fn legacy_h5_is_read_as_the_keras_file_it_is() {
    let dir = common::fixtures().join("keras");
    for (file, variant) in [
        ("legacy.h5", "Keras 3 legacy .h5 (model.save, HDF5)"),
        (
            "tensorflow.weights.h5",
            "Keras 3 weights (.weights.h5, HDF5: no config)",
        ),
    ] {
        let a = rtenx::analyze(&dir.join(file)).unwrap();
        assert_eq!(a.inventory.format, FileFormat::Read("keras"), "{file}");
        assert_eq!(a.inventory.format_version, variant, "{file}");
    }
}

/// The layers whose outputs the layer `name` of graph 0 reads, in order.
fn read_from(a: &rtenx::Analysis, name: &str) -> Vec<String> {
    let graph = &a.inventory.graphs[0];
    let operators: Vec<_> = (graph.nodes.iter())
        .filter_map(|n| match n.kind {
            NodeKind::Operator(op) => Some((n.name.to_string(), op)),
            _ => None,
        })
        .collect();
    let (_, op) = operators.iter().find(|(n, _)| n == name).unwrap();
    let producer = |value: u32| {
        (operators.iter())
            .find(|(_, o)| o.outputs().contains(&Some(value)))
            .map_or_else(String::new, |(n, _)| n.clone())
    };
    op.inputs().iter().map(|v| producer(v.unwrap())).collect()
}

#[test]
fn keras2_inbound_nodes_join_layers_as_keras3_ones_do() {
    let dir = common::fixtures().join("keras");
    // Keras 3: `{"args": [{"class_name": "__keras_tensor__", ...}]}`.
    let plain = rtenx::analyze(&dir.join("plain.keras")).unwrap();
    assert_eq!(read_from(&plain, "residual"), ["block", "skip"]);
    assert_eq!(read_from(&plain, "head"), ["residual"]);
    // Keras 2 (tf-keras 2.21): `[[["shared", 0, 0, {}], ["shared", 1, 0, {}]]]`.
    let keras2 = rtenx::analyze(&dir.join("keras2.keras")).unwrap();
    assert_eq!(read_from(&keras2, "residual"), ["shared", "shared"]);
    assert_eq!(read_from(&keras2, "shared"), ["features", "block"]);
    assert_eq!(read_from(&keras2, "head"), ["residual"]);
    let graph = &keras2.inventory.graphs[0];
    let residual = (graph.nodes.iter()).find_map(|n| match n.kind {
        NodeKind::Operator(op) if n.name.to_string() == "residual" => Some(op),
        _ => None,
    });
    let op = residual.unwrap();
    let names: Vec<String> = (op.inputs().iter())
        .map(|v| graph.node(v.unwrap()).unwrap().name.to_string())
        .collect();
    assert_eq!(
        names,
        ["shared", "shared:1:0"],
        "node index 1 is a value of its own"
    );
    // Keras 3 refuses the archive (its model class is in tf_keras), tf-keras 2.21 reads it:
    // a warning that names the loader, not an unsafe import.
    let codes: Vec<_> = keras2.findings.iter().map(|f| f.rule.code).collect();
    assert_eq!(codes, ["KR013"]);
}

#[test]
fn a_lambda_is_reported_in_its_layer_named_once() {
    let path = common::fixtures().join("keras/bad/KR004-lambda-layer.keras");
    let a = rtenx::analyze(&path).unwrap();
    let lambda = a.findings.iter().find(|f| f.rule.code == "KR004").unwrap();
    let message = &lambda.message;
    assert!(
        message.starts_with("config.json names __lambda__ at 1656 in layer \"double\" (Lambda): "),
        "{message}"
    );
    assert_eq!(message.matches("double").count(), 1, "{message}");
}
