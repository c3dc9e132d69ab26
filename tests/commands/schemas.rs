//! The JSON Schemas in schemas/ describe what rtenx writes: the dump of every readable fixture
//! and the check report of every fixture, of every format, validate against them.

use crate::common;

use rtenx::report::{self, FileResult, ReportFormat};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn schema(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert!(jsonschema::meta::is_valid(&schema), "{name} is no schema");
    jsonschema::draft202012::new(&schema).unwrap()
}

/// Panics with every violation if `doc` does not validate.
fn assert_valid(validator: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}:\n{}", errors.join("\n"));
}

/// Every model file of every fixture folder, as `check` finds them, plus every file of the
/// formats rtenx only names; and in `tmp`, a file that does not exist and (on Unix) a model whose
/// path is not UTF-8.
fn fixture_files(tmp: &Path) -> Vec<PathBuf> {
    let fixtures = common::fixtures();
    let found = rtenx::formats::scan::models_in(&fixtures);
    assert!(found.errors.is_empty(), "{:?}", found.errors.len());
    let mut files: Vec<PathBuf> = found.files.into_iter().map(|f| f.path).collect();
    for entry in walkdir::WalkDir::new(fixtures.join("foreign")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() && entry.path().extension().is_none_or(|e| e != "tsv") {
            files.push(entry.into_path());
        }
    }
    // A file that cannot be opened, for the report's error entry.
    files.push(tmp.join("missing.onnx"));
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let odd = tmp.join(std::ffi::OsStr::from_bytes(b"odd-\xff.rten"));
        std::fs::copy(fixtures.join("rten/mlp.rten"), &odd).unwrap();
        files.push(odd);
    }
    files.sort();
    files.dedup();
    files
}

#[test]
fn every_fixture_validates_against_the_schemas() {
    let (dump_schema, check_schema) = (schema("dump.schema.json"), schema("check.schema.json"));
    let tmp = tempfile::tempdir().unwrap();
    let files = fixture_files(tmp.path());
    let mut formats = BTreeSet::new();
    let (mut with_sizes, mut byte_names) = (0, 0);
    let mut results = Vec::new();
    for path in files {
        let outcome = rtenx::analyze(&path);
        if let Ok(analysis) = &outcome {
            let mut out = Vec::new();
            rtenx::json_dump::write(&mut out, analysis).unwrap();
            let doc: Value = serde_json::from_slice(&out).unwrap();
            assert_valid(&dump_schema, &doc, &format!("dump of {}", path.display()));
            formats.insert(doc["format"].as_str().unwrap().to_owned());
            with_sizes += usize::from(doc.get("sizes").is_some());
            byte_names += usize::from(String::from_utf8(out).unwrap().contains("bytes_base64"));
        }
        results.push(FileResult::new(path, outcome).0);
    }
    for format in ["rten", "onnx", "executorch", "safetensors", "unknown"] {
        assert!(formats.contains(format), "no {format} dump in {formats:?}");
    }
    assert!(with_sizes > 0);
    assert!(byte_names > 0 || cfg!(not(unix)));

    let mut out = Vec::new();
    report::write(ReportFormat::Json, &mut out, &mut results).unwrap();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_valid(&check_schema, &report, "check report of every fixture");
    let summary = &report["summary"];
    for count in ["unreadable", "errors", "warnings", "infos"] {
        assert!(
            summary[count].as_u64().unwrap() > 0,
            "no {count}: {summary}"
        );
    }
    // Every file has one verdict, and the fixtures hold each kind.
    let verdicts = summary["verdicts"].as_object().unwrap();
    let total: u64 = verdicts.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(Some(total), summary["files"].as_u64(), "{summary}");
    assert!(verdicts.values().all(|n| n.as_u64() > Some(0)), "{summary}");
}

