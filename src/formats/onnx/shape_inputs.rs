//! Inputs that shape inference reads as data, stored as external data (OX034).
//!
//! onnx's shape inference reads the values of some inputs, such as Reshape's target shape,
//! when they are initializers. onnxruntime runs it while loading, and its inference context
//! cannot read an initializer whose data is external: the model is refused with "Cannot parse
//! data from external tensors". `onnx.save_model(..., size_threshold=0)` moves exactly these
//! small tensors out, so valid models hit it.

use super::rules::SHAPE_INPUT_EXTERNAL;
use crate::check::{Findings, Item, Place};
use crate::inventory::hashing::HashMap;
use crate::inventory::{Graph, GraphId, Inventory, Name, NodeId, NodeKind, OpRef, Storage};

/// Input indices with their names in the operator's schema.
type Inputs = &'static [(usize, &'static str)];

/// Inputs that shape inference reads as data, for an operator of the default domain: for each
/// opset version from which they hold, the input indices with their names. Each was taken from
/// onnx's shape inference (`getInputData`) and refused by onnxruntime 1.32 in a test model. A
/// `match` rather than a table, because this runs for every operator of the model.
fn entries(op_type: &str) -> &'static [(i64, Inputs)] {
    match op_type {
        "BlackmanWindow" => &[(17, &[(0, "size")])],
        "CenterCropPad" => &[(18, &[(1, "shape")])],
        "Col2Im" => &[(18, &[(1, "image_shape"), (2, "block_shape")])],
        "ConstantOfShape" => &[(9, &[(0, "input")])],
        "DFT" => &[
            (17, &[(1, "dft_length")]),
            (20, &[(1, "dft_length"), (2, "axis")]),
        ],
        "Expand" => &[(8, &[(1, "shape")])],
        "HammingWindow" => &[(17, &[(0, "size")])],
        "HannWindow" => &[(17, &[(0, "size")])],
        "MelWeightMatrix" => &[(17, &[(0, "num_mel_bins"), (1, "dft_length")])],
        "OneHot" => &[(9, &[(1, "depth")])],
        "Pad" => &[(11, &[(1, "pads")]), (18, &[(1, "pads"), (3, "axes")])],
        "Range" => &[(11, &[(0, "start"), (1, "limit"), (2, "delta")])],
        "ReduceL1" => &[(18, &[(1, "axes")])],
        "ReduceL2" => &[(18, &[(1, "axes")])],
        "ReduceLogSum" => &[(18, &[(1, "axes")])],
        "ReduceLogSumExp" => &[(18, &[(1, "axes")])],
        "ReduceMax" => &[(18, &[(1, "axes")])],
        "ReduceMean" => &[(18, &[(1, "axes")])],
        "ReduceMin" => &[(18, &[(1, "axes")])],
        "ReduceProd" => &[(18, &[(1, "axes")])],
        "ReduceSum" => &[(13, &[(1, "axes")])],
        "ReduceSumSquare" => &[(18, &[(1, "axes")])],
        "Reshape" => &[(5, &[(1, "shape")])],
        "Resize" => &[(10, &[(1, "scales")]), (11, &[(2, "scales"), (3, "sizes")])],
        "STFT" => &[(17, &[(1, "frame_step"), (3, "frame_length")])],
        "Slice" => &[(10, SLICE)],
        "Split" => &[(13, &[(1, "split")])],
        "SplitToSequence" => &[(11, &[(1, "split")])],
        "Squeeze" => &[(13, &[(1, "axes")])],
        "Tile" => &[(6, &[(1, "repeats")])],
        "TopK" => &[(10, &[(1, "K")])],
        "Unsqueeze" => &[(13, &[(1, "axes")])],
        "Upsample" => &[(9, &[(1, "scales")])],
        _ => &[],
    }
}

/// Slice reads its inputs as data only when every one of them that is present is an
/// initializer; otherwise inference stops before reading any.
const SLICE: Inputs = &[(1, "starts"), (2, "ends"), (3, "axes"), (4, "steps")];

/// The inputs of `op_type` that shape inference reads as data at `opset`: those of the last
/// entry whose version is at most `opset`.
fn read_as_data(op_type: &str, opset: i64) -> Inputs {
    (entries(op_type).iter())
        .rfind(|(since, _)| *since <= opset)
        .map_or(&[], |(_, inputs)| inputs)
}

