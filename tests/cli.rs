//! Golden tests of the command line: output text, formats and exit codes.

mod common;

use common::rtenx;

use assert_cmd::Command;

const BAD: &str = "tests/fixtures/rten/bad";

#[test]
fn check_clean_file_exits_zero() {
    let (out, _, code) = rtenx(&["check", "tests/fixtures/rten/mlp.rten"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out, @"checked 1 file: 0 errors, 0 warnings, 0 infos");
}

#[test]
fn check_reports_every_problem_with_place_and_exits_one() {
    let (out, _, code) = rtenx(&[
        "check",
        &format!("{BAD}/RT006-tensor-data-inside-model.rten"),
    ]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn check_directory_finds_every_model_and_summarises() {
    let (out, _, code) = rtenx(&["check", "tests/fixtures/rten"]);
    assert_eq!(code, 1);
    let last = out.lines().last().unwrap();
    insta::assert_snapshot!(last, @"checked 77 files: 0 unsafe, 43 with errors, 15 with warnings, 19 clean (47 errors, 20 warnings, 1 info)");
}

#[test]
fn overrides_change_severity_and_exit_code() {
    let file = format!("{BAD}/RX005-trailing-bytes.rten");
    assert_eq!(rtenx(&["check", &file]).2, 0, "a warning alone passes");
    assert_eq!(rtenx(&["check", "--deny", "warning", &file]).2, 1);
    assert_eq!(rtenx(&["check", "--deny", "RX005", &file]).2, 1);
    let (out, _, code) = rtenx(&["check", "--deny", "warning", "--allow", "RX005", &file]);
    assert_eq!(code, 0);
    assert!(out.ends_with("0 errors, 0 warnings, 0 infos\n"), "{out}");
    let (_, err, code) = rtenx(&["check", "--deny", "RX999", &file]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule code or level `RX999`"), "{err}");
}

#[test]
fn unreadable_paths_exit_two() {
    let (out, _, code) = rtenx(&["check", "tests/fixtures/rten/mlp.rten", "no/such/file.rten"]);
    assert_eq!(code, 2);
    assert!(out.contains("cannot read no/such/file.rten"), "{out}");
}

/// A `--data` file that cannot be read is a file rtenx could not check (exit code 2), for
/// every command, before any model is read; it was an error finding (exit code 1) before.
#[test]
fn unreadable_data_files_exit_two() {
    let model = "tests/fixtures/executorch/external/linear.pte";
    for data in ["no/such/weights.ptd", "tests/fixtures"] {
        for command in ["check", "dump", "inspect"] {
            let (out, err, code) = rtenx(&[command, "--data", data, model]);
            assert_eq!(code, 2, "{command} --data {data}: {out}{err}");
            assert!(err.contains(&format!("cannot read --data {data}")), "{err}");
            assert!(out.is_empty(), "{out}");
        }
    }
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.rten");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (out, _, code) = rtenx(&["check", fifo.to_str().unwrap(), "/dev/null"]);
    assert_eq!(code, 2);
    assert!(out.contains("pipe.rten: not a regular file"), "{out}");
    assert!(out.contains("/dev/null: not a regular file"), "{out}");
}

#[test]
fn json_report() {
    let (out, _, code) = rtenx(&[
        "check",
        "--format",
        "json",
        &format!("{BAD}/RT017-forward-input.rten"),
    ]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn sarif_report_is_valid_sarif_2_1_0() {
    let (out, _, _) = rtenx(&[
        "check",
        "--format",
        "sarif",
        &format!("{BAD}/RX007-inline-shape-mismatch.rten"),
    ]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    // The rules its results use, each once.
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 1, "{rules:?}");
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "RX007");
    assert_eq!(rules[0]["id"], "RX007");
    assert_eq!(result["ruleIndex"], 0);
    assert_eq!(result["level"], "error");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["byteOffset"],
        1724
    );
}

#[test]
fn github_annotations() {
    let (out, _, _) = rtenx(&[
        "check",
        "--format",
        "github",
        &format!("{BAD}/RT019-graph-output-99.rten"),
    ]);
    insta::assert_snapshot!(out);
}

#[test]
fn explain_lists_and_explains_rules() {
    let (list, _, code) = rtenx(&["explain"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("explain_list", list);
    let (one, _, _) = rtenx(&["explain", "rt006"]);
    insta::assert_snapshot!("explain_rt006", one);
    let (_, err, code) = rtenx(&["explain", "RT999"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule `RT999`"));
}

#[test]
fn inspect_prints_the_summary_when_not_a_terminal() {
    let (out, _, code) = rtenx(&["inspect", "tests/fixtures/rten/subgraphs.rten"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

/// On a pipe, `inspect A --diff B` prints the summary with what `rtenx diff B A` finds first,
/// as the Overview shows it; a model B that cannot be read exits 2.
#[test]
fn inspect_diff_prints_the_diff_summary_first_when_not_a_terminal() {
    let (out, _, code) = rtenx(&[
        "inspect",
        "tests/fixtures/diff/mlp_a.onnx",
        "--diff",
        "tests/fixtures/diff/mlp_b.onnx",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
    let (_, err, code) = rtenx(&[
        "inspect",
        "tests/fixtures/diff/mlp_a.onnx",
        "--diff",
        "no/such.onnx",
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn dump_json_is_complete() {
    let (out, _, code) = rtenx(&["dump", "--json", "tests/fixtures/rten/convnet.rten"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["format"], "rten");
    assert_eq!(doc["format_version"], "V2");
    let conv = doc["graphs"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["op_type"] == "Conv")
        .expect("a Conv node");
    insta::assert_json_snapshot!("dump_convnet_conv_node", conv);
    let weight = doc["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["storage"] == "external")
        .unwrap();
    insta::assert_json_snapshot!("dump_convnet_first_external_tensor", weight);
    insta::assert_json_snapshot!("dump_convnet_sections", doc["sections"]);
}

#[test]
fn control_characters_from_files_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = common::mlp_with_escape_in_a_name();
    let path = dir.path().join("esc.rten");
    std::fs::write(&path, bytes).unwrap();
    let (out, _, _) = rtenx(&["inspect", path.to_str().unwrap()]);
    assert!(!out.contains('\x1b'), "raw ESC in output");
    assert!(out.contains("\\u{1b}"), "{out}");
}

/// Snapshots with the repository's absolute path replaced, for output that shows resolved
/// data-file paths.
macro_rules! assert_snapshot_redacted {
    ($name:literal, $value:expr) => {
        insta::with_settings!({ filters => vec![(env!("CARGO_MANIFEST_DIR"), "[REPO]")] }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

#[test]
fn inspect_onnx_with_external_data() {
    let (out, _, code) = rtenx(&[
        "inspect",
        "tests/fixtures/onnx/external_one_file/model.onnx",
    ]);
    assert_eq!(code, 0);
    assert_snapshot_redacted!("inspect_onnx_external", out);
}

#[test]
fn check_onnx_traversal_and_checksums() {
    let (out, _, code) = rtenx(&[
        "check",
        "--all",
        "tests/fixtures/onnx/bad/DX001-every-site/model.onnx",
    ]);
    assert_eq!(code, 1);
    assert_snapshot_redacted!("check_onnx_every_site", out);
    // Without --all, the first three of the rule are shown and the rest counted.
    let (folded, _, _) = rtenx(&[
        "check",
        "tests/fixtures/onnx/bad/DX001-every-site/model.onnx",
    ]);
    assert_eq!(
        folded.matches("error[DX001]: location").count(),
        3,
        "{folded}"
    );
    assert!(folded.contains("more like this in tests/fixtures/onnx/bad/DX001-every-site/model.onnx (--all shows them)"), "{folded}");
    let (github, _, _) = rtenx(&[
        "check",
        "--format",
        "github",
        "tests/fixtures/onnx/bad/DX001-every-site/model.onnx",
    ]);
    let dx001: Vec<&str> = github
        .lines()
        .filter(|l| l.contains("title=DX001"))
        .collect();
    assert_eq!(
        dx001.len(),
        4,
        "three annotations and one that counts the rest: {github}"
    );
    assert!(
        dx001[3].contains("more like this in this file"),
        "{}",
        dx001[3]
    );
    let wrong = "tests/fixtures/onnx/bad/DX009-checksum-wrong/model.onnx";
    assert_eq!(
        rtenx(&["check", wrong]).2,
        0,
        "checksums are verified only on request"
    );
    let (out, _, code) = rtenx(&["check", "--verify-checksums", wrong]);
    assert_eq!(code, 1);
    assert!(out.contains("error[DX009]"), "{out}");
}

#[test]
fn many_files_are_reported_in_order_as_if_checked_one_by_one() {
    let json = |paths: &[&str]| -> serde_json::Value {
        let args: Vec<&str> = ["check", "--format", "json"]
            .iter()
            .chain(paths)
            .copied()
            .collect();
        serde_json::from_str(&rtenx(&args).0).unwrap()
    };
    // Files are checked on several threads; the report must not show it.
    let named = [
        BAD,
        "no/such/file.rten",
        "tests/fixtures/onnx/mlp/model.onnx",
    ];
    let together = json(&named);
    // The folder's models, sub-folders included, in path order.
    let mut found = Vec::new();
    let mut folders = vec![std::path::PathBuf::from(BAD)];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            match path.extension().and_then(|e| e.to_str()) {
                _ if path.is_dir() => folders.push(path),
                Some("rten" | "onnx") => found.push(path),
                _ => {}
            }
        }
    }
    found.sort();
    let mut expected: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
    expected.extend(named[1..].iter().map(|p| p.to_string()));
    let files = together["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, expected);
    for (file, path) in files.iter().zip(&expected) {
        assert_eq!(file, &json(&[path])["files"][0], "{path}");
    }
}

/// The text report's colours follow `--color`, then `NO_COLOR`, `CLICOLOR_FORCE` and
/// `CLICOLOR`; output to a pipe, as here, is plain unless forced.
#[test]
fn colour_follows_the_flag_and_the_environment() {
    let coloured = |flag: &str, env: &[(&str, &str)]| {
        let mut cmd = Command::cargo_bin("rtenx").unwrap();
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        for var in ["NO_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
            cmd.env_remove(var);
        }
        let out = cmd
            .envs(env.iter().copied())
            .args([
                "check",
                flag,
                &format!("{BAD}/RT006-tensor-data-inside-model.rten"),
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        out.stdout.contains(&0x1b)
    };
    assert!(!coloured("--color=auto", &[]), "a pipe is plain");
    assert!(coloured("--color=auto", &[("CLICOLOR_FORCE", "1")]));
    assert!(!coloured(
        "--color=auto",
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]
    ));
    assert!(coloured("--color=always", &[("NO_COLOR", "1")]));
    assert!(!coloured("--color=never", &[("CLICOLOR_FORCE", "1")]));
}

/// `--show-settings` starts with the signing material in effect: each file with its key's
/// fingerprint or its certificates' subjects, and where it came from.
#[test]
fn show_settings_prints_the_signing_material() {
    let material = "tests/fixtures/signing/material";
    let (out, _, code) = rtenx(&[
        "check",
        "--isolated",
        "--show-settings",
        "--require-signature",
        "--certificate-chain",
        &format!("{material}/cert-good-root.pem"),
        "--certificate-chain",
        &format!("{material}/cert-good-inter.pem"),
        "tests/fixtures/signing/cases/cert-good/model",
    ]);
    assert_eq!(code, 0, "{out}");
    insta::assert_snapshot!("show_settings_certificate_chain", out);
    let (out, _, code) = rtenx(&[
        "check",
        "--isolated",
        "--show-settings",
        "--public-key",
        &format!("{material}/p384.pub.pem"),
        "tests/fixtures/signing/cases/key-p384/model",
    ]);
    assert_eq!(code, 0, "{out}");
    insta::assert_snapshot!("show_settings_public_key", out);
}

/// On a pipe, `inspect` of a signed folder prints the signature under the file.
#[test]
fn inspect_prints_the_signature_of_a_signed_folder() {
    let (out, _, code) = rtenx(&[
        "inspect",
        "tests/fixtures/signing/cases/key-p256-safetensors/model",
        "--public-key",
        "tests/fixtures/signing/material/p256.pub.pem",
    ]);
    assert_eq!(code, 0, "{out}");
    let signature = out.split("\n\n").find(|p| p.starts_with("Signature"));
    insta::assert_snapshot!("inspect_signature", signature.unwrap_or_default());
}
