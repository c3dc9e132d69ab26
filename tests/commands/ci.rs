//! `check` in CI: the configuration file (discovery from the working directory, precedence,
//! errors), baselines, budgets and hashes, on the fixture repository tests/fixtures/ci-repo,
//! run in it, and on copies of it. tests/commands/settings.rs holds what a checked folder's own
//! settings cannot do.

use crate::common;

use common::{rtenx, rtenx_in};
use serde_json::Value;
use std::path::{Path, PathBuf};

const REPO: &str = "tests/fixtures/ci-repo";

/// `check --format json` of `args`: the report and the exit code.
fn json(args: &[&str]) -> (Value, i32) {
    json_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// `check --format json` of `args`, run in `dir`: the report and the exit code.
fn json_in(dir: &Path, args: &[&str]) -> (Value, i32) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let (out, err, code) = rtenx_in(dir, &all);
    let report = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (report, code)
}

/// The fixture repository, where its settings apply.
fn repo() -> PathBuf {
    common::fixtures().join("ci-repo")
}

/// Every finding of a report as `path-ending code severity`, paths cut to the part after
/// `ci-repo/` (or the file name).
fn findings(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for file in report["files"].as_array().unwrap() {
        for f in file["findings"].as_array().unwrap() {
            let path = f["path"].as_str().unwrap();
            let short = path.rsplit_once("ci-repo/").map_or(path, |(_, p)| p);
            out.push(format!(
                "{short} {} {}",
                f["code"].as_str().unwrap(),
                f["severity"].as_str().unwrap()
            ));
        }
    }
    out
}

