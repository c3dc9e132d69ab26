//! The GitHub Action's check step (action.yml), run as the runner would run it: its shell
//! script, with the inputs in the environment, on a copy of the fixture repository; the
//! README's CI example run in a fresh git repository; and the pre-commit hook's `files`
//! pattern (.pre-commit-hooks.yaml) held to the formats of the registry.

use crate::common;

use rtenx::formats::registry::FORMATS;
use rtenx::formats::Scan;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The `run:` script of the step with `id: check`.
fn check_step() -> String {
    let action = read("action.yml");
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

/// The `files` pattern of the rtenx-check hook, as pre-commit reads it (a Python regular
/// expression searched in each path, `/` between components; this one is also valid in Rust).
fn hook_files() -> regex::Regex {
    let hooks = read(".pre-commit-hooks.yaml");
    let line = (hooks.lines())
        .find_map(|l| l.trim().strip_prefix("files: '"))
        .expect("a files: '...' line");
    let pattern = line.strip_suffix('\'').expect("one line, quoted");
    regex::Regex::new(&pattern.replace("''", "'")).unwrap()
}

/// Names that formats claim by content alone, but that the hook takes by name: transformers'
/// PyTorch checkpoints, whole and sharded.
const LOADED_BY_NAME: [&str; 2] = ["pytorch_model.bin", "pytorch_model-00001-of-00002.bin"];

/// The hook checks every file that a folder scan claims by its name: each extension of each
/// format in the registry (so a format added there and not to the hook fails here), the data
/// files and well-known names the formats' scans claim, and transformers' `pytorch_model.bin`;
/// and none that a format claims only by its content or that no format claims, so that a
/// commit of a `package.json` does not run it.
#[test]
fn the_pre_commit_hook_takes_every_file_a_scan_claims_by_name() {
    let hook = hook_files();
    let mut names: Vec<String> = Vec::new();
    for format in FORMATS {
        for ext in format.about().extensions {
            names.push(format!("models/m.{ext}"));
            names.push(format!("M.{}", ext.to_uppercase()));
        }
    }
    let others = [
        "w.ptd",
        "paddle/__model__",
        "paddle/__params__",
        "paddle/params",
        "paddle/model.pdiparams.info",
        "hf/model.safetensors.index.json",
        "hf/model-00001-of-00002.safetensors",
        "gguf/model-00002-of-00003.gguf",
        "hf/pytorch_model.bin",
        "hf/pytorch_model-00001-of-00002.bin",
        "hf/config.json",
        "paddle/model",
        "paddle/model.json",
        "weights.bin",
        "package.json",
        "README.md",
        "model.onnx.data",
        "mymodel.pdiparams.infos",
        "myparams",
    ];
    names.extend(others.map(str::to_owned));
    for name in &names {
        let path = Path::new(name);
        let by_name =
            (FORMATS.iter()).any(|f| matches!(f.scan(path), Scan::Model | Scan::Companion));
        let file_name = path.file_name().unwrap().to_str().unwrap();
        let expected = by_name || LOADED_BY_NAME.contains(&file_name);
        assert_eq!(
            hook.is_match(name),
            expected,
            "{name}: the hook should {}take it",
            if expected { "" } else { "not " }
        );
    }
}

/// The action's, the hook's and the wheel's descriptions name every format the registry reads,
/// as the README's table does (tests/commands/readme.rs).
#[test]
fn the_action_and_the_hook_name_every_format() {
    for file in ["action.yml", ".pre-commit-hooks.yaml"] {
        let key = "description: >-";
        let text = read(file);
        let indent = |l: &str| l.len() - l.trim_start().len();
        let mut lines = text
            .lines()
            .skip_while(|l| !l.trim_start().starts_with(key));
        let first = lines.next().expect("a description");
        let folded = lines.take_while(|l| indent(l) > indent(first));
        let description = folded.collect::<Vec<_>>().join(" ").to_lowercase();
        for format in FORMATS {
            let name = format.about().name;
            assert!(
                description.contains(name),
                "{file}'s description lacks {name}: {description}"
            );
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=rtenx",
            "-c",
            "user.email=rtenx@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git, to make a repository");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The commands of the first `sh` block after `heading` in docs/usage.md, each split into its
/// arguments without the comment.
fn usage_commands(heading: &str) -> Vec<Vec<String>> {
    let usage = read("docs/usage.md");
    let section = usage.split(heading).nth(1).expect("the heading");
    let block = section.split("```sh\n").nth(1).expect("an sh block");
    (block.lines())
        .take_while(|l| !l.starts_with("```"))
        .map(|l| {
            l.split('#')
                .next()
                .unwrap()
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

/// The inputs of the README's workflow step, `with: { paths: models/, ... }`.
fn readme_inputs() -> Vec<(String, String)> {
    let readme = read("README.md");
    let with = (readme.lines())
        .find_map(|l| l.trim().strip_prefix("with: {"))
        .expect("the README's workflow step");
    let with = with.strip_suffix('}').unwrap();
    (with.split(','))
        .map(|pair| {
            let (key, value) = pair.split_once(':').unwrap();
            (key.trim().to_owned(), value.trim().to_owned())
        })
        .collect()
}

/// Runs the rtenx of this build with `args` (the first, `rtenx`, left out) in `dir`: stdout,
/// stderr and the exit code.
fn run_rtenx(dir: &Path, args: &[String]) -> (String, String, i32) {
    assert_eq!(args[0], "rtenx");
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    common::rtenx_in(dir, &args)
}

/// Issue 39: the README's CI example, run from a fresh git repository as a CI job would: the
/// baseline commands of docs/usage.md and the README's workflow step, with every path relative
/// to the repository (a model's data file included), the baseline round trip (write it: exit 0;
/// check against it: exit 0; a new bad model: exit 1), and the files pre-commit would hand the
/// hook.
#[test]
fn the_readme_ci_example_runs_in_a_fresh_repository() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let models = repo.join("models");
    let fixtures = common::fixtures();
    for (from, to) in [
        ("ci-repo/models/dupe.rten", "dupe.rten"),
        ("pickle/checkpoint.pth", "checkpoint.pth"),
        (
            "onnx/bad/OX021-duplicate-offset/model.onnx",
            "offsets/model.onnx",
        ),
        ("onnx/bad/OX021-duplicate-offset/w.data", "offsets/w.data"),
        (
            "onnx/bad/OX021-duplicate-offset/weights.data",
            "offsets/weights.data",
        ),
    ] {
        let to = models.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixtures.join(from), to).unwrap();
    }
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    let commands = usage_commands("### Baselines");
    let [write, check] = &commands[..] else {
        panic!("two baseline commands: {commands:?}")
    };
    // Accept what is there: nothing printed but what was written, and exit 0.
    let (out, err, code) = run_rtenx(repo, write);
    assert_eq!((out.as_str(), code), ("", 0), "{err}");
    assert_eq!(
        err,
        "rtenx: wrote 3 findings in 3 files to rtenx-baseline.json\n"
    );
    let baseline: Value =
        serde_json::from_slice(&std::fs::read(repo.join("rtenx-baseline.json")).unwrap()).unwrap();
    let paths: Vec<&str> = (baseline["findings"].as_array().unwrap().iter())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "models/dupe.rten",
            "models/offsets/model.onnx",
            "models/offsets/w.data"
        ]
    );
    let (out, err, code) = run_rtenx(repo, check);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("baseline: 3 known findings not counted, 0 fixed"),
        "{out}"
    );
    // The README's step passes, and each annotation names a file of the repository.
    let inputs = readme_inputs();
    let input = |key: &str| {
        let found = inputs.iter().find(|(k, _)| k == key);
        found.map_or("", |(_, v)| v.as_str())
    };
    let step = |format: &str, baseline: &str| run_on(repo, input("paths"), format, baseline, "");
    let out = step(input("format"), input("baseline"));
    assert!(out.contains("exit-code=0\n"), "{out}");
    let (out, _, code) = common::rtenx_in(repo, &["check", "--format", "github", "models/"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("::notice file=models/offsets/w.data,title=RX015"),
        "{out}"
    );
    let shown = repo.display().to_string();
    assert!(!out.contains(&shown), "{out}");
    // A new bad model fails the check, and the step.
    std::fs::copy(
        fixtures.join("rten/bad/RT006-tensor-data-inside-model.rten"),
        models.join("bad.rten"),
    )
    .unwrap();
    git(repo, &["add", "-A"]);
    let (out, err, code) = run_rtenx(repo, check);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error[RT006]"), "{out}");
    let out = step(input("format"), input("baseline"));
    assert!(out.contains("exit-code=1\n"), "{out}");
    let sarif: Value =
        serde_json::from_slice(&std::fs::read(repo.join("rtenx.sarif")).unwrap()).unwrap();
    let uris = common::sarif_uris(&sarif);
    assert_eq!(uris, ["models/bad.rten", "models/bad.rten"]);
    // pre-commit hands the hook the models, not their data files or the baseline.
    let hook = hook_files();
    let files = git(repo, &["ls-files"]);
    let taken: Vec<&str> = files.lines().filter(|f| hook.is_match(f)).collect();
    assert_eq!(
        taken,
        [
            "models/bad.rten",
            "models/checkpoint.pth",
            "models/dupe.rten",
            "models/offsets/model.onnx"
        ]
    );
}
