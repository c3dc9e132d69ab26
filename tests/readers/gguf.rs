//! GGUF models: synthetic files made by `rtenx::synth::gguf` check clean, large ones quickly
//! and in little memory, and split models are read part by part.

use crate::common;

use rtenx::synth::gguf::{part_path, write, Spec};
use std::path::Path;

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
    assert_eq!(inv.tensors.len(), 3 * 9 + 2);
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
    assert_eq!(analysis.inventory.tensors.len(), 4 * 9 + 2);
    std::fs::remove_file(part_path(&first, 2, 3)).unwrap();
    let analysis = analyze(&first);
    let messages: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| format!("{} {}", f.rule.code, f.message))
        .collect();
    // Only the missing part: the tensor count is not compared without it.
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with("GG026") && messages[0].contains("model-00002-of-00003.gguf"),
        "{messages:?}"
    );
}

/// Files that both reference loaders accept, where rtenx reports an error, and why.
const STRICTER: &[(&str, &str)] = &[
    (
        "bad/GG007-bool-value-2.gguf",
        "the specification says readers should reject a bool other than 0 or 1",
    ),
    (
        "bad/GG022-architecture-missing.gguf",
        "the specification requires general.architecture; llama.cpp's model loader needs it",
    ),
    (
        "bad/GG028-architecture-uppercase.gguf",
        "the specification allows [a-z0-9]+; llama.cpp's model loader knows no such architecture",
    ),
    (
        "bad/GG023-block-count-mismatch.gguf",
        "llama.cpp's model loader looks up blk.1 tensors that are not there",
    ),
    (
        "big_endian.gguf",
        "only the file loader on a big-endian machine reads it",
    ),
    (
        "bad/GG027-split-count-mismatch-other/model-00001-of-00003.gguf",
        "llama.cpp reads split.count only from the first part",
    ),
    (
        "bad/GG027-split-part-alone-mismatch/model-00002-of-00003.gguf",
        "a part loaded alone is not compared with its name; as a split, llama.cpp refuses it",
    ),
    (
        "bad/GG027-split-no-mismatch/model-00002-of-00003.gguf",
        "a part loaded alone is not compared with its name; as a split, llama.cpp refuses it",
    ),
    (
        "bad/GG027-split-count-mismatch-other/model-00003-of-00003.gguf",
        "a part loaded alone is not compared with its name; llama.cpp reads split.count only from the first part",
    ),
    (
        "bad/GG029-string-not-utf8.gguf",
        "the specification says UTF-8; gguf-py fails when the value is read",
    ),
    (
        "bad/GG029-array-string-not-utf8.gguf",
        "the specification says UTF-8; gguf-py fails when the tokens are read",
    ),
];

/// The rules that judge a model as llama.cpp's model loader would, not its GGUF reader:
/// `tests/readers/loadable.rs` holds them to that loader's verdicts.
const MODEL_LOADER_RULES: [&str; 11] = [
    "GG032", "GG033", "GG034", "GG035", "GG036", "GG037", "GG038", "GG039", "GG040", "GG041",
    "GG042",
];

/// What a loader said: true if it refused the file.
fn refused(verdict: &str) -> bool {
    verdict.starts_with("REFUSED") || verdict.starts_with("BOUNDS")
}

/// Every fixture that llama.cpp's GGUF reader refuses (`gguf_init_from_file`, its data bounds
/// check, or its walk over split parts) is an error here; every error on a file both
/// references load is listed in [`STRICTER`], except those of the model loader's rules. Recorded by tests/fixtures/gen/gguf_verdicts.py.
#[test]
fn rtenx_reports_an_error_wherever_llama_cpp_refuses() {
    let dir = common::fixtures().join("gguf");
    let verdicts = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut disagreements = Vec::new();
    let mut rows = 0;
    for line in verdicts.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, gguf_py, llama, alloc, split, ..] = cols[..] else {
            panic!("short row {line}");
        };
        rows += 1;
        let errors: Vec<&str> = (analyze(&dir.join(file)).findings.iter())
            .filter(|f| f.severity == rtenx::Severity::Error)
            .filter(|f| !MODEL_LOADER_RULES.contains(&f.rule.code))
            .map(|f| f.rule.code)
            .collect();
        let refuses = refused(llama) || refused(alloc) || refused(split);
        let stricter = STRICTER.iter().any(|(f, _)| *f == file);
        let both_load = !refuses && !gguf_py.starts_with("refuses");
        if refuses && errors.is_empty() {
            disagreements.push(format!("{file}: llama.cpp refuses, rtenx passes it"));
        } else if both_load && !errors.is_empty() && !stricter {
            disagreements.push(format!("{file}: both load it, rtenx reports {errors:?}"));
        } else if stricter && errors.is_empty() {
            disagreements.push(format!("{file}: listed as stricter, rtenx passes it"));
        }
    }
    assert!(rows > 90, "only {rows} verdicts");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Found by the gguf fuzz target: the reader run on bytes too short for a version points at
