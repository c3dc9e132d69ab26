//! `check` must not read tensor bytes: analysing a 4 GiB model maps only a few pages, for a
//! `.rten` file and for an ONNX model with a 4 GiB external data file.
//! Measured as the growth of the process's file-backed resident memory while the model is
//! mapped (Linux only).
#![cfg(target_os = "linux")]

use rtenx::synth;

fn rss_file_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("RssFile:"))
        .expect("RssFile in /proc/self/status");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Growth of file-backed RSS while `path` is mapped and analysed. RssFile is process-wide
/// and also counts this binary's own code pages, so the same format is analysed once before
/// measuring, and the tests below run one after the other (see `both_formats`).
fn rss_growth_kib(path: &std::path::Path, warm_up: &std::path::Path) -> (u64, rtenx::Analysis) {
    rtenx::analyze(warm_up).unwrap();
    let before = rss_file_kib();
    let file = rtenx::source::ModelFile::open(path).unwrap();
    let analysis = rtenx::analyze_file(&file);
    let grown = rss_file_kib().saturating_sub(before);
    (grown, analysis)
}

#[test]
fn both_formats() {
    analysing_a_4_gib_model_pages_in_almost_nothing();
    checking_an_onnx_model_with_4_gib_of_external_data_reads_no_tensor_bytes();
}

fn analysing_a_4_gib_model_pages_in_almost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.rten");
    synth::rten::write(
        &path,
        &synth::rten::Spec {
            layers: 4000,
            weight_bytes: 1_073_741,
        },
    )
    .unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 4 << 30, "the model is {size} bytes");

    let warm_up =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rten/mlp.rten");
    let (grown, analysis) = rss_growth_kib(&path, &warm_up);

    assert_eq!(analysis.inventory.tensors.len(), 4000);
    assert!(analysis.findings.is_empty(), "{:?}", analysis.findings);
    // The FlatBuffer is under 1 MiB; touching the tensor data would fault in far more.
    eprintln!("file-backed RSS grew by {grown} KiB");
    assert!(grown < 4 * 1024, "file-backed RSS grew by {grown} KiB");
}

fn checking_an_onnx_model_with_4_gib_of_external_data_reads_no_tensor_bytes() {
    let dir = tempfile::tempdir().unwrap();
    synth::onnx::write(dir.path(), 1024, 4 << 20).unwrap();
    let data = std::fs::metadata(dir.path().join("weights.data"))
        .unwrap()
        .len();
    assert!(data >= 4 << 30, "the data file is {data} bytes");

    let warm_up = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/onnx/external_one_file/model.onnx");
    let (grown, analysis) = rss_growth_kib(&dir.path().join("model.onnx"), &warm_up);

    assert_eq!(analysis.inventory.tensors.len(), 1024);
    assert_eq!(analysis.inventory.files.len(), 2, "model and data file");
    let problems: Vec<_> = analysis
        .findings
        .iter()
        .filter(|f| f.rule.code != "OX024")
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    eprintln!("file-backed RSS grew by {grown} KiB");
    assert!(grown < 4 * 1024, "file-backed RSS grew by {grown} KiB");
}
