//! "Will it load?" held to the real loaders: every Hugging Face folder of `tests/fixtures/hf`
//! against what transformers' `from_pretrained` did with it (`oracle.tsv`, written by
//! `tests/fixtures/gen/make_hf_fixtures.py`). Where the loader raises or would initialise
//! weights at random, rtenx must report an error; where it drops weights, a warning; where it
//! loads the folder as saved, nothing above an info.

use crate::common;

use rtenx::check::{Finding, Severity};
use std::path::{Path, PathBuf};

/// The rows of an oracle file: its columns, comments and header left out.
fn rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    lines.next();
    lines
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// The file of `folder` that `from_pretrained` reads first.
fn checkpoint(folder: &Path) -> PathBuf {
    [
        "model.safetensors.index.json",
        "model.safetensors",
        "pytorch_model.bin",
    ]
    .iter()
    .map(|name| folder.join(name))
    .find(|p| p.exists())
    .unwrap_or_else(|| panic!("{} has no checkpoint", folder.display()))
}

fn summary(findings: &[Finding]) -> String {
    let lines = findings
        .iter()
        .map(|f| format!("{}[{}] {}", f.severity, f.rule.code, f.message));
    lines.collect::<Vec<_>>().join("\n  ")
}

#[test]
fn hugging_face_folders_get_transformers_verdict() {
    let hf = common::fixtures().join("hf");
    let rows = rows(&hf.join("oracle.tsv"));
    assert!(rows.len() >= 30, "{} rows", rows.len());
    let mut wrong = Vec::new();
    for row in &rows {
        let [folder, defect, verdict, ..] = &row[..] else {
            panic!("short row {row:?}");
        };
        let a = rtenx::analyze(&checkpoint(&hf.join(folder))).unwrap();
        let has = |code: &str, severity| {
            a.findings
                .iter()
                .any(|f| f.rule.code == code && f.severity == severity)
        };
        let errors = a
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        let warnings = (a.findings.iter())
            .filter(|f| f.severity == Severity::Warning)
            .count();
        let hf_errors = (a.findings.iter())
            .filter(|f| f.severity == Severity::Error && f.rule.code.starts_with("HF"))
            .count();
        let ok = match verdict.as_str() {
            "loads" if defect == "-" => errors + warnings == 0,
            "loads" => errors == 0,
            "loads-random" => has("HF003", Severity::Error),
            "loads-drops" => has("HF004", Severity::Warning) && hf_errors == 0,
            "raises" => errors > 0,
            "skipped" => has("HF002", Severity::Info) && errors == 0,
            other => panic!("{folder}: verdict {other}"),
        };
        if !ok {
            wrong.push(format!("{folder} ({verdict}): {}", summary(&a.findings)));
        }
        let verdict_line = a.inventory.architecture.as_ref().map(|arch| arch.answer());
        if defect == "-" {
            assert_eq!(
                verdict_line.as_deref().map(|l| l.ends_with(": yes")),
                Some(true),
                "{folder}: {verdict_line:?}"
            );
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Hostile GGUF files llama.cpp refuses for a reason rtenx does not check by design, and why.
const GGUF_NOT_STRUCTURAL: [(&str, &str); 4] = [
    ("bad/weight-nan.gguf", "a NaN weight: tensor values, found by llama.cpp only with check_tensors on (off by default); rtenx reads no tensor bytes to check structure"),
    ("bad/norm-inf.gguf", "an infinite weight: tensor values, as above"),
    ("bad/q8_0-scale-nan.gguf", "a NaN block scale: tensor values, as above"),
    ("bad/arch-mamba.gguf", "an architecture llama.cpp knows that the table has no tensors for: reported as not checked (GG033), never as an error"),
];

#[test]
fn gguf_models_get_llama_cpps_verdict() {
    let arch = common::fixtures().join("gguf").join("arch");
    let rows = rows(&arch.join("oracle.tsv"));
    assert!(rows.len() >= 100, "{} rows", rows.len());
    let mut wrong = Vec::new();
    for row in &rows {
        let [file, defect, verdict, ..] = &row[..] else {
            panic!("short row {row:?}");
        };
        let a = rtenx::analyze(&arch.join(file)).unwrap();
        let count = |s| a.findings.iter().filter(|f| f.severity == s).count();
        let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
        let exempt = GGUF_NOT_STRUCTURAL.iter().any(|(f, _)| f == file);
        let answer = a.inventory.architecture.as_ref().map(|arch| arch.answer());
        let ok = match verdict.as_str() {
            _ if defect == "-" => {
                errors + warnings == 0 && answer.as_deref().is_some_and(|l| l.ends_with(": yes"))
            }
            "refuses" | "aborts" if exempt => errors == 0,
            "refuses" | "aborts" => errors > 0,
            "loads" | "loads-warns" => !exempt,
            other => panic!("{file}: verdict {other}"),
        };
        if !ok {
            wrong.push(format!(
                "{file} ({verdict}, {answer:?}): {}",
                summary(&a.findings)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// One fixture for each rule of the model loader, and the only code (of every error, warning
/// and its own severity) it must produce.
const GGUF_RULE_FIXTURES: [(&str, &str); 11] = [
    ("GG032", "bad/arch-unknown.gguf"),
    ("GG033", "bad/arch-mamba.gguf"),
    ("GG034", "bad/embedding-length-missing.gguf"),
    ("GG035", "bad/block-count-string.gguf"),
    ("GG036", "bad/rms-eps-nan.gguf"),
    ("GG037", "bad/missing-ffn-down.gguf"),
    ("GG038", "bad/ffn-down-transposed.gguf"),
    ("GG039", "bad/extra-tensor.gguf"),
    ("GG040", "bad/token-embd-i32.gguf"),
    ("GG041", "bad/token-duplicate-spm.gguf"),
    ("GG042", "bad/bos-past-vocab.gguf"),
];

#[test]
fn each_model_loader_rule_fires_on_its_fixture() {
    let arch = common::fixtures().join("gguf").join("arch");
    for (code, file) in GGUF_RULE_FIXTURES {
        let a = rtenx::analyze(&arch.join(file)).unwrap();
        let codes: std::collections::BTreeSet<&str> = (a.findings.iter())
            .filter(|f| f.severity != Severity::Info || f.rule.code == code)
            .map(|f| f.rule.code)
            .collect();
        assert_eq!(
            codes.into_iter().collect::<Vec<_>>(),
            [code],
            "{file}: {}",
            summary(&a.findings)
        );
    }
}

/// A config.json is part of the folder, so its sizes bound nothing: one that makes the model
/// 100,000 layers of 100,000 experts is one finding, not 30 billion keys expanded.
#[test]
fn a_config_of_absurd_sizes_is_one_finding() {
    let dir = tempfile::tempdir().unwrap();
    let from = common::fixtures().join("hf").join("qwen3moe");
    std::fs::copy(
        from.join("model.safetensors"),
        dir.path().join("model.safetensors"),
    )
    .unwrap();
    let text = std::fs::read_to_string(from.join("config.json")).unwrap();
    let mut config: serde_json::Value = serde_json::from_str(&text).unwrap();
    config["num_hidden_layers"] = 100_000.into();
    config["num_experts"] = 100_000.into();
    std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
    let a = rtenx::analyze(&dir.path().join("model.safetensors")).unwrap();
    let codes: Vec<&str> = a.findings.iter().map(|f| f.rule.code).collect();
    assert_eq!(codes, ["HF003"], "{}", summary(&a.findings));
    assert!(
        a.findings[0].message.contains("weights"),
        "{}",
        a.findings[0].message
    );
}
