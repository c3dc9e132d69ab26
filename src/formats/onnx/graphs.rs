//! Graphs, subgraphs, functions and training graphs into the inventory.
//!
//! All graphs are read from one queue, never by recursion. Values are nodes: graph inputs
//! and node outputs become value nodes, initializers constant nodes, and a name read from an
//! enclosing graph becomes a captured value node, as in rten.

use super::proto::{tensor_shape_proto::dimension, type_proto};
use super::proto::{
    AttributeProto, FunctionProto, GraphProto, NodeProto, TypeProto, ValueInfoProto,
};
use super::rules::*;
use super::{dtype::from_onnx, Reader};
use crate::check::{Finding, Item};
use crate::inventory::{
    Attr, AttrValue, Dim, Graph, GraphId, GraphRef, Name, Node, NodeId, NodeKind, Operator,
    SubgraphOf, TensorRef, Value,
};
use bytes::Bytes;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};

/// A graph-like body: a GraphProto or a FunctionProto.
enum Body<'m> {
    Graph(&'m GraphProto),
    Function(&'m FunctionProto),
}

struct Job<'m> {
    body: Body<'m>,
    id: GraphId,
    /// The graph whose names this one can read: the parent of a subgraph, the main graph for
    /// training graphs, none for the main graph and functions.
    scope: Option<GraphId>,
}

/// Maps keyed by names from the file: ahash is seeded at random per process, so names from a
/// hostile file cannot be chosen to collide, and it is much faster than SipHash.
type NameMap<'m, V> = HashMap<&'m [u8], V, ahash::RandomState>;

/// The name of an unnamed initializer.
static NO_NAME: Bytes = Bytes::from_static(b"");

/// Graph inputs: each name with its declared type, if any.
type Inputs<'m> = Vec<(&'m Bytes, Option<&'m TypeProto>)>;

/// Names each graph defines, for lookups from its subgraphs.
#[derive(Default)]
struct Scope<'m> {
    /// Keys borrow from the decoded model. ahash is seeded at random per process, so names
    /// from a hostile file cannot be chosen to collide.
    names: NameMap<'m, NodeId>,
    parent: Option<GraphId>,
}

/// Reads every graph of `model`.
pub(super) fn read(model: &super::proto::ModelProto, r: &mut Reader<'_>) {
    let mut queue = VecDeque::new();
    let mut scopes: Vec<Scope<'_>> = Vec::new();
    let empty = GraphProto::default();
    let main = model.graph.as_ref().unwrap_or(&empty);
    let id = new_graph(r, name_of(main.name.as_ref()));
    queue.push_back(Job {
        body: Body::Graph(main),
        id,
        scope: None,
    });
    for (i, info) in model.training_info.iter().enumerate() {
        for (what, g) in [
            ("initialization", &info.initialization),
            ("algorithm", &info.algorithm),
        ] {
            if let Some(g) = g {
                let id = new_graph(r, Name::from(format!("training_info[{i}].{what}").as_str()));
                queue.push_back(Job {
                    body: Body::Graph(g),
                    id,
                    scope: Some(0),
                });
            }
        }
    }
    for f in &model.functions {
        let label = format!("{}:{}", lossy(f.domain.as_ref()), lossy(f.name.as_ref()));
        let id = new_graph(r, Name::from(label.as_str()));
        queue.push_back(Job {
            body: Body::Function(f),
            id,
            scope: None,
        });
    }
    while let Some(job) = queue.pop_front() {
        scopes.resize_with(scopes.len().max(job.id + 1), Scope::default);
        scopes[job.id].parent = job.scope;
        GraphReader {
            r: &mut *r,
            id: job.id,
            scopes: &mut scopes,
            queue: &mut queue,
            nodes: &[],
            producers: None,
        }
        .read(job.body);
    }
}

/// Adds an empty top-level graph named `name`.
fn new_graph(r: &mut Reader<'_>, name: Name) -> GraphId {
    r.inv.graphs.push(Graph {
        name,
        ..Graph::default()
    });
    r.inv.graphs.len() - 1
}

