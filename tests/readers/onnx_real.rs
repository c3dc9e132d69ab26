//! Real models from PyPI wheels and real exporters (tests/fixtures/gen/onnx_real_models.py)
//! against the verdicts onnx.checker (full_check) and onnxruntime gave when they were made
//! (tests/fixtures/onnx/real/manifest.tsv): rtenx reports an error wherever both refuse a
//! model, and none wherever both accept it. Models too large to commit are listed in the
//! manifest but not checked here; the script's `--corpus` run checks them all.

use crate::common;

use rtenx::check::Severity;
use std::fs;

#[test]
fn rtenx_agrees_with_onnx_and_onnxruntime_on_real_models() {
    let dir = common::fixtures().join("onnx/real");
    let manifest = fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    let (mut accepted, mut refused, mut wrong) = (0, 0, Vec::new());
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, _, _, checker, runtime, _] = cols[..] else {
            panic!("bad manifest row {line}")
        };
        let path = dir.join(format!("{name}.onnx"));
        if !path.exists() {
            continue;
        }
        let both_accept = checker == "accept" && runtime == "accept";
        let both_refuse = checker.starts_with("refuse") && runtime.starts_with("refuse");
        let analysis = rtenx::analyze(&path).unwrap();
        let errors: Vec<String> = (analysis.findings.iter())
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{} {}", f.rule.code, f.message))
            .collect();
        if both_accept {
            accepted += 1;
            if !errors.is_empty() {
                wrong.push(format!("{name}: both accept, rtenx says {errors:?}"));
            }
        } else if both_refuse {
            refused += 1;
            if errors.is_empty() {
                wrong.push(format!(
                    "{name}: both refuse ({checker}), rtenx finds no error"
                ));
            }
        }
    }
    assert!(
        accepted >= 8 && refused >= 2,
        "{accepted} accepted, {refused} refused"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The case: onnxconverter-common's float16 conversion leaves the model's last Cast
/// computing float16 into a value declared float.
#[test]
fn a_float16_conversion_that_leaves_a_cast_declared_float_is_a_type_mismatch() {
    let path = common::fixtures().join("onnx/real/cast_tail_fp16_keepio.onnx");
    let analysis = rtenx::analyze(&path).unwrap();
    let mismatch: Vec<&str> = (analysis.findings.iter())
        .filter(|f| f.rule.code == "OX042")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(mismatch.len(), 1, "{:?}", analysis.findings);
    assert!(
        mismatch[0].contains("Cast")
            && mismatch[0].contains("as f32")
            && mismatch[0].contains("f16"),
        "{}",
        mismatch[0]
    );
}

/// ONNX-ML operators keep their weights in float-list attributes: skl2onnx's
/// LinearRegression on iris (4 features, one target) has 4 coefficients and 1 intercept and
/// no tensor at all, so its 5 parameters are all in attributes; a PyTorch export has none.
#[test]
fn weights_held_in_attributes_count_as_parameters() {
    let dir = common::fixtures().join("onnx");
    let totals = |path: &str| rtenx::analyze(&dir.join(path)).unwrap().inventory.totals();
    let linear = totals("real/skl_linear.onnx");
    assert_eq!((linear.tensors, linear.parameters), (0, 5));
    assert_eq!(linear.attribute_parameters, 5);
    let forest = totals("real/skl_forest.onnx");
    assert!(forest.attribute_parameters > 0 && forest.parameters == forest.attribute_parameters);
    let gpt2 = totals("torch_gpt2/model.onnx");
    assert_eq!(gpt2.attribute_parameters, 0);
    assert!(gpt2.parameters > 5000);
}

/// skl2onnx's ZipMap output is a sequence of maps, which prints as its type rather than as an
/// unknown tensor.
#[test]
fn a_zipmap_output_prints_as_a_sequence_of_maps() {
    let path = common::fixtures().join("onnx/real/skl_forest_zipmap.onnx");
    let inv = rtenx::analyze(&path).unwrap().inventory;
    let graph = &inv.graphs[0];
    let types: Vec<Option<&str>> = (graph.outputs.iter())
        .filter_map(|&id| match graph.node(id)?.kind {
            rtenx::inventory::NodeKind::Value(v) => Some(v.composite.as_ref().map(|c| &*c.0)),
            _ => None,
        })
        .collect();
    assert_eq!(types, [None, Some("seq(map(i64, tensor(f32)))")]);
}
