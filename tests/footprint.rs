//! `check` must not read tensor bytes: analysing a 4 GiB model maps only a few pages.
//! Measured as the growth of the process's file-backed resident memory while the model is
//! mapped (Linux only).
#![cfg(target_os = "linux")]

#[path = "../benches/support/synth.rs"]
mod synth;

fn rss_file_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("RssFile:"))
        .expect("RssFile in /proc/self/status");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn analysing_a_4_gib_model_pages_in_almost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.rten");
    synth::write(
        &path,
        &synth::Spec {
            layers: 4000,
            weight_bytes: 1_073_741,
        },
    )
    .unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 4 << 30, "the model is {size} bytes");

    let before = rss_file_kib();
    let file = rtenx::source::ModelFile::open(&path).unwrap();
    let analysis = rtenx::analyze_file(&file);
    let grown = rss_file_kib().saturating_sub(before);
    drop(file);

    assert_eq!(analysis.inventory.tensors.len(), 4000);
    assert!(analysis.findings.is_empty(), "{:?}", analysis.findings);
    // The FlatBuffer is under 1 MiB; touching the tensor data would fault in far more.
    eprintln!("file-backed RSS grew by {grown} KiB");
    assert!(grown < 4 * 1024, "file-backed RSS grew by {grown} KiB");
}