#[test]
fn the_command_line_writes_what_the_schemas_describe() {
    let rtenx = |args: &[&str]| -> Value {
        let out = assert_cmd::Command::cargo_bin("rtenx")
            .unwrap()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let dump = rtenx(&["dump", "--json", "tests/fixtures/executorch/xnnpack.pte"]);
    assert_valid(&schema("dump.schema.json"), &dump, "rtenx dump");
    // With the figures of every tensor's values: elements, blocks, and a view not read.
    for file in [
        "values/bad/VX002-quant_scales.gguf",
        "values/bad/VX001-nan.pt",
        "gguf/all_types.gguf",
    ] {
        let path = format!("tests/fixtures/{file}");
        let dump = rtenx(&["dump", "--values", &path]);
        assert_valid(
            &schema("dump.schema.json"),
            &dump,
            &format!("rtenx dump --values {file}"),
        );
        let values =
            (dump["tensors"].as_array().unwrap().iter()).filter(|t| t.get("values").is_some());
        assert!(values.count() > 0, "{file}: no figures");
    }
    let check = rtenx(&["check", "--format", "json", "tests/fixtures/executorch"]);
    assert_valid(&schema("check.schema.json"), &check, "rtenx check");
}

#[test]
fn the_schemas_reject_another_version_and_unknown_shapes() {
    let analysis = rtenx::analyze(&common::fixtures().join("rten/mlp.rten")).unwrap();
    let mut out = Vec::new();
    rtenx::json_dump::write(&mut out, &analysis).unwrap();
    let good: Value = serde_json::from_slice(&out).unwrap();
    let dump_schema = schema("dump.schema.json");
    assert!(dump_schema.is_valid(&good));
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut doc = good.clone();
        edit(&mut doc);
        doc
    };
    for doc in [
        broken(&|d| d["schema_version"] = 2.into()),
        broken(&|d| d["sections"][0]["kind"] = "mystery".into()),
        broken(&|d| d["tensors"][0]["name"] = serde_json::json!({"bytes": "x"})),
        broken(&|d| d["graphs"][0]["nodes"][0]["kind"] = "widget".into()),
        broken(&|d| {
            d.as_object_mut().unwrap().remove("totals");
        }),
    ] {
        assert!(!dump_schema.is_valid(&doc));
    }

    let check_schema = schema("check.schema.json");
    let report = serde_json::json!({
        "version": 1,
        "files": [{"path": "m.rten", "format": null, "format_version": null,
                   "error": "cannot open", "findings": []}],
        "summary": {"files": 1, "unreadable": 1, "unchecked": 0, "errors": 0, "warnings": 0,
                    "infos": 0, "verdicts": {"unsafe": 0, "with_errors": 0, "with_warnings": 0,
                    "clean": 0, "not_checked": 1}},
    });
    assert!(check_schema.is_valid(&report));
    let mut other_version = report.clone();
    other_version["version"] = 2.into();
    assert!(!check_schema.is_valid(&other_version));
    // A file is either read, with a format, or unreadable, with an error: not both.
    let mut both = report;
    both["files"][0]["format"] = "rten".into();
    assert!(!check_schema.is_valid(&both));
}

#[test]
fn both_schemas_describe_finding_items_alike() {
    let read = |name: &str| -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schemas")
            .join(name);
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let item = |doc: Value| doc["$defs"]["item_or_null"].clone();
    assert_eq!(
        item(read("dump.schema.json")),
        item(read("check.schema.json"))
    );
}

#[test]
fn every_diff_validates_against_its_schema() {
    let validator = schema("diff.schema.json");
    let fixtures = common::fixtures();
    let pairs = [
        ("diff/convnet.onnx", "diff/convnet.rten"),
        ("diff/mlp_a.onnx", "diff/mlp_b.onnx"),
        ("diff/mlp_a.onnx", "diff/mlp_dynamic.onnx"),
        ("diff/mlp_a.onnx", "diff/mlp_a.quant.onnx"),
        ("diff/encoder.onnx", "diff/encoder.quant.onnx"),
        ("diff/encoder.static.onnx", "diff/encoder.dynamo.onnx"),
        ("diff/ckpt.pt", "diff/ckpt_tuned.safetensors"),
        ("rten/convnet.rten", "rten/bad/RT015-conv-no-attrs.rten"),
        ("rten/mlp.rten", "onnx/mlp/model.onnx"),
    ];
    let options = rtenx::diff::Options {
        values: true,
        ..Default::default()
    };
    let mut seen = BTreeSet::new();
    for (a, b) in pairs {
        let (a, b) = (fixtures.join(a), fixtures.join(b));
        let (x, y) = (rtenx::analyze(&a).unwrap(), rtenx::analyze(&b).unwrap());
        let diff = rtenx::diff::Diff::of(&x, &y, &options);
        let mut out = Vec::new();
        diff.write_json(&mut out, [&a, &b], true).unwrap();
        let doc: Value = serde_json::from_slice(&out).unwrap();
        assert_valid(&validator, &doc, &format!("diff of {a:?} and {b:?}"));
        for section in [
            "files",
            "interface",
            "graph",
            "tensors",
            "values",
            "findings",
        ] {
            let object = doc[section].as_object().map(|o| o.values());
            if object
                .into_iter()
                .flatten()
                .any(|v| v.as_array().is_some_and(|a| !a.is_empty()))
            {
                seen.insert(section);
            }
        }
    }
    // Each section's lists were exercised by some pair.
    assert_eq!(seen.len(), 6, "{seen:?}");
}

