//! Turning the verified FlatBuffer into inventory graphs, nodes and tensors.
//!
//! Graphs are visited from a queue, never by recursion, so deeply nested subgraphs and
//! graphs of millions of nodes need no stack beyond the verifier's own bounded depth.

use super::attrs;
use super::header::Container;
use super::rules::*;
use super::schema as fb;
use super::tables::{ATTR_TABLES, OPERATORS};
use super::version::MinVersion;
use crate::check::{generic, Item, Place};
use crate::formats::shared::budget::SUBGRAPH_ENTRIES;
use crate::formats::shared::context::Context;
use crate::formats::shared::flatbuffer::RawTable;
use crate::inventory::{
    Attr, AttrValue, DType, DataRange, Dim, Graph, GraphId, GraphRef, MetadataEntry, Name, NewKind,
    NewNode, NodeKind, Nodes, Operator, Storage, SubgraphOf, Symbol, Tensor, Value,
};
use std::collections::VecDeque;

/// Vtable slots of `Graph` fields (4 + 2 * field id).
const GRAPH_INPUTS: u16 = 6;
const GRAPH_OUTPUTS: u16 = 8;
const GRAPH_CAPTURES: u16 = 10;
/// Vtable slot of `Model.schema_version`.
const MODEL_SCHEMA_VERSION: u16 = 4;
/// Nodes walked between releases of the file's pages: a few megabytes of a large graph.
const RELEASE_EVERY: u32 = 1 << 16;

/// Walks a verified model into the context's inventory.
///
/// FlatBuffers let many offsets point at one table, so a small file can describe billions of
/// entries; each is paid for from the context's budget as it is read.
pub struct Walker<'c, 'a> {
    cx: &'c mut Context<'a>,
    /// The FlatBuffer bytes.
    buf: &'a [u8],
    layout: &'c Container,
    version: MinVersion,
}

impl<'c, 'a> Walker<'c, 'a> {
    /// A walker over `buf`, the FlatBuffer of the context's file described by `layout`.
    pub fn new(cx: &'c mut Context<'a>, buf: &'a [u8], layout: &'c Container) -> Self {
        Walker {
            cx,
            buf,
            layout,
            version: MinVersion::new(),
        }
    }

    fn abs(&self, pos: usize) -> u64 {
        self.layout.model_offset.saturating_add(pos as u64)
    }

    /// Reads the whole model and returns the minimum rten version it needs.
    pub fn run(mut self, model: fb::Model<'a>) {
        if !self.layout.v1 {
            self.version.require("0.11.0", || "the V2 container".into());
        }
        let schema_version = model.schema_version();
        if schema_version != 1 {
            let raw = RawTable::new(self.buf, model._tab.loc());
            let pos = raw.field_pos(MODEL_SCHEMA_VERSION).unwrap_or(raw.loc());
            self.cx.report(
                &SCHEMA_VERSION,
                Place::at(self.abs(pos)).item(Item::Field {
                    name: "schema_version",
                }),
                format!("Model.schema_version = {schema_version}, but only 1 exists"),
            );
        }
        self.cx.inv.property("schema_version", schema_version, None);
        if let Some(meta) = model.metadata() {
            self.metadata(meta);
        }
        let mut queue = VecDeque::from([(model.graph(), 0)]);
        self.cx.inv.graphs.push(Graph::default());
        while let Some((graph, id)) = queue.pop_front() {
            self.graph(graph, id, &mut queue);
        }
        self.cx.inv.runtime = Some(self.version.finish());
    }

    fn metadata(&mut self, meta: fb::Metadata<'a>) {
        self.version.require("0.4.0", || "model metadata".into());
        let fields = [
            ("onnx_hash", meta.onnx_hash()),
            ("description", meta.description()),
            ("license", meta.license()),
            ("commit", meta.commit()),
            ("code_repository", meta.code_repository()),
            ("model_repository", meta.model_repository()),
            ("run_id", meta.run_id()),
            ("run_url", meta.run_url()),
        ];
        for (key, value) in fields {
            if let Some(value) = value {
                self.cx.inv.metadata.push(MetadataEntry::new(key, value));
            }
        }
    }