fn checked_paths(report: &Value) -> Vec<String> {
    let files = report["files"].as_array().unwrap();
    files
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

/// A copy of the fixture repository in a temporary folder.
fn copy_repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ci-repo");
    for entry in walkdir::WalkDir::new(common::fixtures().join("ci-repo")) {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(common::fixtures().join("ci-repo"))
            .unwrap();
        let to = root.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    (dir, root)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn the_working_directory_config_and_its_overrides_apply() {
    let (report, code) = json_in(&repo(), &["models", "legacy", "sub"]);
    assert_eq!(
        findings(&report),
        [
            // rtenx.toml: deny = ["warning"] makes RX013 an error; warn = ["RX005"] keeps it.
            "models/dupe.rten RX013 error",
            "models/trailing.rten RX005 warning",
            // The second [[overrides]] warns on RX014 for this file only.
            "models/unused.rten RX014 warning",
            // sub/pyproject.toml's [tool.rtenx] is inside a checked folder: not applied, and
            // said so.
            "sub/unused.rten RX014 error",
            "sub/unused.rten RX021 info",
        ]
    );
    // legacy/old.rten is checked, and its RT006 and RX002 errors are allowed by the first
    // override.
    let paths = checked_paths(&report);
    assert!(
        paths.iter().any(|p| p.ends_with("legacy/old.rten")),
        "{paths:?}"
    );
    assert_eq!(paths.len(), 6);
    assert_eq!(code, 1);
    // A scan of the working directory itself applies none of the settings in it: third_party/
    // is checked, legacy/'s errors count, and one info names the settings passed over.
    let (report, code) = json_in(&repo(), &["."]);
    let all = findings(&report);
    assert!(
        all.contains(&"third_party/blob.rten RX001 error".to_owned()),
        "{all:?}"
    );
    assert!(
        all.contains(&"legacy/old.rten RT006 error".to_owned()),
        "{all:?}"
    );
    let notes: Vec<&Value> = (report["files"].as_array().unwrap().iter())
        .flat_map(|f| f["findings"].as_array().unwrap())
        .filter(|f| f["code"] == "RX021")
        .collect();
    assert_eq!(notes.len(), 1, "{all:?}");
    assert_eq!(
        notes[0]["message"],
        "settings file ./rtenx.toml was not applied: it is inside the checked folder . (and 1 \
         more settings file in it), and a downloaded model cannot judge itself (settings come \
         from --config, or from the working directory and its parents)"
    );
    assert_eq!(code, 1);
}

#[test]
fn the_command_line_wins_over_the_config_which_wins_over_defaults() {
    let (dupe, unused) = ("models/dupe.rten", "models/unused.rten");
    // Defaults: RX013 and RX014 are warnings.
    let (report, code) = json_in(&repo(), &["--isolated", dupe, unused]);
    assert_eq!(
        findings(&report),
        [
            "models/dupe.rten RX013 warning",
            "models/unused.rten RX014 warning"
        ]
    );
    assert_eq!(code, 0);
    // The config denies warnings but warns on RX014 for unused.rten.
    let (report, code) = json_in(&repo(), &[dupe, unused]);
    assert_eq!(
        findings(&report),
        [
            "models/dupe.rten RX013 error",
            "models/unused.rten RX014 warning"
        ]
    );
    assert_eq!(code, 1);
    // The command line comes last: it denies RX014 and warns on RX013.
    let (report, code) = json_in(
        &repo(),
        &["--deny", "RX014", "--warn", "RX013", dupe, unused],
    );
    assert_eq!(
        findings(&report),
        [
            "models/dupe.rten RX013 warning",
            "models/unused.rten RX014 error"
        ]
    );
    assert_eq!(code, 1);
    // A named config replaces the working directory's, wherever rtenx runs.
    let (report, _) = json(&[
        "--config",
        &format!("{REPO}/sub/pyproject.toml"),
        &format!("{REPO}/{dupe}"),
    ]);
    assert_eq!(findings(&report), ["models/dupe.rten RX013 warning"]);
    // Elsewhere, the repository's settings do not apply to its files.
    let (report, _) = json(&[&format!("{REPO}/{dupe}")]);
    assert_eq!(findings(&report), ["models/dupe.rten RX013 warning"]);
    // `--isolated` also brings back what the config excluded.
    let (report, _) = json_in(&repo(), &["--isolated", "third_party"]);
    assert!(checked_paths(&report)
        .iter()
        .any(|p| p.contains("third_party")));
    // `max-size` from the config (1MiB) is replaced by the command line's.
    let (report, code) = json_in(&repo(), &["--max-size", "1KB", dupe]);
    assert_eq!(findings(&report), ["models/dupe.rten RX018 error"]);
    assert_eq!(code, 2);
}

/// `--exclude` leaves files out of a folder scan as the configuration's `exclude` does, by
/// their path in the folder scanned, besides what the configuration excludes.
#[test]
fn exclude_on_the_command_line_leaves_files_out_of_a_scan() {
    let short = |report: &Value| -> Vec<String> {
        let paths = checked_paths(report);
        let cut = paths
            .iter()
            .map(|p| p.rsplit_once("ci-repo/").map_or(p.as_str(), |(_, p)| p));
        cut.map(str::to_owned).collect()
    };
    let (all, _) = json(&["--isolated", REPO]);
    assert_eq!(short(&all).len(), 7, "{:?}", short(&all));
    // A pattern with a `/` is a path in the folder; one without, a file name anywhere.
    let (report, _) = json(&[
        "--isolated",
        "--exclude",
        "third_party/**",
        "--exclude",
        "unused.rten",
        REPO,
    ]);
    assert_eq!(
        short(&report),
        [
            "legacy/old.rten",
            "models/dupe.rten",
            "models/mlp.rten",
            "models/trailing.rten"
        ]
    );
    // Besides the configuration's own `exclude` (third_party/**).
    let config = format!("{REPO}/rtenx.toml");
    let (report, _) = json(&["--config", &config, "--exclude", "models/*", REPO]);
    assert_eq!(short(&report), ["legacy/old.rten", "sub/unused.rten"]);
    // A file named on the command line is checked, as with the configuration.
    let dupe = format!("{REPO}/models/dupe.rten");
    let (report, _) = json(&["--exclude", "**", &dupe]);
    assert_eq!(short(&report), ["models/dupe.rten"]);
    // A pattern that is not a glob is a usage error.
    let (_, err, code) = rtenx(&["check", "--exclude", "a[", REPO]);
    assert_eq!(code, 2);
    assert!(err.contains("--exclude"), "{err}");
}

#[test]
fn the_format_and_baseline_come_from_the_config_of_the_working_directory() {
    let (dir, root) = copy_repo();
    let config = root.join("rtenx.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("format = \"github\"\n{text}")).unwrap();
    let run = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("rtenx")
            .unwrap()
            .current_dir(&root)
            .args(args)
            .output()
            .unwrap();
        (String::from_utf8(out.stdout).unwrap(), out.status.code())
    };
    let (stdout, code) = run(&["check", "models/dupe.rten"]);
    assert!(
        stdout.starts_with("::error file=models/dupe.rten"),
        "{stdout}"
    );
    assert_eq!(code, Some(1));
    std::fs::write(
        &config,
        format!("format = \"github\"\nbaseline = \"baseline.json\"\n{text}"),
    )
    .unwrap();
    let (stdout, code) = run(&["check", "models"]);
    assert!(
        stdout.contains("rtenx: baseline: 3 known findings not counted, 0 fixed"),
        "{stdout}"
    );
    assert_eq!(code, Some(0));
    // The command line's format wins.
    let (stdout, _) = run(&["check", "--format", "text", "models"]);
    assert!(stdout.starts_with("baseline: 3 known"), "{stdout}");
    drop(dir);
}