#[test]
fn a_report_with_hashes_and_a_baseline_validates() {
    let check_schema = schema("check.schema.json");
    let dir = tempfile::tempdir().unwrap();
    // A baseline with one entry that no file matches: listed as fixed.
    let baseline = dir.path().join("baseline.json");
    let entry = r#"{"fingerprint": "00000000000000000000000000000000:1", "code": "RX005", "path": "m.rten", "item": null, "message": "gone"}"#;
    std::fs::write(
        &baseline,
        format!(r#"{{"version": 2, "findings": [{entry}]}}"#),
    )
    .unwrap();
    std::fs::copy(
        common::fixtures().join("rten/bad/RX005-trailing-bytes.rten"),
        dir.path().join("m.rten"),
    )
    .unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    let (out, _, _) = common::rtenx(&[
        "check",
        "--isolated",
        "--format",
        "json",
        "--hash",
        "sha256",
        "--baseline",
        baseline.to_str().unwrap(),
        dir_arg,
        "tests/fixtures/onnx/external_one_file",
    ]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["baseline"]["fixed"].as_array().unwrap().len(),
        1,
        "{report}"
    );
    assert_eq!(report["files"][0]["hashes"].as_array().unwrap().len(), 1);
    assert_eq!(report["files"][0]["findings"][0]["code"], "RX005");
    assert_valid(&check_schema, &report, "check --hash --baseline");
}

#[test]
fn a_signature_in_every_state_validates() {
    let dump_schema = schema("dump.schema.json");
    let cases = "tests/fixtures/signing/cases";
    let material = "tests/fixtures/signing/material";
    let key = format!("{material}/p256.pub.pem");
    let root = format!("{material}/cert-good-root.pem");
    let runs: [(Vec<String>, &str); 6] = [
        (
            vec![
                format!("{cases}/key-p256-safetensors/model"),
                "--public-key".into(),
                key.clone(),
            ],
            "verified",
        ),
        (
            vec![
                format!("{cases}/cert-good/model"),
                "--certificate-chain".into(),
                root,
            ],
            "verified",
        ),
        (vec![format!("{cases}/cert-good/model")], "integrity-only"),
        (
            vec![format!("{cases}/key-p256-safetensors/model")],
            "integrity-only",
        ),
        (
            vec![
                format!("{cases}/tamper-safetensors-config/model"),
                "--public-key".into(),
                key,
            ],
            "failed",
        ),
        (vec!["tests/fixtures/safetensors/hf_repo".into()], "none"),
    ];
    for (args, status) in runs {
        let mut all = vec!["dump", "--json"];
        all.extend(args.iter().map(String::as_str));
        let (out, _, _) = common::rtenx(&all);
        let dump: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(dump["signature"]["status"], status, "{args:?}");
        assert_valid(&dump_schema, &dump, &format!("dump {args:?}"));
    }
    // A signed folder with no model is a result of its own.
    let (out, _, _) = common::rtenx(&[
        "check",
        "--isolated",
        "--format",
        "json",
        &format!("{cases}/tamper-flipped-byte/model"),
    ]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["files"][0]["format"], "signed-folder", "{report}");
    assert_valid(
        &schema("check.schema.json"),
        &report,
        "check of a signed folder",
    );
}
