//! `rtenx diff` on pairs made by the real tools (tests/fixtures/diff/gen.py, and the real
//! exports and conversions of tests/fixtures/onnx): each section has a pair where it must
//! report something and one where it must not.

use crate::common;

use common::rtenx;
use rtenx::diff::{Aspect, Diff, Options};
use serde_json::Value;

const DIR: &str = "tests/fixtures/diff";

/// `rtenx diff` on fixtures `a` and `b` of [`DIR`] with `options`: stdout and the exit code.
fn run_diff(a: &str, b: &str, options: &[&str]) -> (String, i32) {
    let (a, b) = (format!("{DIR}/{a}"), format!("{DIR}/{b}"));
    let mut args = vec!["diff", &a, &b];
    args.extend_from_slice(options);
    let (out, _, code) = rtenx(&args);
    (out, code)
}

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

/// Operators listed as removed and as added under one name and type: the same operator,
/// which the pairing missed.
fn both_removed_and_added(d: &Diff) -> Vec<String> {
    let key = |n: &rtenx::diff::NodeRef| format!("{} {}", n.op_type, text(&n.name));
    let removed: std::collections::HashSet<String> = d.graph.removed.iter().map(key).collect();
    (d.graph.added.iter().map(key))
        .filter(|k| removed.contains(k))
        .collect()
}

/// Operator types of a list, each with its count.
fn types(nodes: &[rtenx::diff::NodeRef]) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for n in nodes {
        *out.entry(n.op_type.to_string()).or_default() += 1;
    }
    out
}

/// Operators of different types paired: only where one replaced the other in place.
fn cross_type(d: &Diff) -> usize {
    d.graph
        .changed
        .iter()
        .filter(|c| c.op_type.is_some())
        .count()
}

/// (paired, added, removed) operators.
fn paired(d: &Diff) -> (u64, u64, u64) {
    let o = &d.summary.operators;
    (o.paired, o.added, o.removed)
}

#[test]
fn quantisation_pairs_every_operator_it_kept_though_it_reorders_them() {
    // onnxruntime's quantize_dynamic writes the nodes in another order: the pairing goes by
    // name and type, then along the links, never by position.
    let cases = [
        ("diff/encoder.onnx", "diff/encoder.quant.onnx", (72, 25, 5)),
        (
            "onnx/torch_gpt2/model.onnx",
            "onnx/real/torch_gpt2_qdyn.onnx",
            (184, 55, 9),
        ),
        ("diff/mlp_a.onnx", "diff/mlp_a.quant.onnx", (2, 18, 3)),
    ];
    for (a, b, expected) in cases {
        let d = diff(a, b);
        assert_eq!(paired(&d), expected, "{a}");
        assert_eq!(both_removed_and_added(&d), Vec::<String>::new(), "{a}");
        assert_eq!(cross_type(&d), 0, "{a}");
        // Only what the quantiser rewrote is gone, and nothing of its kind came back.
        let (removed, added) = (types(&d.graph.removed), types(&d.graph.added));
        assert!(
            removed.keys().all(|t| t == "MatMul" || t == "Gemm"),
            "{a}: {removed:?}"
        );
        assert!(
            removed.keys().all(|t| !added.contains_key(t)),
            "{a}: {added:?}"
        );
        assert!(added.contains_key("MatMulInteger"), "{a}: {added:?}");
    }
}

#[test]
fn a_quantised_embedding_is_listed_under_the_gather_that_reads_it() {
    let d = diff("diff/encoder.onnx", "diff/encoder.quant.onnx");
    let [change] = &d.graph.changed[..] else {
        panic!("{:?}", d.graph.changed)
    };
    assert_eq!(
        (text(&change.a.name), text(&change.b.name)),
        ("/embed/Gather".into(), "/embed/Gather".into())
    );
    assert!(change.op_type.is_none() && change.attributes.is_empty());
    let [held] = &change.tensors[..] else {
        panic!("{:?}", change.tensors)
    };
    assert_eq!(held.input, Some(0));
    let c = &held.change;
    assert_eq!(
        (text(&c.a), text(&c.b)),
        ("embed.weight".into(), "embed.weight_quantized".into())
    );
    use rtenx::inventory::DType;
    let dtype = c.dtype.as_ref().unwrap();
    assert_eq!((dtype.a, dtype.b), (Some(DType::F32), Some(DType::U8)));
    // The tensors section pairs them too, as read by one operator.
    let rename = &d.tensors.renamed[0];
    assert_eq!(
        (text(&rename.a), rename.by),
        ("embed.weight".into(), rtenx::diff::RenamedBy::Operator)
    );
}