#[test]
fn show_settings_prints_what_applies_to_each_file() {
    let (out, _, code) = rtenx_in(
        &repo(),
        &["check", "--show-settings", "legacy/old.rten", "sub"],
    );
    assert_eq!(code, 0);
    let legacy = out.split("sub/unused.rten").next().unwrap();
    assert!(legacy.contains("ci-repo/rtenx.toml\n"), "{out}");
    assert!(legacy.contains("  allow RT006  ("), "{out}");
    assert!(legacy.contains("[[overrides]] #1)"), "{out}");
    assert!(
        legacy.contains("  max-size: 1048576 bytes\n  timeout: 60000 ms"),
        "{out}"
    );
    assert!(!legacy.contains("ignored"), "{out}");
    // sub/ has its own settings, which are shown as not applied: the repository's are.
    let sub = out.split("sub/unused.rten").nth(1).unwrap();
    assert!(
        sub.contains(
            "ci-repo/rtenx.toml\n  ignored: sub/pyproject.toml (inside what is checked: never \
             applied, see RX021)\n  deny warning  ("
        ),
        "{out}"
    );
    assert!(sub.contains("max-size: 1048576 bytes"), "{out}");
    // Run elsewhere, no settings apply to the repository's files.
    let (out, _, _) = rtenx(&["check", "--show-settings", &format!("{REPO}/sub")]);
    assert!(
        out.contains("  config: none\n  ignored: tests/fixtures/ci-repo/sub/pyproject.toml"),
        "{out}"
    );
}

/// A config in a fresh folder with one model, and what `check` run there says of it.
fn with_config(name: &str, text: &str) -> (String, i32) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join(name), text).unwrap();
    std::fs::copy(
        common::fixtures().join("rten/mlp.rten"),
        root.join("m.rten"),
    )
    .unwrap();
    let (_, err, code) = rtenx_in(&root, &["check", "m.rten"]);
    (err.replace(&root.display().to_string(), "DIR"), code)
}

