//! Cross-checks against the `rten` crate's own loader: every file rtenx calls valid must load
//! in rten 0.27, with the same nodes, names, inputs and outputs.

mod common;

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

#[test]
fn valid_fixtures_load_in_rten_with_the_same_graph() {
    for path in common::valid_rten() {
        let analysis = rtenx::analyze(&path).unwrap();
        let errors: Vec<_> = analysis
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());

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
