//! Cross-checks against the `rten` crate's own loader: every file rtenx calls valid must load
//! in rten 0.27, with the same nodes, names, inputs and outputs.

use crate::common;

use rten::{ModelOptions, NodeId};
use rtenx::check::Severity;
use rtenx::inventory::NodeKind;

/// Loads with rten as strictly as it loads by default, minus graph optimisation (which
/// rewrites the graph, so node indices would no longer match the file).
fn rten_load(bytes: Vec<u8>) -> Result<rten::Model, rten::LoadError> {
    ModelOptions::with_all_ops()
        .enable_optimization(false)
        .load(bytes)
}

/// Analyses a valid fixture, which must have no error or warning (infos, such as unaligned
/// external data, are advice).
fn analyze_valid(path: &std::path::Path) -> rtenx::Analysis {
    let analysis = rtenx::analyze(path).unwrap();
    let problems: Vec<_> = analysis
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .collect();
    assert!(problems.is_empty(), "{}: {problems:?}", path.display());
    analysis
}

#[test]
fn valid_fixtures_load_in_rten_with_the_same_graph() {
    for path in common::valid_rten() {
        let analysis = analyze_valid(&path);

        let model = rten_load(std::fs::read(&path).unwrap()).unwrap_or_else(|e| {
            panic!(
                "{}: rten refuses a file rtenx calls valid: {e}",
                path.display()
            )
        });
        let main = &analysis.inventory.graphs[0];
        let ids = |ids: &[NodeId]| ids.iter().map(|id| id.as_u32()).collect::<Vec<_>>();
        assert_eq!(
            ids(model.input_ids()),
            main.inputs,
            "{}: inputs",
            path.display()
        );
        assert_eq!(
            ids(model.output_ids()),
            main.outputs,
            "{}: outputs",
            path.display()
        );

        let rten_nodes = (0..)
            .take_while(|&i| model.node_info(NodeId::from_u32(i)).is_some())
            .count();
        assert_eq!(
            rten_nodes,
            main.nodes.len(),
            "{}: node count",
            path.display()
        );
        for (i, node) in (0u32..).zip(&main.nodes) {
            let info = model.node_info(NodeId::from_u32(i)).unwrap();
            assert_eq!(
                info.name().unwrap_or(""),
                node.name.as_str().unwrap(),
                "{}: node {i}",
                path.display()
            );
        }
        let constants = main
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Constant { .. }))
            .count();
        assert!(
            constants > 0,
            "{}: fixture should have constants",
            path.display()
        );
    }
}

/// Valid ONNX fixtures that rten 0.27 cannot load, and why. rtenx reads them as valid ONNX.
const RTEN_ONNX_GAPS: &[(&str, &str)] = &[
    (
        "functions",
        "rten does not expand model-local FunctionProtos (custom-domain operator)",
    ),
    (
        "typed_fields",
        "rten has no UINT64 tensors (valid ONNX: uint64_data)",
    ),
    ("subgraphs", "rten has no Scan operator"),
    (
        "sparse",
        "rten does not read Constant sparse_value attributes",
    ),
];