#[test]
fn a_bad_config_is_exit_2_naming_file_line_and_column() {
    let cases = [
        (
            "rtenx.toml",
            "deny = [\"warning\"]\nallow = [\"RX5\"]\n",
            "DIR/rtenx.toml:2:10: unknown rule code or level `RX5`",
        ),
        (
            "rtenx.toml",
            "max-size = 20\n",
            "DIR/rtenx.toml:1:12: invalid type: integer `20`, expected a string",
        ),
        (
            "rtenx.toml",
            "[[overrides]]\nallow = [\"RX005\"]\n",
            "DIR/rtenx.toml:1:1: an [[overrides]] table needs `paths`",
        ),
        (
            "rtenx.toml",
            "timeout = \"soon\"",
            "DIR/rtenx.toml:1:11: `soon` is not a duration",
        ),
        (
            "rtenx.toml",
            "paths = [\"a\"]",
            "DIR/rtenx.toml:1:9: `paths` belongs in an [[overrides]] table",
        ),
        (
            "rtenx.toml",
            "formt = \"json\"",
            "DIR/rtenx.toml:1:1: unknown field `formt`",
        ),
        (
            "rtenx.toml",
            "data = [\"missing.ptd\"]",
            "DIR/rtenx.toml:1:9: data file `missing.ptd` does not exist",
        ),
        (
            "pyproject.toml",
            "[tool.rtenx]\nformat = \"xml\"\n",
            "DIR/pyproject.toml:2:10: unknown format `xml`",
        ),
        ("rtenx.toml", "deny = [\"warning\"\n", "DIR/rtenx.toml:1:"),
    ];
    for (name, text, expected) in cases {
        let (err, code) = with_config(name, text);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(
            err.starts_with(&format!("rtenx: {expected}")),
            "{text}:\n{err}\nexpected {expected}"
        );
    }
    // A hostile nesting depth is refused, not followed down the stack.
    let deep = format!("deny = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let (err, code) = with_config("rtenx.toml", &deep);
    assert_eq!(code, 2);
    assert!(err.starts_with("rtenx: DIR/rtenx.toml:1:"), "{err}");
    // `--isolated` ignores it, and so does a run elsewhere.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rtenx.toml"), "nonsense").unwrap();
    std::fs::copy(
        common::fixtures().join("rten/mlp.rten"),
        dir.path().join("m.rten"),
    )
    .unwrap();
    let (_, _, code) = rtenx_in(dir.path(), &["check", "--isolated", "m.rten"]);
    assert_eq!(code, 0);
    let (_, _, code) = rtenx(&["check", s(&dir.path().join("m.rten"))]);
    assert_eq!(code, 0);
    let (_, err, code) = rtenx(&[
        "check",
        "--config",
        s(&dir.path().join("none.toml")),
        "tests/fixtures/rten/mlp.rten",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("none.toml: cannot read"), "{err}");
}

#[test]
fn a_baseline_fails_only_on_new_findings_and_reports_fixed_ones() {
    let (dir, root) = copy_repo();
    let baseline = root.join("baseline.json");
    let paths = ["models", "legacy", "sub"];
    let checked = |extra: &[&str]| json_in(&root, &[extra, &paths[..]].concat());
    // The committed baseline accepts every finding of the repository as it is.
    let (report, code) = checked(&["--baseline", "baseline.json"]);
    assert_eq!(findings(&report), Vec::<String>::new());
    assert_eq!(report["baseline"]["matched"], 5);
    assert_eq!(code, 0);
    // A new finding in another file fails; the one fixed is reported as such.
    std::fs::copy(root.join("models/dupe.rten"), root.join("models/mlp.rten")).unwrap();
    std::fs::copy(
        common::fixtures().join("rten/mlp.rten"),
        root.join("models/dupe.rten"),
    )
    .unwrap();
    let (report, code) = checked(&["--baseline", "baseline.json"]);
    assert_eq!(findings(&report), ["models/mlp.rten RX013 error"]);
    let fixed = report["baseline"]["fixed"].as_array().unwrap();
    assert_eq!(fixed.len(), 1);
    assert_eq!(
        (&fixed[0]["code"], &fixed[0]["path"]),
        (&"RX013".into(), &"models/dupe.rten".into())
    );
    assert_eq!(code, 1);
    let (out, _, _) = rtenx_in(
        &root,
        &[&["check", "--baseline", "baseline.json"], &paths[..]].concat(),
    );
    assert!(out.contains("fixed[RX013]: value name \"W1\" is also used by node 0\n  --> models/dupe.rten, node 2 \"W1\""), "{out}");
    assert!(
        out.contains("baseline: 4 known findings not counted, 1 fixed"),
        "{out}"
    );
    // Writing a baseline from elsewhere gives the same paths, relative to the baseline.
    let again = dir.path().join("again.json");
    rtenx(&["check", "--write-baseline", s(&again), s(&root)]);
    let written: Value = serde_json::from_slice(&std::fs::read(&again).unwrap()).unwrap();
    assert!(written["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["path"] == "ci-repo/models/mlp.rten"));
    // A baseline that is not one is exit 2 with its line and column.
    std::fs::write(&baseline, "{\"version\": 2,\n \"findings\": 3}").unwrap();
    let (_, err, code) = rtenx(&["check", "--baseline", s(&baseline), s(&root)]);
    assert_eq!(code, 2);
    assert!(err.contains("baseline.json:2:"), "{err}");
}

/// A pickle fixture copied to `to`.
fn pickle(fixture: &str, to: &Path) {
    std::fs::copy(common::fixtures().join("pickle/bad").join(fixture), to).unwrap();
}

/// `check --isolated --baseline BASELINE MODEL` as JSON: the findings' messages, the
/// messages of the entries fixed since, and the exit code.
fn against(baseline: &Path, model: &Path) -> (Vec<String>, Vec<String>, i32) {
    let (report, code) = json(&["--isolated", "--baseline", s(baseline), s(model)]);
    let messages = |list: &Value| -> Vec<String> {
        let list = list.as_array().unwrap().iter();
        list.map(|f| f["message"].as_str().unwrap().to_owned())
            .collect()
    };
    let found = messages(&report["files"][0]["findings"]);
    (found, messages(&report["baseline"]["fixed"]), code)
}

/// `check --write-baseline BASELINE MODEL`, which reports no finding, says what it wrote and
/// succeeds: the baseline written.
fn write_baseline(baseline: &Path, model: &Path) -> Value {
    let (out, err, code) = rtenx(&[
        "check",
        "--isolated",
        "--write-baseline",
        s(baseline),
        s(model),
    ]);
    assert_eq!((out.as_str(), code), ("", 0), "{err}");
    let written: Value = serde_json::from_slice(&std::fs::read(baseline).unwrap()).unwrap();
    let count = written["findings"].as_array().unwrap().len();
    let s = if count == 1 { "" } else { "s" };
    assert_eq!(
        err,
        format!(
            "rtenx: wrote {count} finding{s} in 1 file to {}\n",
            baseline.display()
        )
    );
    written
}

/// Issue 37: a pickle finding has no item, and its fingerprint was the code, the path and a
/// rank, so a baseline that accepted one unsafe import in a file accepted any other there.
#[test]
fn a_baseline_entry_accepts_exactly_one_finding() {
    let dir = tempfile::tempdir().unwrap();
    let (model, baseline) = (dir.path().join("m.pkl"), dir.path().join("baseline.json"));
    // Accepted: builtins.print. Then the file imports os.system instead.
    pickle("PK001-builtins-print.pkl", &model);
    let written = write_baseline(&baseline, &model);
    assert_eq!(written["version"], 2);
    pickle("PK001-global-os-system.pkl", &model);
    let (found, fixed, code) = against(&baseline, &model);
    assert!(
        found.len() == 1 && found[0].starts_with("loading runs a shell command: os.system("),
        "{found:?}"
    );
    assert!(
        fixed.len() == 1 && fixed[0].starts_with("loading calls builtins.print("),
        "{fixed:?}"
    );
    assert_eq!(code, 1);
    // Two unsafe imports in one file, of which the baseline accepts one.
    pickle("PK001-getattr-chain.pkl", &model);
    let mut written = write_baseline(&baseline, &model);
    let entries = written["findings"].as_array_mut().unwrap();
    assert_eq!(entries.len(), 2);
    entries.retain(|e| {
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("loading imports a module: builtins.__import__(")
    });
    std::fs::write(&baseline, written.to_string()).unwrap();
    let (found, fixed, code) = against(&baseline, &model);
    assert!(
        found.len() == 1 && found[0].starts_with("loading gets an attribute by name"),
        "{found:?}"
    );
    assert!(fixed.is_empty(), "{fixed:?}");
    assert_eq!(code, 1);
}

#[test]
fn a_baseline_entry_matches_only_with_its_code_and_path() {
    let dir = tempfile::tempdir().unwrap();
    let (model, baseline) = (dir.path().join("m.pkl"), dir.path().join("baseline.json"));
    pickle("PK001-global-os-system.pkl", &model);
    let written = write_baseline(&baseline, &model);
    let (found, _, code) = against(&baseline, &model);
    assert!(found.is_empty() && code == 0, "{found:?}");
    // The fingerprint is right, the code or the path is another: the entry holds nothing.
    for (field, value) in [("code", "PK002"), ("path", "other.pkl")] {
        let mut edited = written.clone();
        edited["findings"][0][field] = value.into();
        std::fs::write(&baseline, edited.to_string()).unwrap();
        let (found, _, code) = against(&baseline, &model);
        assert!(
            found.len() == 1 && found[0].starts_with("loading runs a shell command: os.system("),
            "{field}: {found:?}"
        );
        assert_eq!(code, 1);
    }
    // A field the layout does not have is refused, in the file and in an entry.
    let mut unknown = written.clone();
    unknown["findings"][0]["accepted_by"] = "someone".into();
    let mut top = written.clone();
    top["comment"] = "fine".into();
    for edited in [unknown, top] {
        std::fs::write(&baseline, edited.to_string()).unwrap();
        let (_, err, code) = rtenx(&["check", "--isolated", "--baseline", s(&baseline), s(&model)]);
        assert_eq!(code, 2);
        assert!(err.contains("unknown field"), "{err}");
    }
    // A baseline of the first layout is refused, saying how to make one again.
    let mut old = written;
    old["version"] = 1.into();
    std::fs::write(&baseline, old.to_string()).unwrap();
    let (_, err, code) = rtenx(&["check", "--isolated", "--baseline", s(&baseline), s(&model)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("a version 1 baseline") && err.contains("--write-baseline"),
        "{err}"
    );
}

/// An ONNX model with an unused initializer, `unused_w`, after a producer name of `producer`:
/// a longer name moves every later byte.
fn onnx_with_unused(producer: &str) -> Vec<u8> {
    use prost::Message;
    use rtenx::formats::onnx::proto::{
        GraphProto, ModelProto, NodeProto, TensorProto, ValueInfoProto,
    };
    let bytes = |s: &str| Some(s.as_bytes().to_vec().into());
    let tensor = |name: &str| TensorProto {
        name: bytes(name),
        dims: vec![1],
        data_type: Some(1),
        float_data: vec![1.0],
        ..TensorProto::default()
    };
    let value = |name: &str| ValueInfoProto {
        name: bytes(name),
        r#type: None,
    };
    let node = NodeProto {
        input: vec![b"x".to_vec().into(), b"k".to_vec().into()],
        output: vec![b"y".to_vec().into()],
        name: bytes("mul"),
        op_type: bytes("Mul"),
        ..NodeProto::default()
    };
    let graph = GraphProto {
        name: bytes("g"),
        node: vec![node.encode_to_vec().into()],
        initializer: vec![
            tensor("k").encode_to_vec().into(),
            tensor("unused_w").encode_to_vec().into(),
        ],
        input: vec![value("x")],
        output: vec![value("y")],
        ..GraphProto::default()
    };
    ModelProto {
        producer_name: bytes(producer),
        ..ModelProto::with_graph(&graph, 17)
    }
    .encode_to_vec()
}

#[test]
fn fingerprints_do_not_move_when_an_unrelated_byte_offset_does() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.onnx");
    let finding = |producer: &str| {
        std::fs::write(&model, onnx_with_unused(producer)).unwrap();
        let (report, _) = json(&["--isolated", s(&model)]);
        let all = report["files"][0]["findings"].as_array().unwrap().clone();
        let unused = all
            .into_iter()
            .find(|f| f["code"] == "RX014")
            .expect("RX014");
        (
            unused["offset"].as_u64().unwrap(),
            unused["fingerprint"].as_str().unwrap().to_owned(),
        )
    };
    let (before, print) = finding("a");
    let (after, again) = finding("a producer name 40 bytes longer than before");
    assert!(after > before, "{before} {after}");
    assert_eq!(print, again);
    // The baseline written before the edit still holds the finding after it.
    std::fs::write(&model, onnx_with_unused("a")).unwrap();
    let baseline = dir.path().join("baseline.json");
    rtenx(&[
        "check",
        "--isolated",
        "--write-baseline",
        s(&baseline),
        s(&model),
    ]);
    std::fs::write(
        &model,
        onnx_with_unused("a producer name 40 bytes longer than before"),
    )
    .unwrap();
    let (report, code) = json(&["--isolated", "--baseline", s(&baseline), s(&model)]);
    assert_eq!(report["baseline"]["matched"].as_u64(), Some(1), "{report}");
    assert!(report["baseline"]["fixed"].as_array().unwrap().is_empty());
    assert_eq!(code, 0);
    // SARIF carries the same fingerprint, relative to the working directory.
    let (sarif, _, _) = rtenx(&["check", "--isolated", "--format", "sarif", s(&model)]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert!(result["partialFingerprints"]["rtenx/v2"]
        .as_str()
        .unwrap()
        .ends_with(":1"));
}

#[test]
fn a_file_past_max_size_is_reported_and_others_checked() {
    let big = "tests/fixtures/rten/mlp.rten";
    let small = "tests/fixtures/gguf/bad/GG004-truncated-in-kv.gguf";
    let (report, code) = json(&["--isolated", "--max-size", "1000", big, small]);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files[0]["findings"][0]["code"], "RX018");
    assert_eq!(
        files[0]["findings"][0]["message"],
        "the file is 5440 bytes, over the max-size budget of 1000 bytes: not read"
    );
    assert_eq!(files[0]["format"], "rten");
    assert!(files[1]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["code"] != "RX018"));
    assert!(!files[1]["findings"].as_array().unwrap().is_empty());
    assert_eq!(code, 2);
}

#[test]
fn a_file_past_its_timeout_is_given_up_and_others_checked() {
    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow");
    std::fs::create_dir(&slow).unwrap();
    // 300,000 operators: far more than a millisecond to read.
    rtenx::synth::onnx::write(&slow, 300_000, 0).unwrap();
    std::fs::copy(
        common::fixtures().join("rten/mlp.rten"),
        dir.path().join("mlp.rten"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("rtenx.toml"),
        "[[overrides]]\npaths = [\"slow/**\"]\ntimeout = \"1ms\"\n",
    )
    .unwrap();
    let (report, code) = json_in(dir.path(), &["slow/model.onnx", "mlp.rten"]);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files[0]["findings"][0]["code"], "RX019", "{report}");
    assert_eq!(
        files[0]["findings"][0]["message"],
        "checking the file took longer than the timeout of 1 ms: given up"
    );
    assert_eq!(files[1]["findings"].as_array().unwrap().len(), 0);
    assert_eq!(files[1]["format"], "rten");
    assert_eq!(code, 2);
}

#[test]
fn hashes_are_in_the_json_and_sarif_reports() {
    use sha2::Digest;
    let model = "tests/fixtures/onnx/external_one_file/model.onnx";
    let data = "tests/fixtures/onnx/external_one_file/weights.data";
    let expected = |p: &str| {
        let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap();
        format!("{:x}", sha2::Sha256::digest(bytes))
    };
    let (report, _) = json(&["--hash", "sha256", model]);
    let hashes = report["files"][0]["hashes"].as_array().unwrap();
    assert_eq!(hashes.len(), 2);
    assert_eq!(hashes[0]["path"], model);
    assert_eq!(hashes[0]["sha256"], expected(model));
    assert!(hashes[1]["path"]
        .as_str()
        .unwrap()
        .ends_with("weights.data"));
    assert_eq!(hashes[1]["sha256"], expected(data));
    let (sarif, _, _) = rtenx(&["check", "--hash", "sha256", "--format", "sarif", model]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let artifacts = sarif["runs"][0]["artifacts"].as_array().unwrap();
    assert_eq!(artifacts[0]["hashes"]["sha-256"], expected(model));
    assert_eq!(artifacts[1]["hashes"]["sha-256"], expected(data));
    // Without --hash, no file is hashed.
    let (report, _) = json(&[model]);
    assert!(report["files"][0].get("hashes").is_none());
}

/// Copies fixtures (paths below tests/fixtures) to `to` below `dir`.
fn copy_in(dir: &Path, files: &[(&str, &str)]) {
    for (from, to) in files {
        let to = dir.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(common::fixtures().join(from), to).unwrap();
    }
}

/// Issue 39: a finding in a data file (external data, a shard, `.pdiparams`) named the data
/// file by its canonical, absolute path, which GitHub cannot map to the repository. Every
/// output now names it relative to the working directory or `--root`, as it does the model,
/// and so do the paths in a message.
#[test]
fn data_files_are_named_relative_to_the_root_in_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    copy_in(
        repo,
        &[
            (
                "onnx/bad/OX021-duplicate-offset/model.onnx",
                "models/a/model.onnx",
            ),
            ("onnx/bad/OX021-duplicate-offset/w.data", "models/a/w.data"),
            (
                "onnx/bad/OX021-duplicate-offset/weights.data",
                "models/a/weights.data",
            ),
            (
                "onnx/bad/DX006-missing-with-others/model.onnx",
                "models/b/model.onnx",
            ),
            (
                "onnx/bad/DX006-missing-with-others/weights.data",
                "models/b/weights.data",
            ),
        ],
    );
    let absolute = std::fs::canonicalize(repo).unwrap().display().to_string();
    let outputs: Vec<(String, String)> = ["text", "json", "sarif", "github"]
        .into_iter()
        .map(|format| {
            let (out, err, code) =
                rtenx_in(repo, &["check", "--isolated", "--format", format, "models"]);
            assert_eq!(code, 1, "{err}");
            assert!(!out.contains(&absolute), "{format}: {out}");
            (format.to_owned(), out)
        })
        .collect();
    let output = |format: &str| &outputs.iter().find(|(f, _)| f == format).unwrap().1;
    assert!(output("text").contains("  --> models/a/w.data @ 0 (0x0), trailing bytes section"));
    assert!(output("text").contains("error[DX006]: data file models/b/w.data does not exist"));
    assert!(output("github").contains("::notice file=models/a/w.data,title=RX015"));
    let report: Value = serde_json::from_str(output("json")).unwrap();
    let paths: Vec<&str> = (report["files"].as_array().unwrap().iter())
        .flat_map(|f| f["findings"].as_array().unwrap())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"models/a/w.data"), "{paths:?}");
    let sarif: Value = serde_json::from_str(output("sarif")).unwrap();
    let uris = common::sarif_uris(&sarif);
    assert!(uris.contains(&"models/a/w.data"), "{uris:?}");
    // `--root` names them from another folder, wherever rtenx runs.
    let (out, _, _) = rtenx_in(
        repo,
        &["check", "--isolated", "--root", "models", "models/a"],
    );
    assert!(out.contains("  --> a/w.data @ 0"), "{out}");
    let (out, _, _) = rtenx(&[
        "check",
        "--isolated",
        "--root",
        s(repo),
        s(&repo.join("models/a")),
    ]);
    assert!(out.contains("  --> models/a/model.onnx @ 103"), "{out}");
    assert!(out.contains("  --> models/a/w.data @ 0"), "{out}");
    // A path outside the root is relative to the working directory, as the model was named.
    let (out, _, _) = rtenx_in(
        repo,
        &["check", "--isolated", "--root", "models/b", "models/a"],
    );
    assert!(out.contains("  --> models/a/w.data @ 0"), "{out}");
    // The baseline names them relative to its folder, messages included.
    let (_, err, code) = rtenx(&[
        "check",
        "--isolated",
        "--write-baseline",
        s(&repo.join("baseline.json")),
        s(&repo.join("models")),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(repo.join("baseline.json")).unwrap();
    assert!(!text.contains(&absolute), "{text}");
    assert!(text.contains("\"path\": \"models/a/w.data\""), "{text}");
    assert!(
        text.contains("data file models/b/w.data does not exist"),
        "{text}"
    );
}

/// Issue 39: SARIF listed all the registry's rules in every report (350 KB for one result).
/// It lists the rules its results use, each once, and each result points at its own.
#[test]
fn sarif_lists_only_the_rules_its_results_use() {
    let (out, _, _) = rtenx(&[
        "check",
        "--isolated",
        "--format",
        "sarif",
        "tests/fixtures/onnx/bad/DX006-missing-with-others",
        "tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten",
    ]);
    assert!(out.len() < 40_000, "{} bytes", out.len());
    let sarif: Value = serde_json::from_str(&out).unwrap();
    let run = &sarif["runs"][0];
    let rules: Vec<&str> = (run["tool"]["driver"]["rules"].as_array().unwrap().iter())
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        ["DX006", "OX020", "OX006", "OX007", "RT006", "RX002"]
    );
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(result["ruleId"], rules[index]);
    }
    // No result, no rule.
    let (out, _, _) = rtenx(&["check", "--format", "sarif", "tests/fixtures/rten/mlp.rten"]);
    let sarif: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"],
        serde_json::json!([])
    );
}

