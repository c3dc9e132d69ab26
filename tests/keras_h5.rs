//! Legacy Keras HDF5 files saved by Keras 3.15.1 and tf-keras 2.21 (tests/fixtures/keras/h5,
//! made by tests/fixtures/gen/make_keras_h5_fixtures.py) are read through the shared HDF5
//! reader: the variant named, the `model_config` judged and its layers the graph, and every
//! dataset a tensor with the dtype, shape, data offset and size h5py reports
//! (`h5/datasets.tsv`). Their verdicts are held in tests/keras.rs with the archives'.

mod common;

use rtenx::check::Severity;
use rtenx::inventory::{FileFormat, Storage};

#[test]
fn datasets_are_the_tensors_h5py_lists() {
    let dir = common::fixtures().join("keras/h5");
    let table = std::fs::read_to_string(dir.join("datasets.tsv")).unwrap();
    let mut rows = 0;
    for line in table.lines().skip(2) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, name, dtype, shape, offset, bytes] = cols[..] else {
            panic!("{line}");
        };
        let a = rtenx::analyze(&dir.join(file)).unwrap();
        let t = (a.inventory.tensors.iter())
            .find(|t| t.name.to_string() == name)
            .unwrap_or_else(|| panic!("{file}: no tensor {name}"));
        assert_eq!(dtype, "<f4", "{file} {name}");
        assert_eq!(t.dtype.map(|d| d.to_string()).as_deref(), Some("f32"));
        let dims: Vec<u64> = shape.split('x').map(|d| d.parse().unwrap()).collect();
        assert_eq!(t.shape, dims, "{file} {name}");
        let data = t.data.unwrap();
        assert_eq!(t.storage, Storage::External);
        assert_eq!(data.offset.to_string(), offset, "{file} {name}");
        assert_eq!(data.len.to_string(), bytes, "{file} {name}");
        rows += 1;
    }
    assert!(rows >= 22, "only {rows} datasets");
}

#[test]
fn files_saved_by_keras_are_named_and_clean() {
    let dir = common::fixtures().join("keras");
    for (file, variant, graph) in [
        (
            "h5/sequential.h5",
            "Keras 3 legacy .h5 (model.save, HDF5)",
            true,
        ),
        (
            "h5/keras2.h5",
            "Keras 2 legacy .h5 (model.save, HDF5)",
            true,
        ),
        (
            "tensorflow.h5",
            "Keras 3 legacy .h5 (model.save, HDF5)",
            true,
        ),
        (
            "h5/model.weights.h5",
            "Keras 3 weights (.weights.h5, HDF5: no config)",
            false,
        ),
        (
            "h5/keras2_weights.h5",
            "Keras weights .h5 (save_weights, HDF5: no config)",
            false,
        ),
    ] {
        let a = rtenx::analyze(&dir.join(file)).unwrap();
        assert_eq!(a.inventory.format, FileFormat::Read("keras"), "{file}");
        assert_eq!(a.inventory.format_version, variant, "{file}");
        let serious: Vec<_> = (a.findings.iter())
            .filter(|f| f.severity >= Severity::Info)
            .map(|f| f.message.clone())
            .collect();
        assert!(serious.is_empty(), "{file}: {serious:?}");
        assert_eq!(!a.inventory.graphs.is_empty(), graph, "{file}");
        assert!(!a.inventory.tensors.is_empty(), "{file}");
    }
    let keras2 = rtenx::analyze(&dir.join("h5/keras2.h5")).unwrap();
    let version = (keras2.inventory.metadata.iter()).find(|m| m.key.to_string() == "keras_version");
    assert_eq!(version.unwrap().value.to_string(), "2.21.0");
    let ops: Vec<String> = (keras2.inventory.graphs[0].nodes.iter())
        .map(|n| n.name.to_string())
        .collect();
    for layer in ["hidden", "skip", "residual", "head"] {
        assert!(ops.iter().any(|o| o == layer), "{ops:?}");
    }
}

#[test]
fn a_lambda_in_an_h5_says_that_safe_mode_did_not_stop_it() {
    let dir = common::fixtures().join("keras/bad");
    for file in ["KR004-lambda-layer.h5", "KR004-keras2-lambda.h5"] {
        let a = rtenx::analyze(&dir.join(file)).unwrap();
        let lambda = a.findings.iter().find(|f| f.rule.code == "KR004").unwrap();
        assert_eq!(lambda.severity, Severity::Error);
        assert!(
            lambda.message.starts_with("model_config names ")
                && lambda.message.contains("CVE-2025-9905")
                && lambda.message.contains("even with safe_mode=True"),
            "{}",
            lambda.message
        );
    }
}

#[test]
fn the_weights_member_of_an_archive_is_listed_in_place() {
    let a = rtenx::analyze(&common::fixtures().join("keras/plain.keras")).unwrap();
    let member = (a.inventory.properties.iter()).find(|p| p.key == "weights");
    let member = member.unwrap();
    assert!(member.value.contains("datasets listed"), "{}", member.value);
    let start = member.offset.unwrap();
    let tensors = &a.inventory.tensors;
    assert_eq!(tensors.len(), 8);
    for t in tensors {
        let data = t.data.unwrap();
        assert!(t.name.to_string().starts_with("layers/"), "{}", t.name);
        assert!(data.offset > start && data.end().unwrap() <= start + 25080);
    }
    assert!(a.findings.iter().all(|f| f.severity < Severity::Info));
}
