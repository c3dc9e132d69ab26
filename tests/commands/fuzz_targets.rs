//! The fuzz targets (fuzz/, a crate of its own that cargo-fuzz builds with nightly, which the
//! main crate's `cargo fmt` and `cargo check` never see) still compile against the library
//! and stay formatted: a renamed method once left every target broken unseen until the next
//! fuzzing round. `cargo check` needs no nightly; its target directory is apart from this
//! build's, so the nested cargo never waits for this one's lock.

use std::path::Path;
use std::process::{Command, Output};

/// `cargo <args> --manifest-path fuzz/Cargo.toml`, building apart from this build.
fn cargo_on_fuzz(args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new(env!("CARGO"))
        .args(args)
        .arg("--manifest-path")
        .arg(root.join("fuzz/Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/fuzz-check"))
        .output()
        .expect("cargo runs")
}

#[test]
fn the_fuzz_targets_compile() {
    let output = cargo_on_fuzz(&["check", "--quiet", "--bins"]);
    assert!(
        output.status.success(),
        "cargo check of fuzz/ failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_fuzz_targets_are_formatted() {
    let output = cargo_on_fuzz(&["fmt", "--check"]);
    assert!(
        output.status.success(),
        "fuzz/ is not formatted (`cargo fmt --manifest-path fuzz/Cargo.toml`):\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
}