/// Issue 39: a folder check ended with `checked 169 files: 120 errors, ...`, not with how
/// many files are unsafe, broken or clean. Each file now has one verdict, by its worst
/// finding: unsafe when an error says that loading it runs code.
#[test]
fn a_folder_check_ends_with_its_files_by_verdict() {
    let dir = tempfile::tempdir().unwrap();
    copy_in(
        dir.path(),
        &[
            ("rten/mlp.rten", "m/clean.rten"),
            ("ci-repo/models/dupe.rten", "m/warned.rten"),
            (
                "rten/bad/RT006-tensor-data-inside-model.rten",
                "m/broken.rten",
            ),
            ("pickle/bad/PK001-global-os-system.pkl", "m/unsafe.pkl"),
            ("pickle/bad/PK001-npz-object-os-system.npz", "m/unsafe.npz"),
            ("foreign/notes.zip", "m/notes.zip"),
        ],
    );
    let (out, _, code) = rtenx_in(dir.path(), &["check", "--isolated", "m"]);
    assert_eq!(code, 2, "the zip was not checked: {out}");
    let last = out.lines().last().unwrap();
    assert_eq!(
        last,
        "checked 6 files: 2 unsafe, 1 with errors, 1 with warnings, 1 clean, 1 not checked \
         (4 errors, 2 warnings, 1 info)"
    );
    let (report, _) = json_in(dir.path(), &["--isolated", "m"]);
    assert_eq!(
        report["summary"]["verdicts"],
        serde_json::json!({"unsafe": 2, "with_errors": 1, "with_warnings": 1, "clean": 1,
                           "not_checked": 1})
    );
    let (out, _, _) = rtenx_in(
        dir.path(),
        &["check", "--isolated", "--format", "github", "m"],
    );
    assert!(out.ends_with("rtenx: checked 6 files: 2 unsafe, 1 with errors, 1 with warnings, 1 clean, 1 not checked (4 errors, 2 warnings, 1 info)\n"), "{out}");
    // Allowed, the unsafe imports are no errors, and the pickles are no longer unsafe.
    let (out, _, _) = rtenx_in(dir.path(), &["check", "--isolated", "--warn", "PK001", "m"]);
    assert!(out.ends_with("checked 6 files: 0 unsafe, 1 with errors, 3 with warnings, 1 clean, 1 not checked (2 errors, 4 warnings, 1 info)\n"), "{out}");
    // One file keeps the one line it had.
    let (out, _, _) = rtenx_in(dir.path(), &["check", "--isolated", "m/unsafe.pkl"]);
    assert!(
        out.ends_with("checked 1 file: 1 error, 0 warnings, 0 infos\n"),
        "{out}"
    );
}

/// Issue 39: the fix lived only in `rtenx explain`. A finding's first report in a file says
/// what happens on its first line, the place, the detail as a `note:`, then its rule's fix
/// as a `help:` line; a GitHub annotation ends with the fix.
#[test]
fn a_finding_says_how_to_fix_it() {
    let model = "tests/fixtures/pickle/bad/PK001-global-os-system.pkl";
    let (out, _, _) = rtenx(&["check", "--isolated", model]);
    let help = "Do not load the file. A checkpoint should hold only tensors and plain \
                containers: save `model.state_dict()` rather than the model, or use safetensors.";
    let expected = format!(
        "error[PK001]: loading runs a shell command: os.system('true')\n  \
         --> {model} @ 2 (0x2), import os.system\n   \
         = note: os.system imported by GLOBAL at byte 2, called by REDUCE at byte 23; it is \
         outside the safe set of data-rebuilding globals (torch.load(weights_only=True)'s, \
         NumPy's, builtin containers)\n   = help: {help}\n"
    );
    assert!(out.starts_with(&expected), "{out}");
    let (out, _, _) = rtenx(&["check", "--isolated", "--format", "github", model]);
    assert!(out.contains(&format!("%0Ahelp: {help}\n")), "{out}");
}