/// Reports every input of a default-domain operator, in every graph, that shape inference
/// would read from an external initializer. `opset` is the imported default-domain version.
pub(super) fn check(inv: &Inventory, opset: Option<i64>, out: &mut Findings) {
    let Some(opset) = opset else {
        return;
    };
    let mut scopes = Scopes::default();
    for (g, graph) in inv.graphs.iter().enumerate() {
        for (n, node) in graph.nodes_with_ids() {
            let NodeKind::Operator(op) = &node.kind else {
                continue;
            };
            if op.domain().is_some_and(|d| d != "ai.onnx") {
                continue;
            }
            let inputs = read_as_data(op.op_type(), opset);
            if inputs.is_empty() {
                continue;
            }
            let mut constant = |i: usize| scopes.constant(inv, g, op.inputs().get(i).copied()??);
            let all_constant = op.op_type() != "Slice"
                || inputs.iter().all(|&(i, _)| match op.inputs().get(i) {
                    Some(Some(_)) => constant(i).is_some(),
                    _ => true,
                });
            if !all_constant {
                continue;
            }
            let external: Vec<(&str, &Name)> = (inputs.iter())
                .filter_map(|&(i, input)| {
                    let t = inv.tensors.get(constant(i)?)?;
                    (t.storage == Storage::External).then_some((input, &t.name))
                })
                .collect();
            if !external.is_empty() {
                let item = Item::Node { graph: g, node: n };
                out.add(
                    &SHAPE_INPUT_EXTERNAL,
                    Place::at(node.offset).item(item),
                    message(op, node.name, &external),
                );
            }
        }
    }
}

fn message(op: &OpRef, node: &Name, external: &[(&str, &Name)]) -> String {
    let list = |f: &dyn Fn(&(&str, &Name)) -> String| {
        external.iter().map(f).collect::<Vec<_>>().join(", ")
    };
    let inputs = list(&|(input, _)| format!("`{input}`"));
    let tensors = list(&|(_, tensor)| format!("\"{tensor}\""));
    let (s, are) = if external.len() == 1 {
        ("", "is")
    } else {
        ("s", "are")
    };
    format!(
        "{} node \"{node}\" reads its {inputs} input{s} from initializer{s} {tensors}, which \
{are} stored as external data; onnxruntime's shape inference reads {} while loading and \
refuses the model (\"Cannot parse data from external tensors\"): keep {} inside the .onnx file",
        op.op_type(),
        if s.is_empty() {
            "that input"
        } else {
            "those inputs"
        },
        if s.is_empty() { "it" } else { "them" },
    )
}

/// Finds the initializer behind a node id, following names captured from enclosing graphs.
#[derive(Default)]
struct Scopes<'i> {
    /// Per graph, its initializers and captures by name, built when first needed.
    names: HashMap<GraphId, HashMap<&'i [u8], NodeId>>,
}

impl<'i> Scopes<'i> {
    /// The tensor of the initializer that node `id` of graph `g` is or captures.
    fn constant(&mut self, inv: &'i Inventory, mut g: GraphId, mut id: NodeId) -> Option<usize> {
        // Each step moves to an enclosing graph, so this ends; the bound guards a cycle of
        // parents in a hostile inventory all the same.
        for _ in 0..inv.graphs.len() {
            let graph = inv.graphs.get(g)?;
            let node = graph.node(id)?;
            match &node.kind {
                NodeKind::Constant { tensor } => return Some(*tensor),
                NodeKind::Value(_) => {
                    let name = node.name.as_bytes();
                    // A value is captured if its graph defines its name by that node.
                    if self.names(inv, g).get(name) != Some(&id) {
                        return None;
                    }
                    g = graph.parent?.graph;
                    id = *self.names(inv, g).get(name)?;
                }
                _ => return None,
            }
        }
        None
    }

    fn names(&mut self, inv: &'i Inventory, g: GraphId) -> &HashMap<&'i [u8], NodeId> {
        self.names
            .entry(g)
            .or_insert_with(|| inv.graphs.get(g).map_or_else(HashMap::default, definitions))
    }
}

/// The initializers and captured values of `graph`, by name: the names through which a
/// subgraph can reach an initializer.
fn definitions(graph: &Graph) -> HashMap<&[u8], NodeId> {
    let captures = graph
        .captures
        .iter()
        .filter_map(|&id| Some((graph.node(id)?, id)));
    let constants = (graph.nodes_with_ids())
        .filter(|(_, n)| matches!(n.kind, NodeKind::Constant { .. }))
        .map(|(i, n)| (n, i));
    constants
        .chain(captures)
        .map(|(n, id)| (n.name.as_bytes(), id))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::read_as_data;

    fn indices(op: &str, opset: i64) -> Vec<usize> {
        read_as_data(op, opset).iter().map(|&(i, _)| i).collect()
    }

    #[test]
    fn the_entry_for_an_opset_is_the_last_one_not_newer_than_it() {
        assert_eq!(indices("Resize", 10), [1]);
        assert_eq!(indices("Resize", 21), [2, 3]);
        assert_eq!(indices("Pad", 13), [1]);
        assert_eq!(indices("Pad", 18), [1, 3]);
        // Before opset 13, Unsqueeze's axes were an attribute; ReduceMean's until 18.
        assert!(indices("Unsqueeze", 11).is_empty());
        assert_eq!(indices("Unsqueeze", 13), [1]);
        assert!(indices("ReduceMean", 17).is_empty());
        assert_eq!(indices("ReduceSum", 13), [1]);
        assert_eq!(indices("MelWeightMatrix", 17), [0, 1]);
        assert!(indices("MatMul", 21).is_empty());
    }
}
