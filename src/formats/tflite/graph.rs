//! Subgraphs as inventory graphs: one node per tensor (a constant where its buffer holds
//! bytes, a value otherwise), then one per operator, in execution order. Walking the
//! operators in order checks what the verifier checks of the data flow: every input made
//! before it is read, no tensor written twice, nothing written that must not be.

use super::reader::Reader;
use super::rules::{
    tensor_index_message, MISSING_SECTION, NOT_PRODUCED, OPCODE_INDEX, PRODUCED_TWICE, TENSOR_INDEX,
};
use super::schema;
use super::tensors::{self, Role};
use crate::check::{Item, Place};
use crate::formats::shared::budget::SUBGRAPH_ENTRIES;
use crate::formats::shared::numbers::id32;
use crate::inventory::{Attr, AttrValue, Graph, NewKind, NewNode, NodeId, Nodes, Operator, Symbol};

/// Reads every subgraph into the inventory's graphs, in order.
pub fn subgraphs(r: &mut Reader<'_, '_>, model: schema::Model<'_>) {
    let root = Place::at(r.loc(model._tab.loc())).item(Item::Field { name: "subgraphs" });
    let Some(subgraphs) = model.subgraphs().filter(|s| !s.is_empty()) else {
        r.cx.report(
            &MISSING_SECTION,
            root,
            "Model.subgraphs is missing or empty: the model has no graph to run",
        );
        return;
    };
    r.seen(subgraphs.bytes());
    for (index, sub) in subgraphs.iter().enumerate() {
        if !r.cx.spend(SUBGRAPH_ENTRIES, root) {
            break;
        }
        let graph = one(r, index, sub);
        r.cx.inv.graphs.push(graph);
    }
}

/// One subgraph, as graph `g`.
fn one(r: &mut Reader<'_, '_>, g: usize, sub: schema::SubGraph<'_>) -> Graph {
    let at = r.table(sub._tab.loc());
    let tensors = sub.tensors();
    let count = tensors.map_or(0, |t| t.len());
    let operators = sub.operators();
    if operators.is_none() {
        r.cx.report(
            &MISSING_SECTION,
            Place::at(at).item(Item::Graph { graph: g }),
            format!("subgraph {g} has no operators vector"),
        );
    }
    let op_count = operators.map_or(0, |o| o.len());
    let mut nodes = Nodes::default();
    let mut roles = Vec::new();
    if let Some(tensors) = tensors {
        let start = r.seen(tensors.bytes());
        if r.cx.spend(count as u64, Place::at(start)) {
            let left = usize::try_from(r.cx.budget.left()).unwrap_or(usize::MAX);
            nodes.reserve(op_count.min(left), count, 0);
            roles.reserve_exact(count);
            for (index, t) in tensors.iter().enumerate() {
                let (node, role) = tensors::node(r, g, index, t);
                nodes.push(node);
                roles.push(role);
            }
        }
    }
    let count = roles.len();
    let inputs = refs(r, g, sub.inputs(), "inputs", count);
    for &input in &inputs {
        if let Some(role) = roles.get_mut(input as usize) {
            if *role == Role::Unproduced {
                *role = Role::Input;
            }
        }
    }
    if let Some(operators) = operators {
        r.seen(operators.bytes());
        for (index, op) in operators.iter().enumerate() {
            let links = op.inputs().map_or(0, |v| v.len()) + op.outputs().map_or(0, |v| v.len());
            if !r
                .cx
                .spend(1 + links as u64, Place::at(r.loc(op._tab.loc())))
            {
                break;
            }
            let node = operator(r, g, index, op, &mut roles, &nodes);
            nodes.push(node);
        }
    }
    let outputs = refs(r, g, sub.outputs(), "outputs", count);
    r.tensor_counts.push(count);
    let name = sub
        .name()
        .map(|n| r.cx.name(n.as_bytes()))
        .unwrap_or_default();
    Graph {
        name,
        nodes,
        inputs,
        outputs,
        offset: Some(at),
        ..Graph::default()
    }
}

/// A subgraph's input or output list as node ids (a tensor's node id is its index); an
/// index out of range is reported and left out.
fn refs(
    r: &mut Reader<'_, '_>,
    g: usize,
    list: Option<flatbuffers::Vector<'_, i32>>,
    what: &'static str,
    count: usize,
) -> Vec<NodeId> {
    let Some(list) = list else {
        return Vec::new();
    };
    let start = r.seen(list.bytes());
    if !r.cx.spend(list.len() as u64, Place::at(start)) {
        return Vec::new();
    }
    let mut ids = Vec::with_capacity(list.len());
    for (index, tensor) in list.iter().enumerate() {
        match usize::try_from(tensor).ok().filter(|&t| t < count) {
            Some(t) => ids.push(id32(t)),
            None => r.cx.report(
                &TENSOR_INDEX,
                Place::at(start.saturating_add(4 * index as u64)).item(Item::GraphRef {
                    graph: g,
                    list: what,
                    index,
                }),
                tensor_index_message(
                    &format!("subgraph {g} {what}[{index}]"),
                    i64::from(tensor),
                    count,
                ),
            ),
        }
    }
    ids
}