fn lossy(b: Option<&Bytes>) -> String {
    String::from_utf8_lossy(b.map_or(&[][..], |b| b)).into_owned()
}

fn name_of(b: Option<&Bytes>) -> Name {
    Name::from(b.map_or(&[][..], |b| b))
}

struct GraphReader<'a, 'r, 'm> {
    r: &'a mut Reader<'r>,
    id: GraphId,
    scopes: &'a mut Vec<Scope<'m>>,
    queue: &'a mut VecDeque<Job<'m>>,
    /// The graph's nodes, and which node produces each name: built only when a lookup
    /// fails, to tell a forward reference from an undefined name.
    nodes: &'m [NodeProto],
    producers: Option<NameMap<'m, usize>>,
}

impl<'m> GraphReader<'_, '_, 'm> {
    fn graph(&mut self) -> &mut Graph {
        &mut self.r.inv.graphs[self.id]
    }

    fn push(&mut self, name: Name, kind: NodeKind) -> NodeId {
        let graph = self.graph();
        let id = graph.nodes.len() as NodeId;
        graph.nodes.push(Node {
            name,
            kind,
            offset: None,
        });
        id
    }

    fn define(&mut self, name: &'m Bytes, id: NodeId) {
        self.scopes[self.id].names.insert(&name[..], id);
    }

