//! `rtenx diff` on pairs made by the real tools (tests/fixtures/diff/gen.py): each section
//! has a pair where it must report something and one where it must not.

mod common;

use common::rtenx;
use rtenx::diff::{Aspect, Diff, Options};
use serde_json::Value;

const DIR: &str = "tests/fixtures/diff";

fn diff_with(a: &str, b: &str, options: &Options) -> Diff {
    let open = |name: &str| {
        let path = common::fixtures().join(name);
        rtenx::analyze(&path).unwrap()
    };
    Diff::of(&open(a), &open(b), options)
}

fn diff(a: &str, b: &str) -> Diff {
    diff_with(a, b, &Options::default())
}

fn values() -> Options {
    Options {
        values: true,
        ..Options::default()
    }
}

fn text(name: &rtenx::inventory::Name) -> String {
    name.display().into_owned()
}

/// The sections that differ.
fn differing(d: &Diff) -> Vec<Aspect> {
    use Aspect::*;
    [Files, Interface, Graph, Tensors, Values, Findings]
        .into_iter()
        .filter(|&a| d.differs(a))
        .collect()
}

#[test]
fn rten_convert_changes_nothing_but_the_file() {
    let d = diff_with("diff/convnet.onnx", "diff/convnet.rten", &values());
    assert_eq!(differing(&d), [Aspect::Files]);
    let format = d.files.format.as_ref().unwrap();
    assert_eq!((format.a, format.b), ("onnx", "rten"));
    // Every operator and tensor found its counterpart; the values are the same bytes.
    assert_eq!(d.graph.matched, 5);
    assert!(
        !d.graph.attributes_compared,
        "onnx and rten name attributes differently"
    );
    assert_eq!(d.tensors.matched, 4);
    let v = d.values.as_ref().unwrap();
    assert_eq!((v.compared, v.equal), (4, 4));
}

#[test]
fn files_section_is_empty_for_two_exports_of_one_size() {
    let d = diff("diff/mlp_a.onnx", "diff/mlp_b.onnx");
    assert!(d.files.is_empty(), "{:?}", d.files);
}

#[test]
fn interface_names_the_inputs_and_outputs_whose_shape_changed() {
    let d = diff("diff/mlp_a.onnx", "diff/mlp_dynamic.onnx");
    assert_eq!(differing(&d), [Aspect::Files, Aspect::Interface]);
    let input = &d.interface.inputs[0];
    assert_eq!(text(&input.name), "input");
    let shape = |p: &Option<rtenx::diff::Port>| {
        rtenx::inventory::display::shape_text(p.as_ref().unwrap().shape.as_deref())
    };
    assert_eq!(
        (shape(&input.a), shape(&input.b)),
        ("[2, 8]".into(), "[batch, 8]".into())
    );
    assert_eq!(d.interface.outputs.len(), 1);
    assert!(diff("diff/mlp_a.onnx", "diff/mlp_b.onnx")
        .interface
        .is_empty());
}

#[test]
fn graph_pairs_a_replaced_activation_and_nothing_else() {
    let d = diff("diff/mlp_a.onnx", "diff/mlp_b.onnx");
    assert_eq!(differing(&d), [Aspect::Graph]);
    assert_eq!(d.graph.matched, 4);
    let [change] = &d.graph.changed[..] else {
        panic!("{:?}", d.graph.changed)
    };
    assert_eq!(text(&change.a.name), "/middle/Relu");
    let op = change.op_type.as_ref().unwrap();
    assert_eq!((&*op.a, &*op.b), ("Relu", "Tanh"));
    assert!(d.graph.added.is_empty() && d.graph.removed.is_empty());
    assert!(diff("diff/mlp_a.onnx", "diff/mlp_dynamic.onnx")
        .graph
        .is_empty());
}

