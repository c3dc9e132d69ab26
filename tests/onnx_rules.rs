//! Hostile ONNX fixtures (tests/fixtures/onnx/bad, made by
//! tests/fixtures/gen/make_onnx_fixtures.py). Each case folder is copied into a temporary
//! folder, its `setup` (symlinks, hard links, FIFOs, files outside the folder) is applied, and
//! the model is checked with `--verify-checksums`. The manifest lists every warning and error
//! each case must produce, as (code, item); infos only where the case is about them.
#![cfg(unix)]

mod common;

use rtenx::check::{Item, Severity};
use rtenx::formats::ReadOptions;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

struct Case {
    expected: BTreeSet<(String, String)>,
    setup: String,
}

fn manifest() -> BTreeMap<String, Case> {
    let text = fs::read_to_string(common::fixtures().join("onnx/bad/manifest.tsv")).unwrap();
    let mut cases = BTreeMap::<String, Case>::new();
    for line in text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [case, code, item, setup, ..] = cols[..] else {
            panic!("bad manifest row {line}")
        };
        let entry = cases.entry(case.to_owned()).or_insert(Case {
            expected: BTreeSet::new(),
            setup: setup.to_owned(),
        });
        if code != "-" {
            entry.expected.insert((code.to_owned(), item.to_owned()));
        }
    }
    cases
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Applies the manifest's setup steps inside `dir`.
fn apply(dir: &Path, setup: &str) {
    for step in setup
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "-")
    {
        let words: Vec<&str> = step.split_whitespace().collect();
        match words[..] {
            ["mkdir", path] => fs::create_dir_all(dir.join(path)).unwrap(),
            ["write", path, content] => {
                let bytes = match content.strip_prefix('@') {
                    Some(size) => vec![0u8; size.parse().unwrap()],
                    None => (0..content.len() / 2)
                        .map(|i| u8::from_str_radix(&content[2 * i..2 * i + 2], 16).unwrap())
                        .collect(),
                };
                fs::write(dir.join(path), bytes).unwrap();
            }
            ["symlink", link, target] => {
                std::os::unix::fs::symlink(target, dir.join(link)).unwrap()
            }
            ["hardlink", link, existing] => {
                fs::hard_link(dir.join(existing), dir.join(link)).unwrap()
            }
            ["fifo", path] => {
                let status = std::process::Command::new("mkfifo")
                    .arg(dir.join(path))
                    .status()
                    .unwrap();
                assert!(status.success());
            }
            _ => panic!("unknown setup step `{step}`"),
        }
    }
}

/// The name a finding's item has in the manifest.
fn item_name(a: &rtenx::Analysis, f: &rtenx::check::Finding) -> String {
    let inv = &a.inventory;
    match f.item {
        Some(Item::Tensor { tensor }) => inv.tensors[tensor].name.to_string(),
        Some(Item::Node { graph, node }) => inv.graphs[graph]
            .node(node)
            .map(|n| n.name.to_string())
            .unwrap_or_default(),
        _ if f.file > 0 => inv.files[f.file]
            .path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        _ => "-".to_owned(),
    }
}

/// Checks hostile case `name` with `--verify-checksums`, in a temporary copy of its folder
/// with its `setup` applied.
fn analyze_case(name: &str, setup: &str) -> rtenx::Analysis {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join(name);
    copy_dir(&common::fixtures().join("onnx/bad").join(name), &dir);
    apply(&dir, setup);
    let options = ReadOptions {
        verify_checksums: true,
        progress: None,
    };
    rtenx::analyze_with(&dir.join("model.onnx"), &options).unwrap()
}

