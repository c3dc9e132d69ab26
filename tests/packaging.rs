//! The packaging, for real: the Python wheel installed in a fresh virtual environment, and the
//! pre-commit hook run by `pre-commit try-repo`, each passing a good model and failing a bad
//! one (`scripts/test-wheel.sh`, `scripts/test-pre-commit.sh`).
//!
//! They need Python 3 with venv and pip, and reach PyPI the first time (maturin and pre-commit
//! are installed under `target/packaging`, which also holds their one shared build, apart from
//! this build's target directory so that the nested cargo never waits for this one's lock).
//! The scripts are bash, so this runs where bash does.
#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

/// The two scripts share one tools venv and one target directory: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `scripts/<script>` and asserts it succeeded with its `ok:` line.
fn run(script: &str) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(script);
    let output = Command::new("bash")
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash {}: {e}", path.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.lines().any(|l| l.starts_with("ok: ")),
        "{script} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
}

#[test]
fn the_wheel_gives_a_working_rtenx_command() {
    run("test-wheel.sh");
}

#[test]
fn the_pre_commit_hook_passes_good_models_and_fails_bad_ones() {
    run("test-pre-commit.sh");
}
