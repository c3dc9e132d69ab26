//! The model's layers as a graph: each layer an operator of its class, in the scope of the
//! models it is in (`model/encoder/dense`), so that the scope tree is the layers' tree; the
//! tensors a functional model's layers read (`inbound_nodes`) are its values, joining each
//! layer to the layers whose outputs it reads.

use super::config::{Model, TensorRef};
use crate::check::Place;
use crate::formats::shared::context::Context;
use crate::inventory::hashing::HashMap;
use crate::inventory::{Graph, Name, NewKind, NewNode, NodeId, Operator, RecordedScope, Value};

/// A tensor: the model it is in, the number of the layer name that makes it, node and tensor
/// index.
type Key = (Option<usize>, u32, u64, u64);

/// Layer names, each copied once (and shared by the nodes that show it) and numbered, so that
/// a tensor is keyed by numbers and looking one up copies nothing.
#[derive(Default)]
struct Names(HashMap<Name, u32>);

impl Names {
    /// The number and the copy of `text`, made the first time; `None` once the budget is out.
    fn add(&mut self, cx: &mut Context<'_>, text: &str, place: Place) -> Option<(u32, Name)> {
        if let Some((name, &id)) = self.0.get_key_value(text.as_bytes()) {
            return Some((id, name.clone()));
        }
        let id = u32::try_from(self.0.len()).ok()?;
        let name = cx.spelled(text.as_bytes(), place)?;
        self.0.insert(name.clone(), id);
        Some((id, name))
    }

    /// The number of `text`, if it was added.
    fn id(&self, text: &str) -> Option<u32> {
        self.0.get(text.as_bytes()).copied()
    }
}

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
    let mut names = Names::default();
    // Every tensor read, and the outermost model's inputs and outputs, as a value; and the
    // values each layer makes.
    let mut values: HashMap<Key, NodeId> = HashMap::default();
    let mut made: HashMap<(Option<usize>, u32), Vec<NodeId>> = HashMap::default();
    let ends = (model.inputs.iter().chain(&model.outputs)).map(|r| (Some(0), root.at, r));
    let reads = layers
        .iter()
        .flat_map(|l| l.reads.iter().map(move |r| (l.parent, l.at, r)));
    for (parent, at, (from, node, index)) in ends.chain(reads) {
        let place = Place::at(at);
        let Some((from, name)) = names.add(cx, &from.unescape(), place) else {
            break;
        };
        let key = (parent, from, *node, *index);
        if values.contains_key(&key) || !cx.spend(2, place) {
            continue;
        }
        let shown = match (node, index) {
            (0, 0) => name,
            _ => cx.copied(format!("{name}:{node}:{index}").as_bytes(), place),
        };
        let id = graph.next_id();
        graph.nodes.push(NewNode {
            name: shown,
            kind: NewKind::Value(Value::default()),
            offset: Some(at).into(),
        });
        made.entry((parent, from)).or_default().push(id);
        values.insert(key, id);
    }
    let ends = |refs: &[TensorRef<'_>]| -> Vec<NodeId> {
        (refs.iter())
            .filter_map(|r| find(&names, &values, Some(0), r))
            .collect()
    };
    graph.inputs = ends(&model.inputs);
    graph.outputs = ends(&model.outputs);
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
            .map(|r| find(&names, &values, layer.parent, r))
            .collect();
        let Some((own, name)) = names.add(cx, &own, place) else {
            break;
        };
        let outputs = made
            .get(&(layer.parent, own))
            .map_or_else(Vec::new, |v| v.iter().copied().map(Some).collect());
        let op_type = cx.symbol(&layer.class.unescape(), place);
        let id = graph.next_id();
        graph.nodes.push(NewNode {
            name,
            kind: NewKind::Operator(Operator::new(op_type, Box::new([]), inputs, outputs)),
            offset: Some(layer.at).into(),
        });
        let path = paths.last().map_or(&[][..], |p| p.as_bytes());
        let path = cx.copied(path, place);
        graph.scopes.push(RecordedScope { node: id, path });
    }
    cx.inv.graphs.push(graph);
}

/// The value of the tensor `(from, node, index)` read in the model `parent`, if it is one.
fn find(
    names: &Names,
    values: &HashMap<Key, NodeId>,
    parent: Option<usize>,
    (from, node, index): &TensorRef<'_>,
) -> Option<NodeId> {
    let from = names.id(&from.unescape())?;
    values.get(&(parent, from, *node, *index)).copied()
}