    fn read(&mut self, body: Body<'m>) {
        match body {
            Body::Graph(g) => {
                self.initializers(g);
                let types = types(g);
                let inputs = g
                    .input
                    .iter()
                    .filter_map(|v| Some((v.name.as_ref()?, v.r#type.as_ref())))
                    .collect();
                let outputs = g.output.iter().filter_map(|v| v.name.as_ref()).collect();
                self.nodes_and_io(&g.node, inputs, outputs, &types);
            }
            Body::Function(f) => {
                for a in &f.attribute_proto {
                    self.attribute_tensors(a, None);
                }
                let inputs = f.input.iter().map(|n| (n, None)).collect();
                self.nodes_and_io(
                    &f.node,
                    inputs,
                    f.output.iter().collect(),
                    &NameMap::default(),
                );
            }
        }
    }

    /// Initializers (dense and sparse) become constant nodes; duplicate names are reported.
    fn initializers(&mut self, g: &'m GraphProto) {
        let mut seen = HashSet::with_hasher(ahash::RandomState::new());
        let sparse = g
            .sparse_initializer
            .iter()
            .filter_map(|s| s.values.as_ref().map(|v| (v, s.indices.as_ref())));
        let dense = g.initializer.iter().map(|t| (t, None));
        for (t, indices) in dense.chain(sparse) {
            let name: &'m Bytes = t.name.as_ref().unwrap_or(&NO_NAME);
            let node = self.graph().nodes.len() as NodeId;
            let tensor = self.r.tensor(t, self.id, Some(node));
            if let Some(indices) = indices {
                self.r.tensor(indices, self.id, Some(node));
            }
            if !seen.insert(name) {
                self.r.out.push(
                    Finding::new(
                        &DUPLICATE_INITIALIZER,
                        format!(
                            "initializer name \"{}\" is used more than once in this graph",
                            Name::from(&name[..])
                        ),
                    )
                    .item(Item::Tensor { tensor }),
                );
                continue;
            }
            let id = self.push(Name::from(&name[..]), NodeKind::Constant { tensor });
            self.define(name, id);
        }
    }

    fn nodes_and_io(
        &mut self,
        nodes: &'m [NodeProto],
        inputs: Inputs<'m>,
        outputs: Vec<&'m Bytes>,
        types: &NameMap<'m, &'m TypeProto>,
    ) {
        for (name, ty) in inputs {
            let id = match self.scopes[self.id].names.get(&name[..]) {
                Some(&constant) => constant, // IR < 4: an input with an initializer as its default
                None => {
                    let id = self.push(Name::from(&name[..]), NodeKind::Value(value(ty)));
                    self.define(name, id);
                    id
                }
            };
            self.graph().inputs.push(id);
        }
        self.nodes = nodes;
        for (index, n) in nodes.iter().enumerate() {
            self.node(n, index, types);
        }
        for name in outputs {
            let id = self.lookup(name, None, Item::Graph { graph: self.id });
            if let Some(id) = id {
                self.graph().outputs.push(id);
            }
        }
    }

    /// Finds the node for `name`, capturing it from an enclosing graph if needed. `reader` is
    /// the index of the node that reads it; `None` for a graph output.
    fn lookup(&mut self, name: &'m Bytes, reader: Option<usize>, item: Item) -> Option<NodeId> {
        if let Some(&id) = self.scopes[self.id].names.get(&name[..]) {
            return Some(id);
        }
        let mut scope = self.scopes[self.id].parent;
        while let Some(s) = scope {
            if self.scopes[s].names.contains_key(&name[..]) {
                let id = self.push(Name::from(&name[..]), NodeKind::Value(Value::default()));
                self.graph().captures.push(id);
                self.define(name, id);
                return Some(id);
            }
            scope = self.scopes[s].parent;
        }
        let nodes = self.nodes;
        let producers = self.producers.get_or_insert_with(|| {
            let outputs = nodes
                .iter()
                .enumerate()
                .flat_map(|(i, n)| n.output.iter().map(move |o| (&o[..], i)));
            outputs.collect()
        });
        let shown = Name::from(&name[..]);
        let what = match reader.and_then(|i| nodes.get(i)) {
            Some(n) => format!("input of {} node", lossy(n.op_type.as_ref())),
            None => "graph output".to_owned(),
        };
        let finding = match (producers.get(&name[..]), reader) {
            (Some(&later), Some(reader)) if later > reader => Finding::new(&NOT_TOPOLOGICAL, format!(
                "{what} \"{shown}\" is produced by node {later}, which comes later")),
            _ => Finding::new(&UNDEFINED_INPUT, format!(
                "{what} \"{shown}\" is not a graph input, initializer, earlier output or outer value")),
        };
        self.r.out.push(finding.item(item));
        None
    }

    fn node(&mut self, n: &'m NodeProto, index: usize, types: &NameMap<'m, &'m TypeProto>) {
        let op_id = self.graph().nodes.len() as NodeId;
        let item = Item::Node {
            graph: self.id,
            node: op_id,
        };
        let op_type = lossy(n.op_type.as_ref());
        let mut inputs = Vec::with_capacity(n.input.len());
        for name in &n.input {
            let id = if name.is_empty() {
                None
            } else {
                self.lookup(name, Some(index), item)
            };
            inputs.push(id);
        }
        // The operator's index moves if lookups captured values; take it again.
        let op_id = self.graph().nodes.len() as NodeId;
        self.push(name_of(n.name.as_ref()), NodeKind::Unknown { tag: 0 });
        let attrs: Vec<Attr> = n
            .attribute
            .iter()
            .map(|a| self.attribute(a, op_id))
            .collect();
        let subgraphs = attrs
            .iter()
            .flat_map(|a| match &a.value {
                AttrValue::Graph(g) => vec![g.graph],
                AttrValue::Graphs(gs) => gs.iter().map(|g| g.graph).collect(),
                _ => Vec::new(),
            })
            .collect::<Vec<_>>();
        let mut outputs = Vec::with_capacity(n.output.len());
        for name in &n.output {
            if name.is_empty() {
                outputs.push(None);
                continue;
            }
            let id = self.push(
                Name::from(&name[..]),
                NodeKind::Value(value(types.get(&name[..]).copied())),
            );
            self.define(name, id);
            outputs.push(Some(id));
        }
        let domain = n
            .domain
            .as_ref()
            .filter(|d| !d.is_empty())
            .map(|d| lossy(Some(d)));
        self.graph().nodes[op_id as usize].kind = NodeKind::Operator(Operator {
            op_type: Cow::Owned(op_type),
            domain,
            attrs: attrs.into(),
            inputs: inputs.into(),
            outputs: outputs.into(),
            subgraphs: subgraphs.into(),
        });
    }

    /// Queues a subgraph owned by node `op` and returns its id.
    fn subgraph(&mut self, g: &'m GraphProto, op: NodeId) -> GraphRef {
        let id = self.r.inv.graphs.len();
        self.r.inv.graphs.push(Graph {
            name: name_of(g.name.as_ref()),
            parent: Some(SubgraphOf {
                graph: self.id,
                node: op,
            }),
            ..Graph::default()
        });
        self.queue.push_back(Job {
            body: Body::Graph(g),
            id,
            scope: Some(self.id),
        });
        GraphRef { graph: id }
    }

    /// Registers every tensor an attribute holds, whatever its declared type.
    fn attribute_tensors(&mut self, a: &'m AttributeProto, op: Option<NodeId>) -> Vec<TensorRef> {
        let sparse = a.sparse_tensor.iter().chain(&a.sparse_tensors);
        let mut refs = Vec::new();
        for t in a.t.iter().chain(&a.tensors) {
            refs.push(TensorRef {
                tensor: self.r.tensor(t, self.id, op),
            });
        }
        for s in sparse {
            for t in s.values.iter().chain(&s.indices) {
                refs.push(TensorRef {
                    tensor: self.r.tensor(t, self.id, op),
                });
            }
        }
        refs
    }

    fn attribute(&mut self, a: &'m AttributeProto, op: NodeId) -> Attr {
        let tensors = self.attribute_tensors(a, Some(op));
        let graphs: Vec<GraphRef> =
            a.g.iter()
                .chain(&a.graphs)
                .map(|g| self.subgraph(g, op))
                .collect();
        let strs = |v: &[Bytes]| AttrValue::Strs(v.iter().map(|s| Name::from(&s[..])).collect());
        let value = match a.r#type.unwrap_or(0) {
            _ if a.ref_attr_name.is_some() => AttrValue::Str(Name::from(
                format!("@{}", lossy(a.ref_attr_name.as_ref())).as_str(),
            )),
            1 => AttrValue::Float(a.f.unwrap_or(0.0)),
            2 => AttrValue::Int(a.i.unwrap_or(0)),
            3 => AttrValue::Str(name_of(a.s.as_ref())),
            5 if graphs.len() == 1 => AttrValue::Graph(graphs[0]),
            6 => AttrValue::Floats(a.floats.clone()),
            7 => AttrValue::Ints(a.ints.clone()),
            8 => strs(&a.strings),
            4 | 11 if tensors.len() == 1 => AttrValue::Tensor(tensors[0]),
            _ if !graphs.is_empty() => AttrValue::Graphs(graphs),
            _ if !tensors.is_empty() => AttrValue::Tensors(tensors),
            _ => AttrValue::Str(Name::from("<unsupported attribute type>")),
        };
        Attr {
            name: Cow::Owned(lossy(a.name.as_ref())),
            value,
        }
    }
}

/// Types declared for a graph's values, by name.
fn types(g: &GraphProto) -> NameMap<'_, &TypeProto> {
    g.input
        .iter()
        .chain(&g.output)
        .chain(&g.value_info)
        .filter_map(|v: &ValueInfoProto| Some((&v.name.as_ref()?[..], v.r#type.as_ref()?)))
        .collect()
}

/// A value's dtype and shape from its declared type.
fn value(ty: Option<&TypeProto>) -> Value {
    let Some(type_proto::Value::TensorType(t) | type_proto::Value::SparseTensorType(t)) =
        ty.and_then(|t| t.value.as_ref())
    else {
        return Value::default();
    };
    let shape = t.shape.as_ref().map(|s| {
        s.dim
            .iter()
            .map(|d| match &d.value {
                Some(dimension::Value::DimValue(v)) if *v >= 0 => Dim::Fixed(*v as u64),
                Some(dimension::Value::DimParam(p)) => Dim::Symbolic(Name::from(&p[..])),
                _ => Dim::Symbolic(Name::from("?")),
            })
            .collect()
    });
    Value {
        dtype: t.elem_type.and_then(from_onnx),
        shape,
    }
}
