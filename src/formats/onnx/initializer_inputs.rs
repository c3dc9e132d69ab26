//! Before IR version 4, every initializer had to be a graph input too (OX035).
//!
//! An initializer then only gave a default value to an input; IR 4 made them independent.
//! onnx.checker still holds IR 1..=3 models to the old rule, in every graph; onnxruntime
//! does not.

use super::rules::INITIALIZER_NOT_INPUT;
use crate::check::{Findings, Item, Place};
use crate::inventory::{Inventory, NodeKind};

/// The first IR version in which an initializer need not be a graph input.
const IR_INDEPENDENT_INITIALIZERS: i64 = 4;

/// Reports every initializer, in every graph, that is not also an input of its graph, when
/// the model's `ir_version` is from before initializers stood on their own.
pub(super) fn check(inv: &Inventory, ir_version: Option<i64>, out: &mut Findings) {
    let Some(ir) = ir_version.filter(|&v| (1..IR_INDEPENDENT_INITIALIZERS).contains(&v)) else {
        return;
    };
    for graph in &inv.graphs {
        // An initializer listed as an input is that input's node, so ids answer the
        // question without names.
        let mut inputs = graph.inputs.clone();
        inputs.sort_unstable();
        for (id, node) in graph.nodes_with_ids() {
            let NodeKind::Constant { tensor } = node.kind else {
                continue;
            };
            if inputs.binary_search(&id).is_ok() {
                continue;
            }
            let Some(name) = inv.tensors.get(tensor).map(|t| &t.name) else {
                continue;
            };
            out.add(
                &INITIALIZER_NOT_INPUT,
                Place::at(node.offset).item(Item::Tensor { tensor }),
                format!(
                    "initializer \"{name}\" is not an input of its graph; the model's \
ir_version is {ir}, and before IR version {IR_INDEPENDENT_INITIALIZERS} every initializer must \
also be listed as an input"
                ),
            );
        }
    }
}