#[test]
fn a_re_export_pairs_every_operator_the_other_exporter_renamed() {
    // The TorchScript exporter names nodes `/attn/Reshape`, the dynamo exporter `node_view`:
    // no name is shared, so every pair comes from the graph's links.
    let d = diff("diff/encoder.static.onnx", "diff/encoder.dynamo.onnx");
    assert_eq!(paired(&d), (29, 0, 8));
    assert_eq!(cross_type(&d), 0);
    let renamed = |c: &rtenx::diff::NodeChange| text(&c.a.name) != text(&c.b.name);
    assert!(d.graph.changed.iter().all(renamed));
    // What only A has is the TorchScript exporter's own: constants as nodes, and copies of
    // shared weights.
    let removed = types(&d.graph.removed);
    assert_eq!(
        removed.into_iter().collect::<Vec<_>>(),
        [("Constant".into(), 6), ("Identity".into(), 2)]
    );
    // The transposed weights, which the exporters name after nothing, pair through the
    // MatMuls that read them; the values of A's constant nodes with B's initializers.
    let by_operator: Vec<String> = (d.tensors.renamed.iter())
        .filter(|r| r.by == rtenx::diff::RenamedBy::Operator)
        .map(|r| text(&r.a))
        .collect();
    let weights = by_operator
        .iter()
        .filter(|n| n.starts_with("onnx::MatMul_"));
    let constants = by_operator
        .iter()
        .filter(|n| n.starts_with("/attn/Constant"));
    assert_eq!(
        (weights.count(), constants.count()),
        (5, 3),
        "{by_operator:?}"
    );
    // The split sizes became an attribute, and B reads one shape in three places.
    assert_eq!(d.tensors.removed.len(), 3);
    assert!(d.tensors.added.is_empty());
}

#[test]
fn pairs_of_real_conversions_keep_every_operator() {
    let cases = [
        (
            "onnx/torch_gpt2/model.onnx",
            "onnx/real/torch_gpt2_fp16.onnx",
            (193, 0, 0),
        ),
        (
            "onnx/torch_gpt2/model.onnx",
            "onnx/resaved/torch_gpt2/model.onnx",
            (193, 0, 0),
        ),
        (
            "onnx/torch_llama/model.onnx",
            "onnx/resaved/torch_llama/model.onnx",
            (187, 0, 0),
        ),
        (
            "onnx/real/cast_tail.onnx",
            "onnx/real/cast_tail_fp16_keepio.onnx",
            (3, 2, 0),
        ),
        (
            "onnx/real/skl_linear.onnx",
            "onnx/real/skl_linear_fp16.onnx",
            (1, 2, 0),
        ),
        ("rten/src/quantized.onnx", "rten/quantized.rten", (9, 0, 0)),
    ];
    for (a, b, expected) in cases {
        let d = diff(a, b);
        assert_eq!(paired(&d), expected, "{a} {b}");
        assert_eq!(cross_type(&d), 0, "{a} {b}");
        let added = types(&d.graph.added);
        assert!(added.keys().all(|t| t == "Cast"), "{a} {b}: {added:?}");
    }
}

#[test]
fn the_summary_counts_operators_parameters_and_bytes_from_a_to_b() {
    let d = diff("diff/encoder.onnx", "diff/encoder.quant.onnx");
    let s = &d.summary;
    let o = &s.operators;
    assert_eq!((o.a, o.b, o.replaced), (77, 97, 0));
    assert_eq!(o.a, o.paired + o.replaced + o.removed);
    assert_eq!(o.b, o.paired + o.replaced + o.added);
    assert_eq!((s.parameters.a, s.parameters.b), (2795, 2807));
    assert_eq!((s.bytes.a, s.bytes.b), (11268, 3426));
    let replaced = diff("diff/mlp_a.onnx", "diff/mlp_b.onnx").summary.operators;
    assert_eq!((replaced.paired, replaced.replaced), (4, 1));
}

#[test]
fn values_name_the_tensors_they_could_not_pair_and_never_call_them_the_same() {
    let d = diff_with("diff/encoder.onnx", "diff/encoder.quant.onnx", &values());
    let v = d.values.as_ref().unwrap();
    assert_eq!((v.unpaired_a, v.unpaired_b), (5, 17));
    assert_eq!((v.compared, v.equal), (28, 28));
    assert!(d.differs(Aspect::Values));
    let (out, code) = run_diff("encoder.onnx", "encoder.quant.onnx", &["--values"]);
    assert_eq!(code, 1);
    let line = out.lines().find(|l| l.starts_with(" values")).unwrap();
    assert!(!line.contains("same"), "{line}");
    assert!(
        line.contains("5 tensors in A and 17 in B could not be paired: values not compared"),
        "{line}"
    );
    // Every tensor paired: nothing to say beyond the pairs.
    let all = diff_with("diff/mlp_a.onnx", "diff/mlp_b.onnx", &values());
    let v = all.values.as_ref().unwrap();
    assert_eq!((v.unpaired_a, v.unpaired_b), (0, 0));
    assert!(!all.differs(Aspect::Values));
}