/// the end of the file, not past it.
#[test]
fn a_file_too_short_for_a_version_is_reported_inside_it() {
    use rtenx::formats::{gguf::Gguf, Format, ReadOptions};
    for bytes in [&b""[..], b"GG", b"GGUF\x03"] {
        let file = rtenx::source::ModelFile::in_memory("m.gguf", bytes.to_vec());
        let mut out = rtenx::check::Findings::default();
        Gguf.read(&file, &ReadOptions::default(), &mut out);
        let offsets: Vec<_> = out.iter().map(|f| (f.rule.code, f.offset)).collect();
        assert_eq!(offsets, [("GG004", Some(bytes.len().min(4) as u64))]);
    }
}

/// A GGUF file of one pair, `general.name` (a string of `len` bytes) or, with `array`, `a`
/// (an array of `len` u8), whose bytes are zeros in a sparse file that holds them all.
fn sparse(path: &Path, len: u64, array: bool) {
    let key: &[u8] = if array { b"a" } else { b"general.name" };
    let mut head = b"GGUF".to_vec();
    head.extend(3u32.to_le_bytes());
    head.extend(0u64.to_le_bytes()); // tensors
    head.extend(1u64.to_le_bytes()); // pairs
    head.extend((key.len() as u64).to_le_bytes());
    head.extend(key);
    if array {
        head.extend(9u32.to_le_bytes());
        head.extend(0u32.to_le_bytes()); // u8
    } else {
        head.extend(8u32.to_le_bytes());
    }
    head.extend(len.to_le_bytes());
    let file = std::fs::File::create(path).unwrap();
    std::io::Write::write_all(&mut &file, &head).unwrap();
    file.set_len(head.len() as u64 + len).unwrap();
}

/// llama.cpp's caps hold whether or not the file has the bytes: a string or an array one past
/// its cap, which the file holds (sparse, so nothing is written), is refused unread; an array
/// at the cap is read.
#[test]
fn strings_and_arrays_past_llama_cpps_caps_are_refused_even_when_the_file_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.gguf");
    let codes = |path: &Path| -> Vec<&'static str> {
        let findings = analyze(path).findings;
        findings.iter().map(|f| f.rule.code).collect()
    };
    sparse(&path, (1 << 30) + 1, false);
    assert_eq!(codes(&path), ["GG030"]);
    sparse(&path, (1 << 30) + 1, true);
    assert_eq!(codes(&path), ["GG031"]);
    sparse(&path, 1 << 30, true);
    assert_eq!(codes(&path), ["GG022"]);
}

/// A model split into 20,000 parts of 20 tensors: each part's data section was found by
/// looking through the tensors of every part before it, and each part's whole-file section
/// was forgotten by looking through every section (at 8,000 parts of 50, 8.9 s in a release
/// build).
#[cfg(target_os = "linux")]
#[test]
fn a_model_split_into_20000_parts_is_read_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    // llama.cpp's most layers, 512 (4,610 tensors): most parts hold none.
    let spec = Spec {
        layers: 512,
        width: 32,
        vocabulary: 16,
        parts: 20_000,
    };
    write(&dir.path().join("model.gguf"), &spec).unwrap();
    let first = "model-00001-of-20000.gguf";
    let run = common::bounded::run_in(dir.path(), &["check", first]);
    eprintln!("20,000 parts: {} MB, {:.2} s", run.rss_mb, run.seconds);
    run.assert_bounded("a model split into 20,000 parts");
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}