#[test]
fn quantisation_names_the_layers_it_replaced_and_the_weights_it_rewrote() {
    let d = diff("diff/mlp_a.onnx", "diff/mlp_a.quant.onnx");
    let removed: Vec<String> = d.graph.removed.iter().map(|n| text(&n.name)).collect();
    assert_eq!(removed, ["/fc1/Gemm", "/fc2/Gemm", "/fc3/Gemm"]);
    let added: Vec<&str> = d.graph.added.iter().map(|n| &*n.op_type).collect();
    assert_eq!(added.iter().filter(|&&op| op == "MatMulInteger").count(), 3);
    let gone: Vec<String> = d.tensors.removed.iter().map(|t| text(&t.name)).collect();
    assert_eq!(gone, ["fc1.weight", "fc2.weight", "fc3.weight"]);
    let quantized = (d.tensors.added.iter())
        .find(|t| text(&t.name) == "fc1.weight_Transposed_quantized")
        .unwrap();
    assert_eq!(quantized.dtype, Some(rtenx::inventory::DType::I8));
    // The biases were kept as they were.
    assert_eq!(d.tensors.matched, 3);
}

#[test]
fn tensors_found_under_another_name_are_renames_unless_mapped() {
    let d = diff("diff/ckpt.safetensors", "diff/ckpt_tuned.safetensors");
    assert_eq!(differing(&d), [Aspect::Files, Aspect::Tensors]);
    let [rename] = &d.tensors.renamed[..] else {
        panic!("{:?}", d.tensors.renamed)
    };
    assert_eq!(
        (text(&rename.a), text(&rename.b)),
        ("fc1.weight".into(), "layers.0.weight".into())
    );
    assert_eq!(rename.by, rtenx::diff::RenamedBy::Shape);
    let by_bytes = diff_with(
        "diff/ckpt.safetensors",
        "diff/ckpt_tuned.safetensors",
        &values(),
    );
    assert_eq!(
        by_bytes.tensors.renamed[0].by,
        rtenx::diff::RenamedBy::Bytes
    );
    let mapped = Options {
        renames: vec![r"^fc1\.(.*)=layers.0.$1".parse().unwrap()],
        ..Options::default()
    };
    let d = diff_with(
        "diff/ckpt.safetensors",
        "diff/ckpt_tuned.safetensors",
        &mapped,
    );
    assert!(d.tensors.is_empty(), "{:?}", d.tensors);
    assert_eq!(d.tensors.matched, 6);
    assert!(diff("diff/ckpt.pt", "diff/ckpt.safetensors")
        .tensors
        .is_empty());
}

#[test]
fn values_of_a_checkpoint_saved_twice_are_equal_and_of_a_tuned_one_are_not() {
    let d = diff_with("diff/ckpt.pt", "diff/ckpt.safetensors", &values());
    assert_eq!(differing(&d), [Aspect::Files]);
    let v = d.values.as_ref().unwrap();
    assert_eq!((v.compared, v.equal), (6, 6));
    assert!(v.not_compared.is_empty());

    let tolerant = Options {
        tolerance: 0.01,
        ..values()
    };
    let d = diff_with(
        "diff/ckpt.safetensors",
        "diff/ckpt_tuned.safetensors",
        &tolerant,
    );
    let v = d.values.as_ref().unwrap();
    let change = |name: &str| v.changed.iter().find(|c| text(&c.a) == name).unwrap();
    let nan = change("fc2.bias");
    assert_eq!(nan.numeric.unwrap().nan_appeared, 1);
    assert!(!nan.within_tolerance);
    let moved = change("fc3.weight");
    assert!(moved.within_tolerance);
    let n = moved.numeric.unwrap();
    assert!((n.max_abs - 0.001).abs() < 1e-5, "{n:?}");
    assert_eq!(n.differing, 0);
    assert_eq!((v.compared, v.equal), (6, 4));
}

#[test]
fn findings_are_new_in_b_and_fixed_in_a_by_code_and_item() {
    let (a, b) = ("rten/convnet.rten", "rten/bad/RT015-conv-no-attrs.rten");
    let d = diff(a, b);
    assert_eq!(differing(&d), [Aspect::Graph, Aspect::Findings]);
    let [new] = &d.findings.new[..] else {
        panic!("{:?}", d.findings)
    };
    assert_eq!(
        (new.code, new.item.as_deref()),
        ("RT015", Some("node \"conv2\""))
    );
    let back = diff(b, a);
    assert_eq!(back.findings.fixed.len(), 1);
    assert!(back.findings.new.is_empty());
    assert!(diff("diff/convnet.onnx", "diff/convnet.rten")
        .findings
        .is_empty());
}

