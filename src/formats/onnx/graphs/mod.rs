//! Graphs, subgraphs, functions and training graphs into the inventory.
//!
//! All graphs are read from one queue, never by recursion. Graphs, nodes, tensors and
//! attributes are read in place one at a time as the walk reaches them, so the protobuf tree
//! never exists in memory, and each keeps its byte offset.
//! Values are nodes: graph inputs and node outputs become value nodes, initializers
//! constant nodes, and a name read from an enclosing graph becomes a captured value node, as
//! in rten.

mod attributes;
mod buffers;

use super::rules::*;
use super::schema;
use super::views::attribute::AttributeView;
use super::views::graph::GraphView;
use super::views::model::{FunctionView, ModelView};
use super::views::node::NodeView;
use super::views::tensor::{sparse_parts, TensorView};
use super::views::value::{DimView, TypeView, ValueView};
use super::{dtypes::from_onnx, Reader};
use crate::check::{Item, Place};
use crate::formats::shared::budget::{Interner, SUBGRAPH_ENTRIES};
use crate::inventory::hashing::Seeded;
use crate::inventory::{
    AttrValue, Composite, Dim, Graph, GraphId, GraphRef, Name, NewKind, NewNode, NodeId, NodeKind,
    OperatorParts, RecordedScope, SubgraphOf, Symbol, TensorRef, Value,
};
use buffers::Buffers;
use std::collections::{HashMap, HashSet, VecDeque};

/// A graph-like body: an encoded GraphProto in the file, or a function.
enum Body<'b> {
    Graph(&'b [u8]),
    Function(FunctionView<'b>),
}

/// How deep subgraphs may nest (prost's recursion limit for one message).
const MAX_DEPTH: u32 = 100;

/// Budget entries a tensor takes besides its dimensions: an inventory tensor and the node
/// that holds it.
const TENSOR_ENTRIES: u64 = 8;

/// Budget entries a decoded attribute takes: its view holds a dozen lists and values, as much
/// memory as 8 node inputs.
const ATTRIBUTE_ENTRIES: u64 = 8;

struct Job<'b> {
    body: Body<'b>,
    id: GraphId,
    /// Subgraph nesting level: 0 for top-level graphs and functions.
    depth: u32,
    /// The graph whose names this one can read: the parent of a subgraph, the main graph for
    /// training graphs, none for the main graph and functions.
    scope: Option<GraphId>,
}

/// Maps keyed by names from the file, hashed as the interner hashes them: seeded at random
/// per process, so names from a hostile file cannot be chosen to collide.
type NameMap<'b, V> = HashMap<&'b [u8], V, Seeded>;

/// Names each graph defines, for lookups from its subgraphs. Keys borrow from the file.
#[derive(Default)]
struct Scope<'b> {
    names: NameMap<'b, NodeId>,
    parent: Option<GraphId>,
}