#[test]
fn valid_onnx_fixtures_agree_with_rten_where_rten_reads_them() {
    let mut dirs: Vec<_> = std::fs::read_dir(common::fixtures().join("onnx"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("model.onnx").exists())
        .collect();
    dirs.sort();
    let mut report = Vec::new();
    for dir in dirs {
        let path = dir.join("model.onnx");
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let analysis = analyze_valid(&path);
        let loaded = ModelOptions::with_all_ops()
            .enable_optimization(false)
            .load_file(&path);
        match (loaded, RTEN_ONNX_GAPS.iter().find(|(n, _)| *n == name)) {
            (Ok(model), None) => {
                let main = &analysis.inventory.graphs[0];
                let names = |ids: &[NodeId]| -> Vec<String> {
                    ids.iter()
                        .map(|&id| {
                            model
                                .node_info(id)
                                .and_then(|i| i.name().map(str::to_owned))
                                .unwrap_or_default()
                        })
                        .collect()
                };
                let ours = |ids: &[u32]| -> Vec<String> {
                    ids.iter()
                        .map(|&id| main.node(id).unwrap().name.to_string())
                        .collect()
                };
                assert_eq!(
                    names(model.output_ids()),
                    ours(&main.outputs),
                    "{name}: outputs"
                );
                let inputs = names(model.input_ids());
                for input in &inputs {
                    assert!(
                        ours(&main.inputs).contains(input),
                        "{name}: rten input {input} unknown to rtenx"
                    );
                }
            }
            (Err(e), Some((_, why))) => {
                report.push(format!("{name}: rten refuses ({e}); known: {why}"))
            }
            (Err(e), None) => panic!("{name}: rten refuses a model rtenx calls valid: {e}"),
            (Ok(_), Some(_)) => panic!("{name}: rten now loads it; remove it from RTEN_ONNX_GAPS"),
        }
    }
    eprintln!("{}", report.join("\n"));
}

/// The rule codes rtenx reports for the model at `path`.
fn codes_of(path: &std::path::Path) -> Vec<&'static str> {
    let analysis = rtenx::analyze(path).unwrap();
    analysis.findings.iter().map(|f| f.rule.code).collect()
}

/// OX024 says "valid ONNX, but rten refuses this location": checked for rten, rten must
/// refuse exactly the hostile-fixture cases (whose setup makes no file) that carry it, and load
/// the `ok-` cases whose locations rtenx accepts.
#[test]
fn rten_refuses_exactly_the_locations_rtenx_says_it_does() {
    let mut refused = std::collections::BTreeSet::new();
    let mut accepted = std::collections::BTreeSet::new();
    for case in common::hostile::cases("onnx") {
        if !matches!(case.setup.as_str(), "-" | "target rten") {
            continue;
        } else if case.rows.iter().any(|r| r.code == "OX024") {
            refused.insert(case.path());
        } else if case.rows.is_empty() && case.unit().starts_with("ok-") {
            accepted.insert(case.path());
        }
    }
    assert!(
        refused.len() >= 3 && accepted.len() >= 2,
        "{refused:?} {accepted:?}"
    );
    let for_rten = rtenx::formats::ReadOptions {
        target: Some(rtenx::formats::Target::Rten),
        ..Default::default()
    };
    for path in refused.iter().chain(&accepted) {
        let case = path.display();
        let analysis = rtenx::analyze_with(path, &for_rten).unwrap();
        let codes: Vec<_> = analysis.findings.iter().map(|f| f.rule.code).collect();
        assert_eq!(
            codes.contains(&"OX024"),
            refused.contains(path),
            "{case}: {codes:?}"
        );
        let loaded = ModelOptions::with_all_ops()
            .enable_optimization(false)
            .load_file(path);
        assert_eq!(
            loaded.is_err(),
            refused.contains(path),
            "{case}: rten says {:?}",
            loaded.err()
        );
    }
}

/// RX010 on ONNX external data: rten reads the model from a file, but its memory-mapped
/// loader refuses an external tensor whose offset is not a multiple of its element size
/// ("data has incorrect alignment"), as the rule's explanation says.
#[test]
fn rten_maps_no_external_tensor_that_rtenx_calls_misaligned() {
    let path = common::fixtures().join("onnx/bad/RX010-misaligned/model.onnx");
    let codes = codes_of(&path);
    assert!(codes.contains(&"RX010"), "{codes:?}");
    let options = ModelOptions::with_all_ops();
    assert!(
        options.load_file(&path).is_ok(),
        "rten reads it from a file"
    );
    // SAFETY: the fixture is not modified while it is mapped.
    let mapped = unsafe { options.load_mmap(&path) };
    let error = mapped.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("alignment"), "rten maps it: {error:?}");
}
