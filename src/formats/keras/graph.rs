//! The model's layers as a graph: each layer an operator of its class, in the scope of the
//! models it is in (`model/encoder/dense`), so that the scope tree is the layers' tree; the
//! tensors a functional model's layers read (`inbound_nodes`) are its values, joining each
//! layer to the layers whose outputs it reads.

use super::config::{Model, TensorRef};
use crate::check::Place;
use crate::formats::shared::context::Context;
use crate::inventory::{Graph, NewKind, NewNode, NodeId, Operator, RecordedScope, Value};
use std::collections::HashMap;

/// A tensor: the model it is in, the layer that makes it, node and tensor index.
type Key = (Option<usize>, String, u64, u64);

/// Adds the graph of the model's layers to the inventory, named after the outermost model.
pub fn build(cx: &mut Context<'_>, model: &Model<'_>) {
    let layers = &model.layers;
    let Some(root) = layers.first() else {
        return;
    };
    let mut graph = Graph {
        name: cx.copied(root.name.unescape().as_bytes(), Place::at(root.at)),
        ..Graph::default()
    };
    // Every tensor read, and the outermost model's inputs and outputs, as a value; and the
    // values each layer makes.
    let mut values: HashMap<Key, NodeId> = HashMap::new();
    let mut made: HashMap<(Option<usize>, String), Vec<NodeId>> = HashMap::new();
    let ends = (model.inputs.iter().chain(&model.outputs)).map(|r| (Some(0), root.at, r));
    let reads = layers
        .iter()
        .flat_map(|l| l.reads.iter().map(move |r| (l.parent, l.at, r)));
    for (parent, at, (from, node, index)) in ends.chain(reads) {
        let key = (parent, from.unescape().into_owned(), *node, *index);
        if values.contains_key(&key) || !cx.spend(2, Place::at(at)) {
            continue;
        }
        let shown = match (node, index) {
            (0, 0) => key.1.clone(),
            _ => format!("{}:{node}:{index}", key.1),
        };
        let id = graph.next_id();
        graph.nodes.push(NewNode {
            name: cx.copied(shown.as_bytes(), Place::at(at)),
            kind: NewKind::Value(Value::default()),
            offset: Some(at).into(),
        });
        made.entry((key.0, key.1.clone())).or_default().push(id);
        values.insert(key, id);
    }
    let find = |refs: &[TensorRef<'_>]| -> Vec<NodeId> {
        (refs.iter())
            .filter_map(|(from, node, index)| {
                values
                    .get(&(Some(0), from.unescape().into_owned(), *node, *index))
                    .copied()
            })
            .collect()
    };
    graph.inputs = find(&model.inputs);
    graph.outputs = find(&model.outputs);
    let mut paths: Vec<String> = Vec::with_capacity(layers.len());
    for layer in layers {
        let own = layer.name.unescape();
        let path = match layer.parent.and_then(|p| paths.get(p)) {
            Some(parent) => format!("{parent}/{own}"),
            None => own.clone().into_owned(),
        };
        paths.push(path);
        let place = Place::at(layer.at);
        if !cx.spend(3 + layer.reads.len() as u64, place) {
            break;
        }
        let inputs = (layer.reads.iter())
            .map(|(from, node, index)| {
                let key = (layer.parent, from.unescape().into_owned(), *node, *index);
                values.get(&key).copied()
            })
            .collect();
        let outputs = made
            .get(&(layer.parent, own.into_owned()))
            .map_or_else(Vec::new, |v| v.iter().copied().map(Some).collect());
        let op_type = (cx.names).symbol(&layer.class.unescape(), place, &mut cx.budget, cx.out);
        let id = graph.next_id();
        graph.nodes.push(NewNode {
            name: cx.copied(layer.name.unescape().as_bytes(), place),
            kind: NewKind::Operator(Operator::new(op_type, Box::new([]), inputs, outputs)),
            offset: Some(layer.at).into(),
        });
        let path = paths.last().map_or(&[][..], |p| p.as_bytes());
        let path = cx.copied(path, place);
        graph.scopes.push(RecordedScope { node: id, path });
    }
    cx.inv.graphs.push(graph);
}