/// Reads every graph of `model`.
pub(super) fn read<'b>(model: &ModelView<'b>, r: &mut Reader<'b>) {
    let mut queue = VecDeque::new();
    let mut scopes: Vec<Scope<'b>> = Vec::new();
    let opsets = |pairs: &[(Option<&'b [u8]>, Option<i64>)]| {
        schema::Opsets::new(
            pairs
                .iter()
                .map(|&(d, v)| (d.unwrap_or_default(), v.unwrap_or(0))),
        )
    };
    r.schemas.opsets.push(opsets(&model.opset_import));
    let main = model.graph.unwrap_or_default();
    let id = new_graph(r, Name::default());
    queue.push_back(Job {
        body: Body::Graph(main),
        id,
        depth: 0,
        scope: None,
    });
    for (i, &(initialization, algorithm)) in model.training_info.iter().enumerate() {
        for (what, g) in [("initialization", initialization), ("algorithm", algorithm)] {
            if let Some(g) = g {
                if !r.cx.spend(SUBGRAPH_ENTRIES, Place::at(r.cx.offset(g))) {
                    break;
                }
                let id = new_graph(r, Name::from(format!("training_info[{i}].{what}").as_str()));
                queue.push_back(Job {
                    body: Body::Graph(g),
                    id,
                    depth: 0,
                    scope: Some(0),
                });
            }
        }
    }
    for &bytes in &model.functions {
        let at = r.cx.offset(bytes);
        let f = match FunctionView::read(bytes, r.cx.budget.left()) {
            Ok(f) if f.dropped > 0 => {
                r.cx.spend(u64::MAX, Place::at(at));
                continue;
            }
            Ok(f) => f,
            Err(e) => {
                r.malformed("function", e, at);
                continue;
            }
        };
        let lists = f.inputs.len() + f.outputs.len() + f.nodes.len() + f.attributes.len();
        if !r.cx.spend(SUBGRAPH_ENTRIES + lists as u64, Place::at(at)) {
            break;
        }
        let mut label = f.domain.unwrap_or_default().to_vec();
        label.push(b':');
        label.extend_from_slice(f.name.unwrap_or_default());
        let id = new_graph(r, Name::from(&label[..]));
        r.function_bodies.push(id);
        let functions = &mut r.schemas.functions;
        let domain = schema::canonical(f.domain.unwrap_or_default());
        functions.insert((domain.into(), f.name.unwrap_or_default().into()));
        r.schemas.opsets.push(opsets(&f.opset_import));
        r.schemas.assign(id, r.schemas.opsets.len() - 1);
        queue.push_back(Job {
            body: Body::Function(f),
            id,
            depth: 0,
            scope: None,
        });
    }
    while let Some(job) = queue.pop_front() {
        if r.cx.exhausted() {
            break;
        }
        scopes.resize_with(scopes.len().max(job.id + 1), Scope::default);
        if let Some(scope) = scopes.get_mut(job.id) {
            scope.parent = job.scope;
        }
        let mut reader = GraphReader {
            r: &mut *r,
            id: job.id,
            depth: job.depth,
            scopes: &mut scopes,
            queue: &mut queue,
            producers: None,
            label: Vec::new(),
            tensors: Vec::new(),
        };
        match job.body {
            Body::Graph(g) => reader.graph_body(g),
            Body::Function(f) => reader.function_body(&f),
        }
    }
}

/// Adds an empty top-level graph named `name`.
fn new_graph(r: &mut Reader<'_>, name: Name) -> GraphId {
    r.cx.inv.graphs.push(Graph {
        name,
        ..Graph::default()
    });
    r.cx.inv.graphs.len() - 1
}

struct GraphReader<'a, 'b> {
    r: &'a mut Reader<'b>,
    id: GraphId,
    depth: u32,
    scopes: &'a mut Vec<Scope<'b>>,
    queue: &'a mut VecDeque<Job<'b>>,
    /// Which node produces each name: built only when a lookup fails, to tell a forward
    /// reference from an undefined name.
    producers: Option<NameMap<'b, usize>>,
    /// A buffer for the names of tensors without one (see [`GraphReader::label_of`]).
    label: Vec<u8>,
    /// The tensors of the attribute being read (see [`GraphReader::attribute`]).
    tensors: Vec<TensorRef>,
}