#[test]
fn all_lifts_the_cut_of_long_lists() {
    let pair = [
        "tests/fixtures/onnx/torch_gpt2/model.onnx",
        "tests/fixtures/onnx/real/torch_gpt2_qdyn.onnx",
    ];
    let (cut, _, _) = rtenx(&["diff", pair[0], pair[1]]);
    assert!(cut.contains("  … and 5 more (--all lists them)\n"), "{cut}");
    let (all, _, _) = rtenx(&["diff", pair[0], pair[1], "--all"]);
    assert!(!all.contains("… and"), "{all}");
    let added = |out: &str| out.lines().filter(|l| l.starts_with("+ ")).count();
    // A metadata key, 55 operators and 31 tensors only B has.
    assert_eq!((added(&cut), added(&all)), (1 + 50 + 31, 1 + 55 + 31));
}

#[test]
fn text_of_a_quantised_model_lists_what_the_quantiser_rewrote() {
    let (out, code) = run_diff("encoder.onnx", "encoder.quant.onnx", &["--values"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn text_of_a_re_export_pairs_renamed_operators() {
    let (out, code) = run_diff("encoder.static.onnx", "encoder.dynamo.onnx", &[]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
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
    let (out, code) = run_diff("mlp_a.onnx", "mlp_b.onnx", &["--values"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn json_output_says_what_differs() {
    let (out, code) = run_diff(
        "ckpt.pt",
        "ckpt_tuned.safetensors",
        &["--values", "--format", "json"],
    );
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["different"], true);
    assert_eq!(doc["files"]["format"]["b"], "safetensors");
    assert_eq!(doc["tensors"]["renamed"][0]["by"], "bytes");
    assert_eq!(doc["values"]["changed"].as_array().unwrap().len(), 2);
    let operators = &doc["summary"]["operators"];
    assert_eq!(
        (operators["a"].as_u64(), operators["paired"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(
        doc["summary"]["parameters"]["a"],
        doc["summary"]["parameters"]["b"]
    );
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
        rtenx::diff::text::write(
            &mut out,
            &d,
            [(pa, a), (pb, b)],
            rtenx::diff::text::Lists::All,
        )
        .unwrap();
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

/// Two graphs no name or order helps with: `x` read by 100,000 unnamed Relus, each read with
/// `x` by an unnamed Add, all read by one Concat; B writes the nodes in reverse order. Every
/// consumer of `x` is alike, and the Concat reads 100,000 values: the pairing still pairs
/// every operator, in time and memory linear in the links.
#[cfg(target_os = "linux")]
#[test]
fn a_graph_of_alike_operators_pairs_in_bounded_time_and_memory() {
    use prost::Message;
    use rtenx::formats::onnx::proto::{GraphProto, ModelProto, NodeProto, ValueInfoProto};
    const N: usize = 100_000;
    let text = |s: String| -> Option<bytes::Bytes> { Some(s.into_bytes().into()) };
    let node = |op: &str, inputs: Vec<String>, output: String| NodeProto {
        input: inputs.into_iter().map(|s| s.into_bytes().into()).collect(),
        output: vec![output.into_bytes().into()],
        op_type: text(op.to_owned()),
        ..NodeProto::default()
    };
    let mut nodes: Vec<NodeProto> = (0..N)
        .flat_map(|i| {
            [
                node("Relu", vec!["x".into()], format!("r{i}")),
                node("Add", vec![format!("r{i}"), "x".into()], format!("a{i}")),
            ]
        })
        .collect();
    nodes.push(node(
        "Concat",
        (0..N).map(|i| format!("a{i}")).collect(),
        "y".into(),
    ));
    let port = |name: &str| ValueInfoProto {
        name: text(name.to_owned()),
        r#type: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, nodes: Vec<NodeProto>| {
        let graph = GraphProto {
            node: nodes.iter().map(|n| n.encode_to_vec().into()).collect(),
            input: vec![port("x")],
            output: vec![port("y")],
            ..GraphProto::default()
        };
        let model = ModelProto::with_graph(&graph, 17).encode_to_vec();
        std::fs::write(dir.path().join(file), model).unwrap();
    };
    write("a.onnx", nodes.clone());
    nodes.reverse();
    write("b.onnx", nodes);
    let run = common::bounded::run_in(dir.path(), &["diff", "a.onnx", "b.onnx"]);
    run.assert_bounded("diff of 200,001 alike operators");
    assert!(
        run.stdout
            .contains("operators 200,001 -> 200,001 (200,001 paired)"),
        "{}",
        &run.stdout[..run.stdout.len().min(2000)]
    );
}
