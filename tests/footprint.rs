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
    hashing_a_data_file_keeps_a_few_blocks_in_memory();
}

fn analysing_a_4_gib_model_pages_in_almost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.rten");
    synth::rten::write(
        &path,
        &synth::rten::Spec {
            layers: 4000,
            weight_bytes: 1_073_741,
            scoped: false,
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
    let problems: Vec<_> = analysis.findings.iter().collect();
    assert!(problems.is_empty(), "{problems:?}");
    eprintln!("file-backed RSS grew by {grown} KiB");
    assert!(grown < 4 * 1024, "file-backed RSS grew by {grown} KiB");
}

/// Peak resident memory, in KiB, of this process since the last reset.
fn peak_kib_since_reset(run: impl FnOnce()) -> u64 {
    let status = |field: &str| -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with(field)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
    let before = status("VmRSS:");
    run();
    status("VmHWM:").saturating_sub(before)
}

/// `--verify-checksums` hashes a 128 MiB data file in blocks it gives back: memory does not
/// grow with the file (a populated map made peak RSS the file's size, 3 GB for 3 GiB).
fn hashing_a_data_file_keeps_a_few_blocks_in_memory() {
    use prost::Message;
    use rtenx::formats::onnx::proto::{
        GraphProto, ModelProto, StringStringEntryProto, TensorProto,
    };
    let dir = tempfile::tempdir().unwrap();
    let len = 128usize << 20;
    std::fs::write(dir.path().join("w.data"), vec![7u8; len]).unwrap();
    let entry = |key: &str, value: String| StringStringEntryProto {
        key: Some(key.to_owned().into()),
        value: Some(value.into()),
    };
    let tensor = TensorProto {
        name: Some("w".into()),
        data_type: Some(2), // uint8
        dims: vec![len as i64],
        data_location: Some(1),
        external_data: vec![
            entry("location", "w.data".into()),
            entry("checksum", "0".repeat(40)),
        ],
        ..Default::default()
    };
    let graph = GraphProto {
        initializer: vec![tensor.encode_to_vec().into()],
        ..Default::default()
    };
    let model = dir.path().join("model.onnx");
    std::fs::write(&model, ModelProto::with_graph(&graph, 21).encode_to_vec()).unwrap();
    let options = rtenx::formats::ReadOptions {
        verify_checksums: true,
        ..Default::default()
    };
    let mut codes = Vec::new();
    let grown = peak_kib_since_reset(|| {
        let analysis = rtenx::analyze_with(&model, &options).unwrap();
        codes = analysis.findings.iter().map(|f| f.rule.code).collect();
    });
    assert!(codes.contains(&"DX009"), "the file was hashed: {codes:?}");
    assert!(
        grown < 40 * 1024,
        "peak RSS grew by {grown} KiB hashing 128 MiB"
    );
}