#[test]
fn exit_codes_follow_fail_on() {
    let pair = |a: &str, b: &str| [format!("{DIR}/{a}"), format!("{DIR}/{b}")];
    let run = |args: &[&str], files: &[String; 2]| {
        let mut all = vec!["diff", &files[0], &files[1]];
        all.extend(args);
        rtenx(&all).2
    };
    let converted = pair("convnet.onnx", "convnet.rten");
    assert_eq!(run(&[], &converted), 0);
    assert_eq!(run(&["--values"], &converted), 0);
    assert_eq!(run(&["--fail-on", "files"], &converted), 1);
    let tuned = pair("ckpt.safetensors", "ckpt_tuned.safetensors");
    let mapped = ["--rename", r"^fc1\.(.*)=layers.0.$1"];
    assert_eq!(run(&mapped, &tuned), 0);
    assert_eq!(run(&[&mapped[..], &["--values"]].concat(), &tuned), 1);
    assert_eq!(
        run(&["--values", "--fail-on", "interface,graph"], &tuned),
        0
    );
    let missing = [format!("{DIR}/ckpt.pt"), format!("{DIR}/none.pt")];
    assert_eq!(run(&[], &missing), 2);
    assert_eq!(run(&["--tolerance", "-1"], &converted), 2);
}

#[test]
fn text_output_is_a_summary_then_the_sections_that_differ() {
    let (out, _, code) = rtenx(&[
        "diff",
        &format!("{DIR}/mlp_a.onnx"),
        &format!("{DIR}/mlp_b.onnx"),
        "--values",
    ]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn json_output_says_what_differs() {
    let (out, _, code) = rtenx(&[
        "diff",
        &format!("{DIR}/ckpt.pt"),
        &format!("{DIR}/ckpt_tuned.safetensors"),
        "--values",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["different"], true);
    assert_eq!(doc["files"]["format"]["b"], "safetensors");
    assert_eq!(doc["tensors"]["renamed"][0]["by"], "bytes");
    assert_eq!(doc["values"]["changed"].as_array().unwrap().len(), 2);
}

#[test]
fn names_are_escaped_in_text() {
    let tmp = tempfile::tempdir().unwrap();
    let odd = tmp.path().join("odd.rten");
    std::fs::write(&odd, common::mlp_with_escape_in_a_name()).unwrap();
    let (out, _, _) = rtenx(&[
        "diff",
        "tests/fixtures/rten/mlp.rten",
        odd.to_str().unwrap(),
    ]);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(out.contains("\\u{1b}"), "{out}");
}

/// Every fixture, hostile ones included, diffed against the next one in path order: no panic,
/// and each diff prints as text and as JSON.
#[test]
fn every_fixture_diffs_against_its_neighbour() {
    let found = rtenx::formats::scan::models_in(&common::fixtures());
    let analyses: Vec<_> = (found.files.iter())
        .filter_map(|f| rtenx::analyze(&f.path).ok().map(|a| (f.path.clone(), a)))
        .collect();
    assert!(analyses.len() > 100, "{}", analyses.len());
    for pair in analyses.windows(2) {
        let [(pa, a), (pb, b)] = pair else {
            unreachable!()
        };
        let d = Diff::of(a, b, &values());
        let mut out = Vec::new();
        rtenx::diff::text::write(&mut out, &d, [(pa, a), (pb, b)]).unwrap();
        d.write_json(&mut out, [pa, pb], false).unwrap();
        assert!(!out.contains(&0x1b), "{pa:?} {pb:?}");
    }
}

#[test]
fn data_files_pair_with_each_side() {
    let dir = "tests/fixtures/executorch/external";
    let (pte, ptd) = (
        format!("{dir}/linear.pte"),
        format!("{dir}/_default_external_constant.ptd"),
    );
    let (out, _, code) = rtenx(&[
        "diff", &pte, &pte, "--data-a", &ptd, "--data-b", &ptd, "--values", "--format", "json",
    ]);
    assert_eq!(code, 0, "{out}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            doc["values"]["compared"].as_u64(),
            doc["values"]["equal"].as_u64()
        ),
        (Some(2), Some(2))
    );
    assert_eq!(doc["values"]["not_compared"], serde_json::json!([]));
    let (_, err, code) = rtenx(&["diff", &pte, &pte, "--data-b", "no/such.ptd"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read --data no/such.ptd"), "{err}");
}