impl<'b> GraphReader<'_, 'b> {
    #[expect(
        clippy::indexing_slicing,
        reason = "the reader adds graph `self.id` before it reads its body"
    )]
    fn graph(&mut self) -> &mut Graph {
        &mut self.r.cx.inv.graphs[self.id]
    }

    fn in_file(&self, bytes: &[u8]) -> &'b [u8] {
        self.r.in_file(bytes)
    }

    fn offset(&self, bytes: &[u8]) -> Option<u64> {
        self.r.cx.offset(bytes)
    }

    fn push(&mut self, name: Name, kind: NewKind, offset: Option<u64>) -> NodeId {
        let graph = self.graph();
        let id = graph.next_id();
        graph.nodes.push(NewNode {
            name,
            kind,
            offset: offset.into(),
        });
        id
    }

    fn is_constant(&mut self, id: NodeId) -> bool {
        let node = self.graph().node(id);
        matches!(node.map(|n| n.kind), Some(NodeKind::Constant { .. }))
    }

    /// Makes `name` name node `id` in this graph; whether it named another node before.
    fn define(&mut self, name: &[u8], id: NodeId) -> bool {
        let key = self.in_file(name);
        let scope = self.scopes.get_mut(self.id);
        scope.is_some_and(|scope| scope.names.insert(key, id).is_some())
    }

    /// The node `name` names in this graph's own scope.
    fn own(&self, name: &[u8]) -> Option<NodeId> {
        let scope = self.scopes.get(self.id)?;
        scope.names.get(self.in_file(name)).copied()
    }

    /// Whether a graph enclosing this one defines `name`; `depth_only` looks only when this
    /// is a subgraph (training graphs and functions see only their own scope).
    fn enclosing_defines(&self, name: &[u8], depth_only: bool) -> bool {
        if depth_only && self.depth == 0 {
            return false;
        }
        let key = self.in_file(name);
        let parent = (self.scopes.get(self.id)).and_then(|s| s.parent);
        let mut chain = std::iter::successors(parent.and_then(|p| self.scopes.get(p)), |s| {
            s.parent.and_then(|p| self.scopes.get(p))
        });
        chain.any(|s| s.names.contains_key(key))
    }

    /// Reads the TensorProto in `bytes` and its offset, reporting a malformed one there.
    fn tensor_view(&mut self, bytes: &[u8], what: &str) -> Option<(TensorView<'b>, Option<u64>)> {
        let at = self.offset(bytes);
        match TensorView::read(self.in_file(bytes), self.r.cx.budget.left()) {
            Ok(t) if t.dropped > 0 => {
                self.r.cx.spend(u64::MAX, Place::at(at));
                None
            }
            Ok(t)
                if !self
                    .r
                    .cx
                    .spend(TENSOR_ENTRIES + t.dims.len() as u64, Place::at(at)) =>
            {
                None
            }
            Ok(t) => Some((t, at)),
            Err(e) => {
                self.r.malformed(what, e, at);
                None
            }
        }
    }

    fn graph_body(&mut self, bytes: &'b [u8]) {
        let at = self.offset(bytes);
        self.graph().offset = at;
        let g = match GraphView::read(bytes, self.r.cx.budget.left()) {
            Ok(g) if g.dropped > 0 => {
                self.r.cx.spend(u64::MAX, Place::at(at));
                return;
            }
            Ok(g) => g,
            Err(e) => {
                self.r.malformed("graph", e, at);
                return;
            }
        };
        if self.graph().name.is_empty() {
            self.graph().name = Name::from(g.name);
        }
        self.initializers(&g);
        let [inputs, outputs, value_info] =
            [&g.inputs, &g.outputs, &g.value_info].map(|list| self.value_infos(list));
        let types = types([&inputs, &outputs, &value_info]);
        let inputs: Vec<(&[u8], Option<&TypeView>)> = inputs
            .iter()
            .filter_map(|v| Some((v.name?, v.ty.as_ref())))
            .collect();
        let outputs: Vec<&[u8]> = outputs.iter().filter_map(|v| v.name).collect();
        self.nodes_and_io(&g.nodes, inputs, outputs, &types);
    }

    /// Reads ValueInfoProtos, reporting a malformed one at its offset.
    fn value_infos(&mut self, list: &[&'b [u8]]) -> Vec<ValueView<'b>> {
        let mut infos = Vec::with_capacity(list.len());
        for (index, &bytes) in list.iter().enumerate() {
            if let Some(next) = list.get(index + 1) {
                crate::source::prefetch(next);
            }
            let at = self.offset(bytes);
            if !self.r.cx.spend(1, Place::at(at)) {
                break;
            }
            match ValueView::read(bytes, self.r.cx.budget.left()) {
                Ok(v) if v.dropped > 0 => {
                    self.r.cx.spend(u64::MAX, Place::at(at));
                    break;
                }
                Ok(v) => {
                    let dims =
                        v.ty.as_ref()
                            .and_then(|t| t.shape.as_ref())
                            .map_or(0, Vec::len);
                    if !self.r.cx.spend(dims as u64, Place::at(at)) {
                        break;
                    }
                    infos.push(v);
                }
                Err(e) => self.r.malformed("value", e, self.offset(bytes)),
            }
        }
        infos
    }

    fn function_body(&mut self, f: &FunctionView<'b>) {
        for &bytes in &f.attributes {
            match AttributeView::read(bytes, self.r.cx.budget.left()) {
                Ok(a) => {
                    self.attribute_tensors(&a, None, &mut Vec::new());
                }
                Err(e) => {
                    self.r
                        .malformed("function attribute", e, self.offset(bytes));
                }
            }
        }
        let inputs = f.inputs.iter().map(|&n| (n, None)).collect();
        self.nodes_and_io(&f.nodes, inputs, f.outputs.clone(), &NameMap::default());
    }

    /// Initializers (dense and sparse) become constant nodes; duplicate names are reported.
    fn initializers(&mut self, g: &GraphView<'b>) {
        let mut seen = HashSet::with_hasher(Seeded::default());
        let n = self.r.cx.affordable(g.initializers.len());
        self.graph().nodes.reserve(0, 0, n);
        self.r.cx.inv.tensors.reserve(n);
        for bytes in &g.initializers {
            if !self.r.cx.spend(1, Place::at(self.offset(bytes))) {
                return;
            }
            if let Some(t) = self.tensor_view(bytes, "initializer") {
                self.initializer(t, None, &mut seen);
            }
        }
        for &bytes in &g.sparse_initializers {
            if !self.r.cx.spend(2, Place::at(self.offset(bytes))) {
                return;
            }
            let (values, indices) = match sparse_parts(bytes) {
                Ok(parts) => parts,
                Err(e) => {
                    self.r
                        .malformed("sparse initializer", e, self.offset(bytes));
                    continue;
                }
            };
            let Some(values) = values else {
                continue;
            };
            let Some(values) = self.tensor_view(values, "sparse initializer") else {
                continue;
            };
            let indices = indices.and_then(|i| self.tensor_view(i, "sparse initializer's indices"));
            self.initializer(values, indices, &mut seen);
        }
    }

    fn initializer(
        &mut self,
        (t, at): (TensorView<'b>, Option<u64>),
        indices: Option<(TensorView<'b>, Option<u64>)>,
        seen: &mut HashSet<&'b [u8], Seeded>,
    ) {
        let name = t.name;
        let node = self.graph().next_id();
        let tensor = self.r.tensor(&t, Name::from(name), self.id, Some(node), at);
        if let Some((indices, at)) = indices {
            let name = Name::from(indices.name);
            self.r.tensor(&indices, name, self.id, Some(node), at);
        }
        if !seen.insert(name) {
            self.r.cx.report(
                &DUPLICATE_INITIALIZER,
                Place::at(at).item(Item::Tensor { tensor }),
                format!(
                    "initializer name \"{}\" is used more than once in this graph",
                    Name::from(name)
                ),
            );
            return;
        }
        let id = self.push(Name::from(name), NewKind::Constant { tensor }, at);
        self.define(name, id);
    }

    fn nodes_and_io(
        &mut self,
        nodes: &[&'b [u8]],
        inputs: Vec<(&[u8], Option<&TypeView>)>,
        outputs: Vec<&[u8]>,
        types: &NameMap<'b, &TypeView>,
    ) {
        for (name, ty) in inputs {
            let known = self.own(name);
            let id = match known {
                Some(earlier) if !self.is_constant(earlier) => {
                    let place = Place::at(self.offset(name)).item(Item::Graph { graph: self.id });
                    let message = format!("input \"{}\" is listed twice", Name::from(name));
                    self.r.cx.report(&NOT_SSA, place, message);
                    earlier
                }
                Some(constant) => constant, // IR < 4: an input with an initializer as its default
                None => {
                    let kind = NewKind::Value(value(ty, &mut self.r.cx.names));
                    let id = self.push(Name::from(name), kind, None);
                    self.define(name, id);
                    id
                }
            };
            self.graph().inputs.push(id);
        }
        self.producers = None;
        // Each node adds itself and its output values, usually one and now and then more
        // (Split, LSTM): reserve once, with an eighth to spare, rather than grow and copy
        // million-entry columns when a few nodes have a second output. Exported graphs have
        // more than two inputs and outputs a node; room for their attributes and Constant
        // tensors is made when the first comes (see `node`).
        let n = self.r.cx.affordable(nodes.len());
        self.graph().nodes.reserve_links(n.saturating_mul(5) / 2);
        self.graph().nodes.reserve(n, n.saturating_add(n / 8), 0);
        if let Some(scope) = self.scopes.get_mut(self.id) {
            scope.names.reserve(n);
        }
        let mut buffers = Buffers::default();
        buffers.view.modules = self.r.modules;
        for (index, &bytes) in nodes.iter().enumerate() {
            if let Some(next) = nodes.get(index + 1) {
                crate::source::prefetch(next);
            }
            let at = self.offset(bytes);
            match self.read_node(bytes, &mut buffers.view, &mut buffers.attributes) {
                Ok(()) => {
                    let (view, attributes) = (&buffers.view, &buffers.attributes);
                    let lists: usize = attributes
                        .iter()
                        .map(|a| a.floats.len() + a.ints.len() + a.strings.len())
                        .sum();
                    let entries = (1 + view.inputs.len() + view.outputs.len() + lists) as u64
                        + attributes.len() as u64 * ATTRIBUTE_ENTRIES;
                    let dropped = view.dropped > 0 || attributes.iter().any(|a| a.dropped > 0);
                    if !self.r.cx.spend(entries, Place::at(at)) || dropped {
                        self.r.cx.spend(u64::MAX, Place::at(at));
                        break;
                    }
                    self.node(&mut buffers, index, nodes, types, at);
                    buffers.trim();
                }
                Err(e) => self.r.malformed("node", e, at),
            }
        }
        for name in outputs {
            if let Some(id) = self.lookup(name, None, nodes, Item::Graph { graph: self.id }) {
                self.graph().outputs.push(id);
            }
        }
    }

    /// Finds the node for `name`, capturing it from an enclosing graph if needed. `reader` is
    /// the index of the node that reads it; `None` for a graph output.
    fn lookup(
        &mut self,
        name: &[u8],
        reader: Option<usize>,
        nodes: &[&'b [u8]],
        item: Item,
    ) -> Option<NodeId> {
        if let Some(id) = self.own(name) {
            return Some(id);
        }
        if self.enclosing_defines(name, false) {
            let id = self.push(Name::from(name), NewKind::Value(Value::default()), None);
            self.graph().captures.push(id);
            self.define(name, id);
            return Some(id);
        }
        if self.producers.is_none() {
            let mut producers = NameMap::default();
            let mut view = NodeView::default();
            for (i, &bytes) in nodes.iter().enumerate() {
                if view.read(bytes, self.r.cx.budget.left()).is_ok() {
                    producers.extend(view.outputs.iter().map(|&o| (o, i)));
                }
            }
            self.producers = Some(producers);
        }
        let later = self
            .producers
            .as_ref()
            .and_then(|p| p.get(self.in_file(name)).copied());
        let shown = Name::from(name);
        let what = match reader {
            Some(i) => format!("input of node {i}"),
            None => "graph output".to_owned(),
        };
        let (rule, message) = match (later, reader) {
            (Some(later), Some(reader)) if later > reader => (&NOT_TOPOLOGICAL, format!(
                "{what} \"{shown}\" is produced by node {later}, which comes later")),
            _ => (&UNDEFINED_INPUT, format!(
                "{what} \"{shown}\" is not a graph input, initializer, earlier output or outer value")),
        };
        self.r.cx.report(rule, Place::on(item), message);
        None
    }

    /// Reads the node in `bytes` into `view`, and its attributes into `attributes`, keeping
    /// no more list values than the budget allows.
    fn read_node(
        &self,
        bytes: &'b [u8],
        view: &mut NodeView<'b>,
        attributes: &mut Vec<AttributeView<'b>>,
    ) -> Result<(), String> {
        view.read(bytes, self.r.cx.budget.left())
            .map_err(|e| e.to_string())?;
        let mut keep = self.r.cx.budget.left();
        let mut read = 0;
        for (i, &bytes) in view.attributes.iter().enumerate() {
            // A decoded attribute is far larger than its entry in the node: past what the
            // budget pays for, the node is dropped as over budget.
            let Some(left) = keep.checked_sub(ATTRIBUTE_ENTRIES) else {
                view.dropped += 1;
                break;
            };
            // The views of the node before are read into, keeping their lists' room.
            if attributes.len() == read {
                attributes.push(AttributeView::default());
            }
            let Some(a) = attributes.get_mut(read) else {
                break;
            };
            a.read_into(bytes, left)
                .map_err(|e| format!("attribute {i}: {e}"))?;
            keep = left.saturating_sub((a.floats.len() + a.ints.len() + a.strings.len()) as u64);
            read += 1;
        }
        attributes.truncate(read);
        Ok(())
    }

    fn node(
        &mut self,
        buffers: &mut Buffers<'b>,
        index: usize,
        nodes: &[&'b [u8]],
        types: &NameMap<'b, &TypeView>,
        at: Option<u64>,
    ) {
        let Buffers {
            view: n,
            attributes,
            inputs,
            outputs,
            attrs,
        } = buffers;
        let op_id = self.graph().next_id();
        let item = Item::Node {
            graph: self.id,
            node: op_id,
        };
        inputs.reserve(n.inputs.len());
        for &name in &n.inputs {
            let id = if name.is_empty() {
                None
            } else {
                self.lookup(name, Some(index), nodes, item)
            };
            inputs.push(id);
        }
        // The operator's index moves if lookups captured values; take it again.
        let op_id = self.graph().next_id();
        self.push(Name::from(n.name), NewKind::Unknown { tag: 0 }, at);
        if !n.module.is_empty() {
            if let Some(path) = self.r.cx.spelled(n.module, Place::at(at)) {
                if self.graph().scopes.is_empty() {
                    // An exporter that records one node's module records every node's; past
                    // the first 65,536, the list grows as it must.
                    let rest = nodes.len().saturating_sub(index).min(1 << 16);
                    self.graph().scopes.reserve(rest);
                }
                let scope = RecordedScope { node: op_id, path };
                self.graph().scopes.push(scope);
            }
        }
        let place = Place::at(at).item(Item::Node {
            graph: self.id,
            node: op_id,
        });
        let schema = schema::check_node(
            &self.r.schemas,
            self.id,
            n,
            attributes,
            place,
            self.r.cx.out,
        );
        if let Some(schema) = schema {
            self.r.schemas.found(self.id, op_id, schema);
        }
        if !attributes.is_empty() {
            // Exported graphs have three attributes for every four operators, and a Constant,
            // with a tensor, for every third.
            let rest = self.r.cx.affordable(nodes.len().saturating_sub(index));
            self.graph().nodes.room_for_attrs(rest);
            if attributes.iter().any(|a| a.t.is_some()) {
                self.r.cx.inv.room_for_tensors(rest / 2);
            }
        }
        attrs.reserve(attributes.len());
        for a in attributes.iter_mut() {
            let attr = self.attribute(a, op_id, schema);
            attrs.push(attr);
        }
        let subgraphs = attrs
            .iter()
            .flat_map(|a| match &a.value {
                AttrValue::Graph(g) => vec![g.graph],
                AttrValue::Graphs(gs) => gs.iter().map(|g| g.graph).collect(),
                _ => Vec::new(),
            })
            .collect::<Vec<_>>();
        outputs.reserve(n.outputs.len());
        for &name in &n.outputs {
            if name.is_empty() {
                outputs.push(None);
                continue;
            }
            let ty = types.get(self.in_file(name)).copied();
            let kind = NewKind::Value(value(ty, &mut self.r.cx.names));
            let id = self.push(Name::from(name), kind, None);
            // Defined before, as onnx's checker sees it: in this graph, or in a graph
            // enclosing this subgraph (training graphs and functions see only their own).
            let earlier = if self.define(name, id) {
                Some("in this graph")
            } else {
                self.enclosing_defines(name, true)
                    .then_some("in an enclosing graph")
            };
            if let Some(place) = earlier {
                let message = format!(
                    "output \"{}\" of node {index} is already defined {place}; each name is assigned once",
                    Name::from(name)
                );
                let item = Item::Node {
                    graph: self.id,
                    node: op_id,
                };
                self.r
                    .cx
                    .report(&NOT_SSA, Place::at(at).item(item), message);
            }
            outputs.push(Some(id));
        }
        let at = self.offset(n.op_type);
        let domain = (!n.domain.is_empty()).then(|| self.r.symbol(n.domain, at));
        // A known operator's name is the table's; another is copied once for every node.
        let op_type = match schema {
            Some(schema) => Symbol::Static(schema.name),
            None => self.r.symbol(n.op_type, at),
        };
        let parts = OperatorParts {
            op_type,
            attrs,
            inputs,
            outputs,
            domain,
            subgraphs: subgraphs.into(),
        };
        (self.graph().nodes).set_operator(op_id, parts);
    }

    /// Queues a subgraph owned by node `op` and returns its id; `None` past the depth limit,
    /// which bounds the work a hostile chain of nested graphs can cause.
    fn subgraph(&mut self, g: &[u8], op: NodeId) -> Option<GraphRef> {
        if !self.r.cx.spend(SUBGRAPH_ENTRIES, Place::at(self.offset(g))) {
            return None;
        }
        if self.depth >= MAX_DEPTH {
            let at = self.graph().node(op).and_then(|n| n.offset.get());
            self.r.cx.report(
                &PROTOBUF_INVALID,
                Place::at(at).item(Item::Node {
                    graph: self.id,
                    node: op,
                }),
                format!("subgraphs nest more than {MAX_DEPTH} deep; deeper ones are not read"),
            );
            return None;
        }
        let id = self.r.cx.inv.graphs.len();
        let opsets = self
            .r
            .schemas
            .graph_opsets
            .get(self.id)
            .copied()
            .unwrap_or(0);
        self.r.schemas.assign(id, opsets);
        self.r.cx.inv.graphs.push(Graph {
            parent: Some(SubgraphOf {
                graph: self.id,
                node: op,
            }),
            ..Graph::default()
        });
        self.queue.push_back(Job {
            body: Body::Graph(self.in_file(g)),
            id,
            scope: Some(self.id),
            depth: self.depth + 1,
        });
        Some(GraphRef { graph: id })
    }
}

/// Types declared for a graph's values (inputs, outputs, others), by name.
fn types<'g, 'b>(lists: [&'g [ValueView<'b>]; 3]) -> NameMap<'b, &'g TypeView<'b>> {
    lists
        .into_iter()
        .flatten()
        .filter_map(|v| Some((v.name?, v.ty.as_ref()?)))
        .collect()
}

/// A value's dtype and shape from its declared type.
fn value(ty: Option<&TypeView>, shared: &mut Interner) -> Value {
    let Some(t) = ty else {
        return Value::default();
    };
    let shape = t.shape.as_ref().map(|dims| {
        let dims = dims
            .iter()
            .map(|d| match *d {
                DimView::Size(v) => {
                    u64::try_from(v).map_or(Dim::Symbolic(Name::from("?")), Dim::Fixed)
                }
                DimView::Param(p) => Dim::Symbolic(Name::from(p)),
                DimView::Unknown => Dim::Symbolic(Name::from("?")),
            })
            .collect();
        shared.shape(dims)
    });
    Value {
        dtype: t.elem_type.and_then(from_onnx),
        shape,
        composite: (t.composite.as_deref()).map(|c| Box::new(Composite(c.into()))),
    }
}
