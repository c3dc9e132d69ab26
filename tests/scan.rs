//! Folder scans: time grows with the number of files as n log n at worst, and a file swapped
//! for a symlink after the walk saw it is never followed out of the folder.
#![cfg(target_os = "linux")]

mod common;

use std::path::Path;

/// Writes `count` empty files named `{stem}{i}.{ext}` in `dir`.
fn empty_files(dir: &Path, stem: &str, ext: &str, count: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..count {
        std::fs::write(dir.join(format!("{stem}{i}.{ext}")), b"").unwrap();
    }
}

/// 20,000 programs in one folder and 20,000 data files with no program in another: looking
/// for a program beside each data file among all the files claimed took past 60 s in a
/// release build (10,000 of each 18 s, while each half alone took 0.3 s).
#[test]
fn companions_are_paired_in_linear_time() {
    let root = tempfile::tempdir().unwrap();
    empty_files(&root.path().join("programs"), "p", "pte", 20_000);
    empty_files(&root.path().join("data"), "d", "ptd", 20_000);
    let run = common::bounded::run_in(root.path(), &["check", "--format", "json", "."]);
    run.assert_bounded("20,000 programs and 20,000 lone data files");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The lone data files are checked on their own, beside the programs.
    assert_eq!(report["summary"]["files"], 40_000, "{}", run.stderr);
}
