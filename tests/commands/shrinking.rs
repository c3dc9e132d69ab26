//! A model file that shrinks while rtenx reads it is reported as changed, and never ends the
//! process with SIGBUS (issue 11: a mapped file truncated by another process).

use crate::common;

use rtenx::source::ModelFile;

/// Copies `fixture` into a temp dir, maps it, and cuts the file to `keep` of its length
/// before the reader runs, as another process would while the map is alive.
fn read_after_truncation(fixture: &str, keep: f64) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(
        std::path::Path::new(fixture)
            .file_name()
            .expect("a file name"),
    );
    std::fs::copy(common::fixtures().join(fixture), &path).unwrap();
    let file = ModelFile::open(&path).unwrap();
    let len = file.bytes().len() as u64;
    let cut = ((len as f64 * keep) as u64) & !4095;
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut)
        .unwrap();
    let analysis = rtenx::analyze_file(&file);
    assert!(!analysis.findings.is_empty() || analysis.inventory.graphs.len() <= 1);
    file.changed().map(|e| e.to_string())
}

#[test]
fn a_model_cut_short_while_mapped_is_a_changed_file() {
    for fixture in [
        "onnx/torch_gpt2/model.onnx",
        "rten/convnet.rten",
        "rten/subgraphs.v1.rten",
        "paddle/pervar/__model__",
        "paddle/dtypes_pir/model.json",
    ] {
        let change = read_after_truncation(fixture, 0.3);
        let change = change.unwrap_or_else(|| panic!("{fixture}: no change reported"));
        assert!(
            change.contains("changed while it was being read"),
            "{change}"
        );
    }
}
