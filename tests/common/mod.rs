//! Helpers shared by the integration tests.
#![allow(dead_code)] // Each test binary uses a different subset.

pub mod bounded;
pub mod hostile;
pub mod hub;

use std::path::{Path, PathBuf};

/// Runs the `rtenx` binary from the package root with colour off: stdout, stderr and the
/// exit code.
pub fn rtenx(args: &[&str]) -> (String, String, i32) {
    rtenx_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Runs the `rtenx` binary in the folder `dir` with colour off: stdout, stderr and the exit
/// code. Settings come from the working directory, so tests of them run it where they are.
pub fn rtenx_in(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = assert_cmd::Command::cargo_bin("rtenx")
        .unwrap()
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        text(out.stdout),
        text(out.stderr),
        out.status.code().unwrap(),
    )
}

/// The fixtures folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every valid `.rten` fixture made by rten-convert.
pub fn valid_rten() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join("rten"))
        .expect("fixtures/rten exists")
        .map(|e| e.expect("readable dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rten"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "expected the rten-convert fixtures, found {files:?}"
    );
    files
}

/// Every rule rtenx knows: the one place the tests ask the registry.
pub fn rules() -> impl Iterator<Item = &'static rtenx::check::Rule> {
    rtenx::catalogue::rules()
}

/// The mlp fixture with its graph input renamed from "x" to ESC (same length), to check that
/// control characters from files never reach the terminal.
pub fn mlp_with_escape_in_a_name() -> Vec<u8> {
    let mut bytes = std::fs::read(fixtures().join("rten/mlp.rten")).expect("mlp fixture");
    let at = bytes
        .windows(6)
        .position(|w| w == b"\x01\0\0\0x\0")
        .expect("the name x")
        + 4;
    bytes[at] = 0x1b;
    bytes
}

/// The artifact URI of each result of a SARIF report, in order.
pub fn sarif_uris(sarif: &serde_json::Value) -> Vec<&str> {
    let results = sarif["runs"][0]["results"].as_array();
    (results.into_iter().flatten())
        .map(|r| {
            let location = &r["locations"][0]["physicalLocation"]["artifactLocation"];
            location["uri"].as_str().unwrap_or_default()
        })
        .collect()
}
