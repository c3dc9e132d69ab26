//! The GitHub Action's check step (action.yml), run as the runner would run it: its shell
//! script, with the inputs in the environment, on a copy of the fixture repository.

mod common;

use std::path::Path;

/// The `run:` script of the step with `id: check`.
fn check_step() -> String {
    let action =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let step = action
        .split("id: check\n")
        .nth(1)
        .expect("a step with id: check");
    let script = step.split("      run: |\n").nth(1).expect("its run: block");
    script
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with("        "))
        .map(|l| l.get(8..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs the step in `dir` on `models` and `legacy/` with these inputs: its `GITHUB_OUTPUT`
/// lines.
fn run(dir: &Path, format: &str, baseline: &str, config: &str) -> String {
    run_on(dir, "models\nlegacy/\n", format, baseline, config)
}

/// Runs the step in `dir` on `paths` (one per line) with these inputs: its `GITHUB_OUTPUT`
/// lines.
fn run_on(dir: &Path, paths: &str, format: &str, baseline: &str, config: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("rtenx");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = dir.join("github_output");
    std::fs::write(&output, "").unwrap();
    let status = std::process::Command::new("bash")
        .arg("-c")
        .arg(check_step())
        .current_dir(dir)
        .env("PATH", path)
        .env("RTENX_PATHS", paths)
        .env("RTENX_FORMAT", format)
        .env("RTENX_ARGS", "--color never")
        .env("RTENX_SARIF", "rtenx.sarif")
        .env("RTENX_BASELINE", baseline)
        .env("RTENX_CONFIG", config)
        .env("GITHUB_OUTPUT", &output)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the step itself never fails: a later step does"
    );
    std::fs::read_to_string(output).unwrap()
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = common::fixtures().join("ci-repo");
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let to = dir.path().join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    dir
}

#[test]
fn the_action_uses_the_config_and_the_baseline() {
    let dir = repo();
    // The repository's rtenx.toml denies warnings: models/dupe.rten fails.
    let out = run(dir.path(), "sarif", "", "");
    assert!(
        out.contains("exit-code=1\n") && out.contains("sarif-file=rtenx.sarif\n"),
        "{out}"
    );
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("rtenx.sarif")).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "RX013" && r["level"] == "error"));
    assert!(results
        .iter()
        .all(|r| r["partialFingerprints"]["rtenx/v2"].is_string()));
    // With the baseline, nothing new: it passes, and the SARIF holds no result.
    let out = run(dir.path(), "sarif", "baseline.json", "");
    assert!(out.contains("exit-code=0\n"), "{out}");
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("rtenx.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 0);
    // A named config: sub/pyproject.toml denies nothing, so only legacy/'s errors fail.
    let out = run(dir.path(), "github", "", "sub/pyproject.toml");
    assert!(out.contains("exit-code=1\n"), "{out}");
    // The whole repository, `.`: its own settings are inside what is checked, so they apply
    // only when named. Unnamed, third_party/'s RX001 and legacy/'s errors count, and an info
    // says why.
    let out = run_on(dir.path(), ".\n", "sarif", "", "");
    assert!(out.contains("exit-code=1\n"), "{out}");
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("rtenx.sarif")).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let codes: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"RX001") && codes.contains(&"RT006") && codes.contains(&"RX021"),
        "{codes:?}"
    );
    let out = run_on(dir.path(), ".\n", "sarif", "", "rtenx.toml");
    assert!(out.contains("exit-code=1\n"), "{out}");
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("rtenx.sarif")).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let codes: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(
        !codes.contains(&"RX001") && !codes.contains(&"RT006") && codes.contains(&"RX013"),
        "{codes:?}"
    );
    // A bad config stops the check with 2.
    std::fs::write(dir.path().join("rtenx.toml"), "deny = 3\n").unwrap();
    let out = run(dir.path(), "github", "", "");
    assert!(out.contains("exit-code=2\n"), "{out}");
}