#[test]
fn each_hostile_onnx_case_produces_exactly_its_findings() {
    let mut failures = Vec::new();
    for (name, case) in manifest() {
        let a = analyze_case(&name, &case.setup);
        let info_codes: BTreeSet<&str> = case.expected.iter().map(|(c, _)| c.as_str()).collect();
        let actual: BTreeSet<(String, String)> = a
            .findings
            .iter()
            .filter(|f| f.severity >= Severity::Warning || info_codes.contains(f.rule.code))
            .map(|f| (f.rule.code.to_owned(), item_name(&a, f)))
            .collect();
        if actual != case.expected {
            let messages: Vec<String> = a
                .findings
                .iter()
                .map(|f| format!("{} {}", f.rule.code, f.message))
                .collect();
            failures.push(format!(
                "{name}:\n  expected {:?}\n  actual   {actual:?}\n  {}",
                case.expected,
                messages.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Warnings that onnxruntime treats as errors, by design: OX020 (an unknown external_data key,
/// such as `basepath`) is valid ONNX that onnx reads, so the issue asks for a warning;
/// `--deny OX020` makes it fail a check.
const ONNXRUNTIME_STRICTER: &[&str] = &["OX020"];

/// bad/onnx_behaviour.tsv records what onnxruntime 1.32 did with each case when the generator
/// ran: every case it refuses must be an error here too, or an [`ONNXRUNTIME_STRICTER`] warning.
#[test]
fn every_case_onnxruntime_refuses_is_an_error() {
    let text = fs::read_to_string(common::fixtures().join("onnx/bad/onnx_behaviour.tsv")).unwrap();
    let cases = manifest();
    let mut refused = 0;
    let mut missed = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, _, _, ort] = cols[..] else {
            panic!("bad onnx_behaviour row {line}")
        };
        // Per-site variants of OX012-every-site are not folders of their own.
        let Some(case) = cases.get(name) else {
            continue;
        };
        if ort == "pass" || ort.starts_with("skipped") {
            continue;
        }
        refused += 1;
        let a = analyze_case(name, &case.setup);
        let explained = |f: &rtenx::check::Finding| {
            f.severity == Severity::Error || ONNXRUNTIME_STRICTER.contains(&f.rule.code)
        };
        if !a.findings.iter().any(explained) {
            missed.push(format!("{name}: onnxruntime says {ort}"));
        }
    }
    assert!(refused > 40, "only {refused} refusals recorded");
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

#[test]
fn every_case_folder_is_in_the_manifest() {
    let cases = manifest();
    for entry in fs::read_dir(common::fixtures().join("onnx/bad")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() && entry.file_name() != "src" {
            let name = entry.file_name().into_string().unwrap();
            assert!(cases.contains_key(&name), "{name} has no manifest row");
        }
    }
}

#[test]
fn no_file_outside_the_model_folder_is_ever_opened() {
    // A symlink to a FIFO outside the folder would block forever if it were opened.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("m");
    copy_dir(
        &common::fixtures().join("onnx/bad/OX014-symlink-file"),
        &dir,
    );
    let fifo = root.path().join("outside.fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let _ = fs::remove_file(dir.join("w.data"));
    std::os::unix::fs::symlink(&fifo, dir.join("w.data")).unwrap();
    let options = ReadOptions {
        verify_checksums: true,
        progress: None,
    };
    let a = rtenx::analyze_with(&dir.join("model.onnx"), &options).unwrap();
    assert!(
        a.findings.iter().any(|f| f.rule.code == "DX002"),
        "{:?}",
        a.findings
    );
}

#[test]
fn an_onnx_file_of_2_gib_is_non_conformant() {
    // A real model followed by a hole up to 2 GiB: a sparse file, no disk cost.
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join("huge.onnx");
    fs::copy(common::fixtures().join("onnx/mlp/model.onnx"), &path).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1 << 31)
        .unwrap();
    let a = rtenx::analyze(&path).unwrap();
    let codes: Vec<&str> = a.findings.iter().map(|f| f.rule.code).collect();
    assert!(codes.contains(&"OX002"), "{codes:?}");
    assert_eq!(
        a.findings
            .iter()
            .find(|f| f.rule.code == "OX002")
            .unwrap()
            .offset,
        Some(0)
    );
}

#[test]
fn deeply_nested_subgraphs_are_bounded() {
    use prost::Message;
    use rtenx::formats::onnx::proto::{AttributeProto, GraphProto, ModelProto, NodeProto};
    // 300 If nodes, each holding the next in its then_branch: deeper than any real model.
    let mut inner = GraphProto::default();
    for _ in 0..300 {
        let node = NodeProto {
            op_type: Some("If".into()),
            attribute: vec![AttributeProto {
                name: Some("then_branch".into()),
                r#type: Some(5),
                g: Some(inner.encode_to_vec().into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        inner = GraphProto {
            node: vec![node.encode_to_vec().into()],
            ..Default::default()
        };
    }
    let model = ModelProto::with_graph(&inner, 21);
    let file = rtenx::source::ModelFile::in_memory("deep.onnx", model.encode_to_vec());
    let a = rtenx::analyze_file(&file);
    assert!(
        a.inventory.graphs.len() <= 102,
        "{} graphs read",
        a.inventory.graphs.len()
    );
    assert!(
        a.findings
            .iter()
            .any(|f| f.rule.code == "OX001" && f.message.contains("nest more than 100")),
        "{:?}",
        a.findings
    );
}

#[test]
fn a_malformed_node_is_reported_at_its_offset_and_the_rest_is_read() {
    use prost::Message;
    use rtenx::formats::onnx::proto::{GraphProto, ModelProto, NodeProto};
    let relu = |input: &str, output: &str| {
        NodeProto {
            input: vec![input.to_owned().into()],
            output: vec![output.to_owned().into()],
            op_type: Some("Relu".into()),
            ..Default::default()
        }
        .encode_to_vec()
    };
    // Field 1 (input) with the varint wire type: prost refuses it, so must rtenx.
    let broken = vec![0x08, 0x01];
    let graph = GraphProto {
        node: [relu("X", "a"), broken.clone(), relu("a", "Y")]
            .map(Into::into)
            .to_vec(),
        ..Default::default()
    };
    let model = ModelProto::with_graph(&graph, 21);
    let bytes = model.encode_to_vec();
    let at = bytes
        .windows(broken.len() + 1)
        .position(|w| w[0] == broken.len() as u8 && w[1..] == broken)
        .map(|p| p as u64 + 1)
        .unwrap();
    let file = rtenx::source::ModelFile::in_memory("broken-node.onnx", bytes);
    let a = rtenx::analyze_file(&file);
    let bad: Vec<_> = a
        .findings
        .iter()
        .filter(|f| f.rule.code == "OX001")
        .collect();
    assert_eq!(bad.len(), 1, "{:?}", a.findings);
    assert_eq!(bad[0].offset, Some(at));
    assert!(bad[0].message.contains("field 1"), "{}", bad[0].message);
    let ops = a.inventory.graphs[0]
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, rtenx::inventory::NodeKind::Operator(_)))
        .count();
    assert_eq!(ops, 2, "the nodes around the broken one are read");
}

/// OX019-missing with its location `w.data` changed in place to `w\xffdata` (same length),
/// in a temporary folder: the bytes, not a decoded string, name the file on Unix.
fn non_utf8_location_case() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::ffi::OsStrExt;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("m");
    copy_dir(&common::fixtures().join("onnx/bad/OX019-missing"), &dir);
    let mut model = fs::read(dir.join("model.onnx")).unwrap();
    let value = b"\x12\x06w.data"; // StringStringEntryProto.value, 6 bytes
    let at = model
        .windows(value.len())
        .position(|w| w == value)
        .expect("the location value");
    model[at + 3] = 0xff;
    model[at + 4] = b'd';
    fs::write(dir.join("model.onnx"), model).unwrap();
    let data = dir.join(std::ffi::OsStr::from_bytes(b"w\xffdata"));
    (root, dir, data)
}

fn codes(dir: &Path) -> Vec<&'static str> {
    let a = rtenx::analyze(&dir.join("model.onnx")).unwrap();
    a.findings.iter().map(|f| f.rule.code).collect()
}

#[test]
fn a_location_that_is_not_utf8_names_the_file_its_bytes_name() {
    let (root, dir, data) = non_utf8_location_case();
    // Read as `w\u{fffd}data`, this symlink out of the folder would go unseen.
    fs::write(root.path().join("outside.bin"), [0u8; 4096]).unwrap();
    std::os::unix::fs::symlink("../outside.bin", &data).unwrap();
    let found = codes(&dir);
    assert!(found.contains(&"DX002"), "{found:?}");

    fs::remove_file(&data).unwrap();
    fs::write(&data, [0u8; 4096]).unwrap();
    let found = codes(&dir);
    assert!(!found.contains(&"DX006"), "the file exists: {found:?}");
    for code in ["OX024", "DX007"] {
        assert!(found.contains(&code), "{code}: {found:?}");
    }
    // OX024 says rten refuses it, and it does.
    let loaded = rten::ModelOptions::with_all_ops().load_file(dir.join("model.onnx"));
    assert!(loaded.is_err(), "rten loads a non-UTF-8 location");
}