    fn graph(
        &mut self,
        g: fb::Graph<'a>,
        id: GraphId,
        queue: &mut VecDeque<(fb::Graph<'a>, GraphId)>,
    ) {
        let raw = RawTable::new(self.buf, g._tab.loc());
        let nodes = g.nodes();
        let count = nodes.map_or(0, |n| n.len());
        let mut out_nodes = Nodes::default();
        // A graph's nodes are about half operators and half values; room is made for no more
        // than the budget can pay for, as graphs can share one vector of a million nodes.
        let room = self.cx.affordable(count);
        out_nodes.reserve(room / 2, room - room / 2, 0);
        for (index, node) in (0u32..).zip(nodes.iter().flatten()) {
            let op = node.data_as_operator_node();
            let links = op.map_or(0, |op| {
                let len = |v: Option<flatbuffers::Vector<'_, i32>>| v.map_or(0, |v| v.len());
                len(op.inputs()) + len(op.outputs())
            });
            let at = Place::at(self.abs(node._tab.loc()));
            if !self.cx.spend(1 + links as u64, at) {
                break;
            }
            if index % RELEASE_EVERY == RELEASE_EVERY - 1 {
                self.cx.file.release_all();
            }
            let kind = self.node(node, id, index, queue);
            out_nodes.push(NewNode {
                name: node.name().map(Name::from).unwrap_or_default(),
                kind,
                offset: self.abs(node._tab.loc()).into(),
            });
        }
        if raw.has(GRAPH_CAPTURES) {
            self.version
                .require("0.13.0", || "subgraph captures".into());
        }
        let offset = Some(self.layout.model_offset.saturating_add(raw.loc() as u64));
        if let Some(graph) = self.cx.inv.graphs.get_mut(id) {
            (graph.nodes, graph.offset) = (out_nodes, offset);
        }
        let inputs = self.refs(id, raw, GRAPH_INPUTS, "inputs");
        let outputs = self.refs(id, raw, GRAPH_OUTPUTS, "outputs");
        let captures = self.refs(id, raw, GRAPH_CAPTURES, "captures");
        if let Some(graph) = self.cx.inv.graphs.get_mut(id) {
            (graph.inputs, graph.outputs, graph.captures) = (inputs, outputs, captures);
        }
    }

    /// Reads a graph's input, output or capture list, checking each entry.
    fn refs(
        &mut self,
        graph: GraphId,
        raw: RawTable<'a>,
        slot: u16,
        list: &'static str,
    ) -> Vec<u32> {
        let Some((start, len)) = raw.vector(slot, 4) else {
            return Vec::new();
        };
        if !self.cx.spend(len as u64, Place::at(self.abs(start))) {
            return Vec::new();
        }
        let ids = raw.scalars::<u32>(slot).unwrap_or_default();
        for (index, &node_id) in ids.iter().enumerate().take(len) {
            let at = self.abs(start + 4 * index);
            let item = Item::GraphRef { graph, list, index };
            let nodes = self.cx.inv.graphs.get(graph).map(|g| &g.nodes);
            let problem = match nodes.and_then(|n| n.get(node_id)).map(|n| n.kind) {
                None => Some((
                    &GRAPH_REF_OUT_OF_RANGE,
                    format!(
                        "graph {list}[{index}] = {node_id}, but the graph has {} nodes{}",
                        nodes.map_or(0, |n| n.len()),
                        if node_id > i32::MAX as u32 {
                            " (rten panics on indices above i32::MAX)"
                        } else {
                            ""
                        }
                    ),
                )),
                Some(NodeKind::Operator(op)) => Some((
                    &GRAPH_REF_WRONG_KIND,
                    format!(
                        "graph {list}[{index}] = {node_id} is a {} operator, not a value",
                        op.op_type()
                    ),
                )),
                Some(NodeKind::Constant { .. }) if list == "inputs" => Some((
                    &GRAPH_INPUT_IS_CONSTANT,
                    format!(
                        "graph inputs[{index}] = {node_id} is a constant; callers cannot feed it"
                    ),
                )),
                _ => None,
            };
            if let Some((rule, message)) = problem {
                self.cx.report(rule, Place::at(at).item(item), message);
            }
        }
        ids
    }

    fn node(
        &mut self,
        node: fb::Node<'a>,
        graph: GraphId,
        index: u32,
        queue: &mut VecDeque<(fb::Graph<'a>, GraphId)>,
    ) -> NewKind {
        let at = self.abs(node._tab.loc());
        let item = Item::Node { graph, node: index };
        if let Some(op) = node.data_as_operator_node() {
            return NewKind::Operator(self.operator(op, graph, index, at, queue));
        }
        if let Some(c) = node.data_as_constant_node() {
            return self.constant(c, node, graph, index, at);
        }
        if let Some(v) = node.data_as_value_node() {
            return NewKind::Value(self.value(v, item, at));
        }
        let tag = node.data_type().0;
        self.cx.report(
            &UNKNOWN_NODE_KIND,
            Place::at(at).item(item),
            format!("node kind tag {tag} is not Operator (1), Constant (2) or Value (3)"),
        );
        NewKind::Unknown {
            tag: u32::from(tag),
        }
    }

    fn value(&mut self, v: fb::ValueNode<'a>, item: Item, at: u64) -> Value {
        let dtype = v.dtype().and_then(|d| {
            self.version.require("0.15.0", || "value node dtypes".into());
            let dtype = value_dtype(d.0);
            if dtype.is_none() {
                self.cx.report(&UNKNOWN_VALUE_DTYPE, Place::at(at).item(item), format!(
                        "ValueNode.dtype = {}, but only Int32 (0), Float (1), Int8 (2) and UInt8 (3) exist", d.0));
            }
            dtype
        });
        let shape = v.shape().map(|dims| {
            let dims = dims.iter().map(|d| match d.name() {
                Some(name) => Dim::Symbolic(name.into()),
                None => Dim::Fixed(u64::from(d.value())),
            });
            self.cx.names.shape(dims.collect())
        });
        Value {
            dtype,
            shape,
            composite: None,
        }
    }

    fn constant(
        &mut self,
        c: fb::ConstantNode<'a>,
        node: fb::Node<'a>,
        graph: GraphId,
        index: u32,
        at: u64,
    ) -> NewKind {
        let item = Item::Node { graph, node: index };
        let shape: Vec<u64> = c.shape().iter().map(u64::from).collect();
        let declared = c.dtype().map(|d| (d.0, constant_dtype(d.0)));
        // The verifier checks a union's table only for tags it knows, so the offset is
        // followed with bounds checks rather than by the generated accessor.
        let inline = RawTable::new(self.buf, c._tab.loc())
            .table(fb::ConstantNode::VT_DATA)
            .and_then(|t| {
                let (dtype, size) = inline_dtype(c.data_type().0)?;
                let (start, len) = t.vector(4, size)?;
                Some((
                    dtype,
                    DataRange {
                        file: 0,
                        offset: self.abs(start),
                        len: len.saturating_mul(size) as u64,
                    },
                ))
            });
        if matches!(inline, Some((DType::I8 | DType::U8, _))) {
            self.version
                .require("0.14.0", || "int8/uint8 constant data".into());
        }
        let (dtype, storage, data) = match (c.data_offset(), inline) {
            (Some(offset), _) => {
                let dtype = declared.and_then(|(_, d)| d);
                if self.layout.v1 {
                    self.cx.report(&V1_EXTERNAL_DATA, Place::at(at).item(item), format!(
                        "constant has data_offset = {offset}, but a V1 file has no tensor data section"));
                } else if dtype.is_none() {
                    let what = declared.map_or_else(
                        || "no dtype".to_owned(),
                        |(raw, _)| format!("dtype {raw}, which is unknown"),
                    );
                    self.cx.report(&EXTERNAL_DTYPE_MISSING, Place::at(at).item(item), format!(
                        "external constant (data_offset = {offset}) has {what}; its element size is unknown"));
                }
                let data = self.external_range(offset, &shape, dtype, at, item);
                (dtype, Storage::External, data)
            }
            (None, Some((dtype, range))) => (Some(dtype), Storage::Inline, Some(range)),
            (None, None) => {
                let tag = c.data_type().0;
                let what = if tag == 0 {
                    "no data and no data_offset".to_owned()
                } else {
                    format!("inline data of unknown type {tag}")
                };
                self.cx.report(
                    &CONSTANT_WITHOUT_DATA,
                    Place::at(at).item(item),
                    format!("constant has {what}"),
                );
                (declared.and_then(|(_, d)| d), Storage::Missing, None)
            }
        };
        let tensor = self.cx.inv.tensors.len();
        let name = node.name().map(Name::from).unwrap_or_default();
        self.cx.inv.tensors.push(Tensor {
            storage,
            data,
            graph,
            node: Some(index),
            ..Tensor::declared(name, dtype, shape, at)
        });
        NewKind::Constant { tensor }
    }

    /// The absolute range of an external constant, or `None` if it cannot be computed.
    fn external_range(
        &mut self,
        offset: u64,
        shape: &[u64],
        dtype: Option<DType>,
        at: u64,
        item: Item,
    ) -> Option<DataRange> {
        let base = self.layout.tensor_data_offset?;
        let (_, len) = Tensor::sizes(shape, dtype);
        let Some(start) = base.checked_add(offset) else {
            self.cx.report(
                &generic::TENSOR_OUT_OF_BOUNDS,
                Place::at(at).item(item),
                format!(
                    "tensor_data_offset {base} + data_offset {offset} overflows a 64-bit offset"
                ),
            );
            return None;
        };
        Some(DataRange {
            file: 0,
            offset: start,
            len: len?,
        })
    }

    fn operator(
        &mut self,
        op: fb::OperatorNode<'a>,
        graph: GraphId,
        index: u32,
        at: u64,
        queue: &mut VecDeque<(fb::Graph<'a>, GraphId)>,
    ) -> Operator {
        let item = Item::Node { graph, node: index };
        let ty = op.type_().0;
        let info = OPERATORS.get(usize::from(ty));
        let op_type: Symbol = match info {
            Some(info) => {
                self.version
                    .require(info.since, || format!("operator {}", info.name));
                Symbol::Static(info.name)
            }
            None => {
                self.cx.report(
                    &UNKNOWN_OPERATOR,
                    Place::at(at).item(item),
                    format!(
                        "operator type {ty} is newer than rtenx knows (0..={})",
                        OPERATORS.len() - 1
                    ),
                );
                Symbol::from(format!("#{ty}"))
            }
        };
        let mut attrs = self.attrs(op, &op_type, at, item);
        if let Some(feature) = info.and_then(|i| i.feature) {
            self.cx.report(
                &FEATURE_GATED_OPERATOR,
                Place::at(at).item(item),
                format!("{op_type} needs rten's \"{feature}\" feature"),
            );
        }
        let inputs = self.links(
            op.inputs(),
            index,
            &INVALID_OPERATOR_INPUT,
            "input",
            at,
            item,
        );
        let outputs = self.links(
            op.outputs(),
            index,
            &INVALID_OPERATOR_OUTPUT,
            "output",
            at,
            item,
        );
        if let Some(max) = info
            .and_then(|i| i.max_inputs)
            .filter(|&m| inputs.len() > m as usize)
        {
            self.cx.report(
                &TOO_MANY_INPUTS,
                Place::at(at).item(item),
                format!(
                    "{op_type} has {} inputs, but rten accepts at most {max}",
                    inputs.len()
                ),
            );
        }
        let mut subgraphs = Vec::new();
        for (name, sub) in subgraphs_of(op) {
            match sub {
                Some(_) if !self.cx.spend(SUBGRAPH_ENTRIES, Place::at(at)) => {}
                Some(sub) => {
                    let id = self.cx.inv.graphs.len();
                    self.cx.inv.graphs.push(Graph {
                        parent: Some(SubgraphOf { graph, node: index }),
                        ..Graph::default()
                    });
                    queue.push_back((sub, id));
                    attrs.push(Attr {
                        name: Symbol::Static(name),
                        value: AttrValue::Graph(GraphRef { graph: id }),
                    });
                    subgraphs.push(id);
                }
                None => self.cx.report(
                    &ATTRIBUTES_MISMATCH,
                    Place::at(at).item(item),
                    format!("{op_type} has no {name} subgraph"),
                ),
            }
        }
        Operator::new(op_type, attrs.into(), inputs.into_vec(), outputs.into_vec())
            .with_subgraphs(subgraphs.into())
    }

    /// Decodes the attribute table and checks that it is the one the operator reads.
    fn attrs(&mut self, op: fb::OperatorNode<'a>, op_type: &str, at: u64, item: Item) -> Vec<Attr> {
        let tag = op.attrs_type().0;
        let info = OPERATORS.get(usize::from(op.type_().0));
        let expected = info.and_then(|i| i.attrs);
        let table = usize::from(tag)
            .checked_sub(1)
            .and_then(|i| ATTR_TABLES.get(i));
        if tag != 0 && table.is_none() {
            self.cx.report(
                &UNKNOWN_ATTRIBUTES,
                Place::at(at).item(item),
                format!(
                    "attribute table type {tag} is newer than rtenx knows (1..={})",
                    ATTR_TABLES.len()
                ),
            );
        }
        if let (Some(info), Some(want)) = (info, expected) {
            let want_name = ATTR_TABLES
                .get(usize::from(want) - 1)
                .map_or("?", |t| t.name);
            let problem = match table {
                _ if tag == want => None,
                None if tag == 0 && info.attrs_required => Some(format!(
                    "{op_type} has no attributes; rten needs {want_name}"
                )),
                Some(t) => Some(format!(
                    "{op_type} has {} attributes, but rten reads {want_name}",
                    t.name
                )),
                None => None,
            };
            if let Some(message) = problem {
                self.cx
                    .report(&ATTRIBUTES_MISMATCH, Place::at(at).item(item), message);
            }
        }
        let raw = RawTable::new(self.buf, op._tab.loc()).table(fb::OperatorNode::VT_ATTRS);
        let (Some(table), Some(raw)) = (table, raw) else {
            return Vec::new();
        };
        let decoded = attrs::decode(table, raw);
        for field in decoded.newer_fields {
            if let Some(since) = field.since {
                self.version
                    .require(since, || format!("attribute {}.{}", table.name, field.name));
            }
        }
        for (field, value) in decoded.unknown_enums {
            self.cx.report(
                &UNKNOWN_ENUM_VALUE,
                Place::at(at).item(item),
                format!("{op_type} attribute {field} = {value} is not a value of its enum"),
            );
        }
        decoded.attrs
    }

    /// Reads operator inputs or outputs; each non-negative index must name an earlier node.
    fn links(
        &mut self,
        ids: Option<flatbuffers::Vector<'a, i32>>,
        index: u32,
        rule: &'static crate::check::Rule,
        what: &str,
        at: u64,
        item: Item,
    ) -> Box<[Option<u32>]> {
        let ids = ids
            .map(|v| v.iter().collect::<Vec<_>>())
            .unwrap_or_default();
        ids.iter()
            .enumerate()
            .map(|(slot, &id)| {
                let id = u32::try_from(id).ok()?;
                if id >= index {
                    self.cx.report(rule, Place::at(at).item(item), format!(
                        "{what} {slot} refers to node {id}, which is not before this node ({index})"));
                }
                Some(id)
            })
            .collect()
    }
}

/// The subgraph fields of If and Loop operators, with the subgraph if present. Another
/// operator that carries IfAttrs or LoopAttrs has subgraphs nobody runs: rten never loads
/// them, so neither are they walked here.
fn subgraphs_of(op: fb::OperatorNode<'_>) -> Vec<(&'static str, Option<fb::Graph<'_>>)> {
    match op.type_() {
        fb::OperatorType::If => op.attrs_as_if_attrs().map_or_else(Vec::new, |a| {
            vec![
                ("then_branch", a.then_branch()),
                ("else_branch", a.else_branch()),
            ]
        }),
        fb::OperatorType::Loop => op
            .attrs_as_loop_attrs()
            .map_or_else(Vec::new, |a| vec![("body", a.body())]),
        _ => Vec::new(),
    }
}

/// `DataType` of value nodes.
fn value_dtype(v: u8) -> Option<DType> {
    [DType::I32, DType::F32, DType::I8, DType::U8]
        .get(usize::from(v))
        .copied()
}

/// `ConstantDataType`, which orders Int32 and Float32 like `DataType`.
fn constant_dtype(v: u16) -> Option<DType> {
    value_dtype(u8::try_from(v).ok()?)
}

/// The dtype and element size of a `ConstantData` union member.
fn inline_dtype(tag: u8) -> Option<(DType, usize)> {
    Some(match tag {
        1 => (DType::F32, 4),
        2 => (DType::I32, 4),
        3 => (DType::I8, 1),
        4 => (DType::U8, 1),
        _ => return None,
    })
}
