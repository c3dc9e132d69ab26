//! GGUF models: synthetic files made by `rtenx::synth::gguf` check clean, large ones quickly
//! and in little memory, and split models are read part by part.

mod common;

use rtenx::synth::gguf::{part_path, write, Spec};

fn analyze(path: &std::path::Path) -> rtenx::Analysis {
    rtenx::analyze(path).unwrap()
}

#[test]
fn a_synthetic_model_checks_clean_with_its_vocabulary_left_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.gguf");
    let spec = Spec {
        layers: 3,
        width: 64,
        vocabulary: 1000,
        parts: 1,
    };
    write(&path, &spec).unwrap();
    let analysis = analyze(&path);
    let codes: Vec<_> = analysis.findings.iter().map(|f| f.rule.code).collect();
    assert!(codes.is_empty(), "{codes:?}");
    let inv = &analysis.inventory;
    assert_eq!(inv.tensors.len(), 14);
    let tokens = inv
        .metadata
        .iter()
        .find(|m| m.key.as_bytes() == b"tokenizer.ggml.tokens")
        .unwrap();
    let list = tokens.list.unwrap();
    assert_eq!(list.count, 1000);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(list.items(&bytes, 998, 5), ["tok998", "tok999"]);
    assert!(tokens
        .value
        .as_str()
        .unwrap()
        .starts_with("[1000 × string] \"tok0\""));
}

#[test]
fn a_split_model_is_read_with_its_parts_and_a_missing_part_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("model-00001-of-00003.gguf");
    let spec = Spec {
        layers: 4,
        width: 64,
        vocabulary: 10,
        parts: 3,
    };
    write(&first, &spec).unwrap();
    let analysis = analyze(&first);
    let codes: Vec<_> = analysis.findings.iter().map(|f| f.rule.code).collect();
    assert!(codes.is_empty(), "{codes:?}");
    assert_eq!(analysis.inventory.files.len(), 3);
    assert_eq!(analysis.inventory.tensors.len(), 18);
    std::fs::remove_file(part_path(&first, 2, 3)).unwrap();
    let analysis = analyze(&first);
    let messages: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| format!("{} {}", f.rule.code, f.message))
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("GG026") && m.contains("model-00002-of-00003.gguf")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("GG027") && m.contains("split.tensors.count = 18")),
        "{messages:?}"
    );
}
