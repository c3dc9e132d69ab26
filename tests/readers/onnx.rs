//! ONNX cases that a manifest row cannot state: onnxruntime's verdicts on the hostile
//! fixtures (tests/fixtures/onnx/bad/onnx_behaviour.tsv), files too large to commit,
//! generated nesting, a FIFO outside the model's folder, and a location that is not UTF-8.
//! The fixtures' own expected findings are checked by tests/hostile.rs.
#![cfg(unix)]

use crate::common;

use common::hostile::{self, Case};
use rtenx::check::Severity;
use std::fs;
use std::path::Path;

/// Warnings that onnxruntime treats as errors, by design: the models are valid ONNX, so
/// they are warnings (`--deny` makes them fail a check). OX020: an unknown external_data key,
/// such as `basepath`, which onnx reads. OX034: an input that shape inference reads, stored as
/// external data, which onnxruntime cannot read while loading. OX044: a contrib operator
/// onnxruntime 1.32 lacks, which depends on the onnxruntime release.
const ONNXRUNTIME_STRICTER: &[&str] = &["OX020", "OX034", "OX044"];

/// bad/onnx_behaviour.tsv records what onnxruntime 1.32 did with each case when the generator
/// ran: every case it refuses must be an error here too, or an [`ONNXRUNTIME_STRICTER`] warning.
#[test]
fn every_case_onnxruntime_refuses_is_an_error() {
    let text = fs::read_to_string(common::fixtures().join("onnx/bad/onnx_behaviour.tsv")).unwrap();
    let cases = hostile::cases("onnx");
    let mut refused = 0;
    let mut missed = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, _, _, ort] = cols[..] else {
            panic!("bad onnx_behaviour row {line}")
        };
        // Per-site variants of DX001-every-site are not folders of their own.
        let Some(case) = cases.iter().find(|c| c.unit() == name) else {
            continue;
        };
        if ort == "pass" || ort.starts_with("skipped") {
            continue;
        }
        refused += 1;
        let a = case.analyze();
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
fn no_file_outside_the_model_folder_is_ever_opened() {
    // A symlink to a FIFO outside the folder would block forever if it were opened.
    let case = Case {
        setup: "fifo ../outside.fifo".into(),
        ..hostile::case("onnx", "DX002-symlink-file")
    };
    let prepared = case.prepare();
    let fifo = prepared.dir().parent().unwrap().join("outside.fifo");
    std::os::unix::fs::symlink(&fifo, prepared.dir().join("w.data")).unwrap();
    let a = prepared.analyze();
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

/// DX006-missing with its location `w.data` changed in place to `w\xffdata` (same length),
/// in a temporary folder: the bytes, not a decoded string, name the file on Unix.
fn non_utf8_location_case() -> (hostile::Prepared, std::path::PathBuf) {
    use std::os::unix::ffi::OsStrExt;
    let prepared = hostile::case("onnx", "DX006-missing").prepare();
    let mut model = fs::read(&prepared.entry).unwrap();
    let value = b"\x12\x06w.data"; // StringStringEntryProto.value, 6 bytes
    let at = model
        .windows(value.len())
        .position(|w| w == value)
        .expect("the location value");
    model[at + 3] = 0xff;
    model[at + 4] = b'd';
    fs::write(&prepared.entry, model).unwrap();
    let data = prepared
        .dir()
        .join(std::ffi::OsStr::from_bytes(b"w\xffdata"));
    (prepared, data)
}

/// The codes rtenx reports for the model in `dir`, checked for rten (`--target rten`).
fn codes(dir: &Path) -> Vec<&'static str> {
    let options = rtenx::formats::ReadOptions {
        target: Some(rtenx::formats::Target::Rten),
        ..Default::default()
    };
    let a = rtenx::analyze_with(&dir.join("model.onnx"), &options).unwrap();
    a.findings.iter().map(|f| f.rule.code).collect()
}

#[test]
fn a_location_that_is_not_utf8_names_the_file_its_bytes_name() {
    let (prepared, data) = non_utf8_location_case();
    let dir = prepared.dir();
    // Read as `w\u{fffd}data`, this symlink out of the folder would go unseen.
    fs::write(dir.parent().unwrap().join("outside.bin"), [0u8; 4096]).unwrap();
    std::os::unix::fs::symlink("../outside.bin", &data).unwrap();
    let found = codes(dir);
    assert!(found.contains(&"DX002"), "{found:?}");

    fs::remove_file(&data).unwrap();
    fs::write(&data, [0u8; 4096]).unwrap();
    let found = codes(dir);
    assert!(!found.contains(&"DX006"), "the file exists: {found:?}");
    for code in ["OX024", "DX007"] {
        assert!(found.contains(&code), "{code}: {found:?}");
    }
    // OX024 says rten refuses it, and it does.
    let loaded = rten::ModelOptions::with_all_ops().load_file(dir.join("model.onnx"));
    assert!(loaded.is_err(), "rten loads a non-UTF-8 location");
}

