//! Folders as models: `inspect`, `dump` and `diff` take a folder and open the model it holds
//! (or list the models of a folder that holds several), a Hugging Face folder's summary names
//! the files beside the weights, and a settings file given by name is not called a broken
//! model.

use crate::common;

use common::{rtenx, rtenx_in};

#[test]
fn inspect_on_a_folder_of_one_model_summarises_it_and_the_files_beside_it() {
    let (out, err, code) = rtenx(&["inspect", "tests/fixtures/safetensors/hf_repo"]);
    assert_eq!(code, 0, "{err}");
    let head: Vec<&str> = out.lines().take(7).collect();
    insta::assert_snapshot!(head.join("\n"), @r"
    tests/fixtures/safetensors/hf_repo/model.safetensors.index.json
      format   safetensors sharded
      model    LlamaForCausalLM (layers 2, hidden 16, intermediate 32, heads 4, kv heads 2, vocabulary 64, context 128)
      verdict  matches config.json for transformers 5.24.0: yes
      beside   config.json checked · tokenizer.json, generation_config.json not checked
      size     1.69 KiB (1726 bytes)
      data     model-00001-of-00003.safetensors (6.20 KiB), model-00002-of-00003.safetensors (6.92 KiB), model-00003-of-00003.safetensors (2.12 KiB)
    ");
}

#[test]
fn inspect_on_a_folder_of_several_models_lists_them_on_a_pipe() {
    let (out, _, code) = rtenx(&["inspect", "tests/fixtures/hf"]);
    assert_eq!(code, 0);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("tests/fixtures/hf holds 31 model files; name one, or check them all with `rtenx check tests/fixtures/hf`:")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 31, "{out}");
    let bin = rows
        .iter()
        .find(|r| r.contains("llama-bin/pytorch_model.bin"));
    assert!(bin.is_some_and(|r| r.contains("pytorch")), "{out}");
    // A sharded checkpoint is one model, named by its index; its shards are not listed.
    assert!(
        out.contains("llama-sharded/model.safetensors.index.json"),
        "{out}"
    );
    assert!(!out.contains("model-00001-of-00002"), "{out}");
}

#[test]
fn dump_and_diff_take_a_folder_of_one_model_and_refuse_one_of_several() {
    let (out, err, code) = rtenx(&["dump", "tests/fixtures/hf/llama"]);
    assert_eq!(code, 0, "{err}");
    let dump: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        dump["files"][0]["path"],
        "tests/fixtures/hf/llama/model.safetensors"
    );
    let (out, err, code) = rtenx(&["dump", "tests/fixtures/hf"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("rtenx: tests/fixtures/hf holds 31 model files"),
        "{err}"
    );
    let (out, err, code) = rtenx(&[
        "diff",
        "tests/fixtures/hf/llama",
        "tests/fixtures/hf/llama-tied",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("lm_head.weight"), "{out}");
}

#[test]
fn an_empty_folder_says_it_holds_no_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a model").unwrap();
    let (out, err, code) = rtenx_in(dir.path(), &["inspect", "."]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "rtenx: .: the folder holds no model file rtenx reads\n"
    );
}

/// The files a Hugging Face folder holds beside its weights, given by name, are what they
/// are: not a model, not checked, no error; a model file given the name `config.json` is
/// still read as the model it is.
#[test]
fn settings_files_given_by_name_are_not_called_broken_models() {
    for (file, what) in [
        (
            "tests/fixtures/hf/llama/config.json",
            "a Hugging Face model config",
        ),
        (
            "tests/fixtures/hf/llama/generation_config.json",
            "a Hugging Face generation config",
        ),
        (
            "tests/fixtures/safetensors/hf_repo/tokenizer.json",
            "a Hugging Face tokenizer file",
        ),
    ] {
        let (out, _, code) = rtenx(&["check", file]);
        assert_eq!(code, 0, "{out}");
        let first = out.lines().next().unwrap();
        assert!(
            first.starts_with(&format!("info[RX017]: not a model file: {what}")),
            "{out}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let model = std::fs::read("tests/fixtures/rten/mlp.rten").unwrap();
    std::fs::write(dir.path().join("config.json"), model).unwrap();
    let (out, _, code) = rtenx_in(dir.path(), &["check", "config.json"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("not a model file"), "{out}");
}

/// A check of a Hugging Face snapshot says what it read beside the weights and what
/// transformers would say, not only `checked 1 file`; a check of many such models says it for
/// ten and counts the rest.
#[test]
fn a_check_of_a_folder_says_what_it_read_beside_the_weights() {
    let (out, _, code) = rtenx(&["check", "tests/fixtures/safetensors/hf_repo"]);
    assert_eq!(code, 0, "{out}");
    insta::assert_snapshot!(out, @r"
    note: tests/fixtures/safetensors/hf_repo/model.safetensors.index.json: 3 data files · LlamaForCausalLM: matches config.json for transformers 5.24.0: yes · config.json checked · tokenizer.json, generation_config.json not checked
    checked 1 file: 0 errors, 0 warnings, 0 infos
    ");
    let (out, _, _) = rtenx(&["check", "tests/fixtures/hf"]);
    let notes: Vec<&str> = out.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes.len(), 11, "{out}");
    assert!(notes[10].starts_with("note: 20 more models"), "{out}");
}

/// The loader's verdict counts every error of the check, not only the architecture table's:
/// a llama whose tensor lies past the end of the file does not load, whatever its table says.
#[test]
fn a_verdict_is_no_when_any_error_stops_the_loader() {
    let (out, _, code) = rtenx(&[
        "check",
        "tests/fixtures/gguf/bad/GG019-offset-past-end.gguf",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("llama: loads in llama.cpp 0c1e57098: no (2 problems)"),
        "{out}"
    );
    let (out, _, _) = rtenx(&[
        "inspect",
        "tests/fixtures/gguf/bad/GG019-offset-past-end.gguf",
    ]);
    assert!(
        out.contains("verdict  loads in llama.cpp 0c1e57098: no (2 problems)"),
        "{out}"
    );
}