/// Operator `index` of subgraph `g`, checked against the data flow so far.
fn operator(
    r: &mut Reader<'_, '_>,
    g: usize,
    index: usize,
    op: schema::Operator<'_>,
    roles: &mut [Role],
    nodes: &Nodes,
) -> NewNode {
    let at = r.table(op._tab.loc());
    let count = roles.len();
    let item = Item::Node {
        graph: g,
        node: id32(count.saturating_add(index)),
    };
    let place = Place::at(at).item(item);
    let opcode = op.opcode_index();
    let (op_type, custom, version) = match r.opcodes.get(opcode as usize) {
        Some(code) => (code.name.clone(), code.custom, code.version),
        None => {
            r.cx.report(
                &OPCODE_INDEX,
                place,
                format!(
                    "operator {index} of subgraph {g} has opcode_index {opcode}, but the model has {} operator codes",
                    r.opcodes.len()
                ),
            );
            (Symbol::from(format!("#{opcode}")), false, 0)
        }
    };
    let mut inputs = Vec::new();
    if let Some(list) = op.inputs() {
        r.seen(list.bytes());
        inputs.reserve_exact(list.len());
        for (slot, tensor) in list.iter().enumerate() {
            let what = || format!("input {slot} of operator {index} ({op_type})");
            let Some(t) = in_range(r, tensor, count, place, &what) else {
                inputs.push(None);
                continue;
            };
            let role = roles.get(t).copied().unwrap_or(Role::Produced);
            if role == Role::Unproduced {
                r.cx.report(
                    &NOT_PRODUCED,
                    place,
                    format!("{} is tensor {t}, which no earlier operator produces and which is no constant, variable or subgraph input", what()),
                );
            }
            inputs.push(Some(id32(t)));
        }
    }
    let mut outputs = Vec::new();
    if let Some(list) = op.outputs() {
        r.seen(list.bytes());
        outputs.reserve_exact(list.len());
        for (slot, tensor) in list.iter().enumerate() {
            let what = || format!("output {slot} of operator {index} ({op_type})");
            let Some(t) = in_range(r, tensor, count, place, &what) else {
                outputs.push(None);
                continue;
            };
            if let Some(role) = roles.get_mut(t) {
                if !matches!(role, Role::Unproduced | Role::Invalid) {
                    r.cx.report(
                        &PRODUCED_TWICE,
                        place,
                        format!("{} is tensor {t}, which is {}", what(), role.what()),
                    );
                }
                *role = Role::Produced;
            }
            outputs.push(Some(id32(t)));
        }
    }
    if let Some(list) = op.intermediates() {
        r.seen(list.bytes());
        for (slot, tensor) in list.iter().enumerate() {
            let what = || format!("intermediate {slot} of operator {index} ({op_type})");
            in_range(r, tensor, count, place, &what);
        }
    }
    if let Some(options) = op.custom_options() {
        r.seen(options.bytes());
    }
    let large = op.large_custom_options_offset();
    if large > 1 {
        r.large_options.push(super::reader::Buffer {
            range: Some(crate::inventory::ByteRange {
                start: r.base.saturating_add(large),
                len: op.large_custom_options_size(),
            }),
            external: true,
            at,
            what: super::reader::What::CustomOptions(g, index),
        });
    }
    // An operator is named after its first output, whose name the converter writes as the
    // operator's scope (`model/dense/MatMul`).
    let name = (outputs.iter().flatten().next())
        .and_then(|&id| nodes.get(id))
        .map(|n| n.name.clone())
        .unwrap_or_default();
    let attrs = [Attr {
        name: Symbol::Static("version"),
        value: AttrValue::Int(i64::from(version)),
    }];
    let domain = custom.then_some(Symbol::Static("custom"));
    NewNode {
        name,
        kind: NewKind::Operator(
            Operator::new(op_type, attrs.into(), inputs, outputs).with_domain(domain),
        ),
        offset: at.into(),
    }
}

/// `tensor` as an index of the subgraph's `count` tensors; -1 (an omitted optional tensor)
/// and anything out of range (reported) are `None`.
fn in_range(
    r: &mut Reader<'_, '_>,
    tensor: i32,
    count: usize,
    place: Place,
    what: &dyn Fn() -> String,
) -> Option<usize> {
    if tensor == -1 {
        return None;
    }
    let index = usize::try_from(tensor).ok().filter(|&t| t < count);
    if index.is_none() {
        r.cx.report(
            &TENSOR_INDEX,
            place,
            tensor_index_message(&what(), i64::from(tensor), count),
        );
    }
    index
}