/// Real PyTorch exports re-saved with `size_threshold=0` (tests/fixtures/onnx/resaved, made by
/// tests/fixtures/gen/resave_threshold0.py): where onnxruntime refused to load one because
/// shape inference met external data, rtenx names that node under OX034; where it loaded,
/// rtenx reports no OX034. Neither is ever an error: the models are valid ONNX.
#[test]
fn resaved_real_models_get_ox034_exactly_where_onnxruntime_refuses() {
    let root = common::fixtures().join("onnx/resaved");
    let verdicts = fs::read_to_string(root.join("VERDICTS.tsv")).unwrap();
    let mut checked = 0;
    for line in verdicts.lines().skip(2) {
        let (model, ort) = line.split_once('\t').unwrap();
        let a = rtenx::analyze(&root.join(model).join("model.onnx")).unwrap();
        assert!(
            a.findings.iter().all(|f| f.severity != Severity::Error),
            "{model}: {:?}",
            a.findings
        );
        let flagged: Vec<String> = (a.findings.iter())
            .filter(|f| f.rule.code == "OX034")
            .map(|f| f.message.clone())
            .collect();
        if ort == "loads" {
            assert!(flagged.is_empty(), "{model} loads, yet: {flagged:?}");
        } else {
            assert!(
                ort.contains("Cannot parse data from external tensors"),
                "{ort}"
            );
            let node = ort.split("Node (").nth(1).and_then(|s| s.split(')').next());
            let node = format!("node \"{}\"", node.unwrap());
            assert!(
                flagged.iter().any(|m| m.contains(&node)),
                "{model}: onnxruntime refused at {node}, rtenx said {flagged:?}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 2);
}

/// 20,000 chained Relu nodes, each with an attribute Relu does not have and a declared
/// output type that differs from its input's: the schema and type findings are capped per
/// rule like any other, and each node is still checked.
#[test]
fn schema_and_type_findings_on_many_nodes_are_capped() {
    use prost::Message;
    use rtenx::formats::onnx::proto::{
        type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, TypeProto, ValueInfoProto,
    };
    let nodes = 20_000;
    let name = |i: usize| format!("v{i}");
    let typed = |name: String, elem_type: i32| ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem_type),
                shape: None,
            })),
        }),
    };
    let graph = GraphProto {
        node: (0..nodes)
            .map(|i| {
                NodeProto {
                    input: vec![name(i).into()],
                    output: vec![name(i + 1).into()],
                    op_type: Some("Relu".into()),
                    attribute: vec![AttributeProto {
                        name: Some("alpha".into()),
                        r#type: Some(1),
                        f: Some(0.5),
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .encode_to_vec()
                .into()
            })
            .collect(),
        input: vec![typed(name(0), 1)],
        output: vec![typed(name(nodes), 1)],
        // The values between are declared float16, which a float Relu cannot compute.
        value_info: (1..nodes).map(|i| typed(name(i), 10)).collect(),
        ..Default::default()
    };
    let bytes = ModelProto::with_graph(&graph, 21).encode_to_vec();
    let file = rtenx::source::ModelFile::in_memory("relus.onnx", bytes);
    let a = rtenx::analyze_file(&file);
    let count = |code: &str| a.findings.iter().filter(|f| f.rule.code == code).count();
    assert_eq!(count("OX038"), rtenx::check::PER_RULE + 1);
    assert_eq!(count("OX042"), rtenx::check::PER_RULE + 1);
    let more = format!("{} more OX038 findings", nodes - rtenx::check::PER_RULE);
    assert!(a.findings.iter().any(|f| f.message.starts_with(&more)));
}

/// The dynamo exporter's module paths (`pkg.torch.onnx.name_scopes` in each node's metadata)
/// are recorded for every node, and the scope tree's top level is the encoder's modules as
/// `make_torch_encoder.py` names them, though its node names (`node_MatMul_1`) say nothing.
#[test]
fn a_pytorch_export_records_each_nodes_module_and_its_scope_tree_follows_them() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx/torch_encoder/model.onnx");
    let analysis = rtenx::analyze(&path).unwrap();
    let inv = &analysis.inventory;
    let graph = &inv.graphs[0];
    let operators = graph
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, rtenx::inventory::NodeKind::Operator(_)));
    assert_eq!(
        graph.scopes.len(),
        operators.count(),
        "a module path for every node"
    );
    assert!(graph
        .nodes
        .iter()
        .all(|n| !n.name.as_bytes().contains(&b'/')));
    let tree = rtenx::inventory::ScopeTree::build(inv);
    let names = |scope| -> Vec<String> {
        let children = tree.children(scope).iter();
        children
            .map(|&c| tree.scopes[c as usize].name.display().into_owned())
            .collect()
    };
    assert_eq!(names(0), ["embed", "layers.0", "layers.1", "head"]);
    let layer = tree.children(0)[1];
    let mut inner = names(layer);
    inner.sort();
    assert_eq!(inner, ["attn", "ff.0", "ff.1", "ff.2", "norm"]);
    let root = &tree.scopes[0];
    let placed: u64 = tree
        .children(0)
        .iter()
        .map(|&c| tree.scopes[c as usize].operators)
        .sum();
    assert_eq!(placed, root.operators, "every operator is in a module");
}

/// rten's location rules are checked only for `--target rten`, once per location with the
/// number of tensors that use it: the 52 tensors of a healthy model in `weights.bin` are one
/// warning there, and none otherwise, so that `--deny warning` passes what onnxruntime loads.
#[test]
fn rten_locations_are_reported_once_and_only_for_rten() {
    let prepared = hostile::case("onnx", "OX024-one-file-two-tensors").prepare();
    let model = prepared.entry.to_str().unwrap();
    let (out, err, code) = common::rtenx(&["check", "--deny", "warning", model]);
    assert_eq!(code, 0, "{out}{err}");
    let (out, err, code) = common::rtenx(&["check", "--target", "rten", model]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("[OX024]").count(), 1, "{out}");
    assert!(
        out.contains("has extension \"bin\"; rten needs one starting `data` or `onnx_data` (2 tensors use it)"),
        "{out}"
    );
}
