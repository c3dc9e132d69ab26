//! Legacy programs: a ProgramDesc protobuf (`.pdmodel`, `__model__`), read in place.
//!
//! Each block becomes a graph, its variables value nodes and its ops operator nodes whose
//! inputs and outputs are the variables they name. Nothing is collected before it is paid
//! for: the fields of a block are walked twice (variables, then ops) instead of being kept.

use super::dtypes;
use super::program::{self, sort, Param};
use super::record;
use super::rules::*;
use crate::check::{Findings, Item, Place};
use crate::escape::EXCERPT;
use crate::formats::shared::bytes::offset_in;
use crate::formats::shared::context::Context;
use crate::formats::shared::numbers::{low32, narrow, signed64};
use crate::formats::shared::protobuf::{self, Field, Scalar, Value as Wire};
use crate::inventory::hashing::Seeded;
use crate::inventory::{
    Attr, AttrValue, DType, GraphId, GraphRef, Name, NewKind, NodeId, Operator, Value,
};
use std::collections::HashMap;

/// Variable types that have no record in the parameter stream, though persistable.
const NOT_PARAMETERS: &[u64] = &[9, 10, 17]; // FEED_MINIBATCH, FETCH_LIST, RAW

/// Ancestor blocks searched for a name before it counts as undeclared.
const MAX_ANCESTORS: usize = 64;

/// A variable's type, and the element type and dims of its tensor, if it has one.
type Declared = (u64, Option<u64>, Option<Vec<i64>>);

type Names<'b> = HashMap<&'b [u8], NodeId, Seeded>;

/// Reads the ProgramDesc `cx` reads into its inventory; returns its parameters, sorted.
pub fn read(cx: &mut Context<'_>) -> Vec<Param> {
    let file = cx.bytes;
    let mut reader = Reader {
        file,
        cx,
        names: Vec::new(),
        parents: Vec::new(),
        params: Vec::new(),
    };
    reader.program();
    let mut params = reader.params;
    sort(&mut params);
    params
}

/// Reports parameters of both FP16 and BF16, which Paddle Inference refuses in a ProgramDesc.
pub fn mixed_half_types(params: &[Param], out: &mut Findings) {
    let first = |dtype| params.iter().find(|p| p.dtype == Some(dtype));
    let (Some(f16), Some(bf16)) = (first(DType::F16), first(DType::BF16)) else {
        return;
    };
    let message = format!(
        "variable \"{}\" is FP16 and \"{}\" BF16; Paddle Inference refuses a program whose \
weights mix the two",
        f16.name.display(),
        bf16.name.display()
    );
    let place = Place::at(bf16.offset).item(Item::Node {
        graph: 0,
        node: bf16.node,
    });
    out.add(&MIXED_HALF_TYPES, place, message);
}

struct Reader<'a, 'b, 'c> {
    file: &'b [u8],
    cx: &'a mut Context<'c>,
    /// The names each block declares.
    names: Vec<Names<'b>>,
    /// Each block's parent block, if valid.
    parents: Vec<Option<usize>>,
    params: Vec<Param>,
}

/// The fields of `msg`, or the first error as a message with its absolute offset.
fn fields<'b>(
    file: &[u8],
    msg: &'b [u8],
) -> impl Iterator<Item = Result<Field<'b>, (Option<u64>, String)>> {
    let base = offset_in(file, msg);
    protobuf::fields(msg).map(move |f| f.map_err(|e| (base.map(|b| b + e.at as u64), e.what)))
}

/// The field's bytes, or an error naming it.
fn bytes<'b>(field: &Field<'b>, what: &str) -> Result<&'b [u8], String> {
    match field.value {
        Wire::Bytes(b) => Ok(b),
        other => Err(format!("{what}: unexpected {} value", other.wire_type())),
    }
}

fn varint(field: &Field<'_>, what: &str) -> Result<u64, String> {
    match field.value {
        Wire::Varint(v) => Ok(v),
        other => Err(format!("{what}: unexpected {} value", other.wire_type())),
    }
}

impl<'b> Reader<'_, 'b, '_> {
    fn invalid(&mut self, at: Option<u64>, message: impl Into<String>) {
        self.cx.report(&PROGRAM_INVALID, Place::at(at), message);
    }

    fn at(&self, part: &[u8]) -> Option<u64> {
        offset_in(self.file, part)
    }

    fn program(&mut self) {
        let mut blocks = Vec::new();
        for field in fields(self.file, self.file) {
            let field = match field {
                Ok(f) => f,
                Err((at, what)) => return self.invalid(at, format!("ProgramDesc: {what}")),
            };
            match field.number {
                1 => match bytes(&field, "ProgramDesc.blocks") {
                    Ok(block) => {
                        let Some(graph) = program::graph(
                            self.cx,
                            &format!("block {}", blocks.len()),
                            self.at(block),
                        ) else {
                            return;
                        };
                        blocks.push((graph, block));
                    }
                    Err(e) => return self.invalid(Some(field.at as u64), e),
                },
                4 => self.version(&field),
                _ => {}
            }
        }
        if blocks.is_empty() {
            self.invalid(Some(0), "ProgramDesc has no blocks");
        }
        self.names = vec![Names::default(); blocks.len()];
        self.parents = vec![None; blocks.len()];
        for &(graph, block) in &blocks {
            if self.cx.budget.exhausted() {
                return;
            }
            self.block(graph, block, blocks.len());
        }
    }

    fn version(&mut self, field: &Field<'b>) {
        let version = bytes(field, "ProgramDesc.version").and_then(|v| {
            let mut version = 0;
            for f in protobuf::fields(v) {
                let f = f.map_err(|e| e.to_string())?;
                if f.number == 1 {
                    version = signed64(varint(&f, "Version.version")?);
                }
            }
            Ok(version)
        });
        match version {
            Ok(v) => {
                let text = format!("{}.{}.{}", v / 1_000_000, v / 1000 % 1000, v % 1000);
                self.cx.inv.format_version = format!("ProgramDesc {text}");
                self.cx.inv.property("version", v, Some(field.at as u64));
            }
            Err(e) => self.invalid(Some(field.at as u64), e),
        }
    }

    /// Reads one block into `graph`: its header, then its variables, then its ops.
    fn block(&mut self, graph: GraphId, block: &'b [u8], count: usize) {
        let at = self.at(block);
        let (mut idx, mut parent) = (None, None);
        for field in fields(self.file, block) {
            let field = match field {
                Ok(f) => f,
                Err((at, what)) => return self.invalid(at, format!("BlockDesc: {what}")),
            };
            let value = match field.number {
                1 | 2 => varint(&field, "BlockDesc.idx/parent_idx"),
                _ => continue,
            };
            match value {
                Ok(v) if field.number == 1 => idx = Some(v),
                Ok(v) => parent = Some(signed64(v)),
                Err(e) => return self.invalid(at, e),
            }
        }
        if idx.is_none() || parent.is_none() {
            return self.invalid(at, "BlockDesc lacks required field idx or parent_idx");
        }
        let position = graph - self.first_graph(count);
        if let Some(slot) = self.parents.get_mut(position) {
            *slot = parent
                .and_then(|p| usize::try_from(p).ok())
                .filter(|&p| p < count && p != position);
        }
        for field in fields(self.file, block).flatten() {
            if field.number == 3 {
                if let Wire::Bytes(var) = field.value {
                    self.var(graph, position, var);
                }
            }
        }
        for field in fields(self.file, block).flatten() {
            if field.number == 4 {
                if let Wire::Bytes(op) = field.value {
                    self.op(graph, position, op, count);
                }
            }
        }
    }

    /// The graph id of block 0: blocks are the last graphs added.
    fn first_graph(&self, count: usize) -> GraphId {
        self.cx.inv.graphs.len() - count
    }

    fn var(&mut self, graph: GraphId, position: usize, var: &'b [u8]) {
        let at = self.at(var);
        let mut name = None;
        let mut var_type = None;
        let mut persistable = false;
        for field in fields(self.file, var) {
            let field = match field {
                Ok(f) => f,
                Err((at, what)) => return self.invalid(at, format!("VarDesc: {what}")),
            };
            let result = match field.number {
                1 => bytes(&field, "VarDesc.name").map(|n| name = Some(n)),
                2 => bytes(&field, "VarDesc.type").map(|t| var_type = Some(t)),
                3 => varint(&field, "VarDesc.persistable").map(|p| persistable = p != 0),
                _ => Ok(()),
            };
            if let Err(e) = result {
                return self.invalid(at, e);
            }
        }
        let (Some(name), Some(var_type)) = (name, var_type) else {
            return self.invalid(at, "VarDesc lacks required field name or type");
        };
        let declared = match self.var_type(var_type) {
            Ok(d) => d,
            Err(e) => {
                let shown = crate::escape::excerpt(name, 500);
                return self.invalid(at, format!("VarDesc \"{shown}\": {e}"));
            }
        };
        let (kind, dtype, dims) = declared;
        let value = Value {
            dtype: dtype.and_then(dtypes::plain),
            shape: dims.as_deref().map(|d| program::shape(self.cx, d)),
            composite: None,
        };
        let shared = self.cx.name(name);
        let Some(node) =
            program::node(self.cx, graph, shared.clone(), NewKind::Value(value), at, 0)
        else {
            return;
        };
        if let Some(names) = self.names.get_mut(position) {
            names.insert(name, node);
        }
        if position == 0 && persistable && !NOT_PARAMETERS.contains(&kind) {
            self.params.push(Param {
                name: shared,
                dtype: dtype.and_then(dtypes::plain),
                dims,
                vocab: kind == dtypes::VOCAB,
                node,
                offset: at,
            });
        }
    }

    /// A VarType: its type, and the element type and dims of its tensor, if it has one.
    fn var_type(&self, var_type: &'b [u8]) -> Result<Declared, String> {
        let mut kind = None;
        let mut tensor = None;
        for f in protobuf::fields(var_type) {
            let f = f.map_err(|e| format!("VarType: {e}"))?;
            match f.number {
                1 => kind = Some(varint(&f, "VarType.type")?),
                // selected_rows is a TensorDesc; dense_tensor and tensor_array hold one in field 1.
                2 => tensor = Some(bytes(&f, "VarType.selected_rows")?),
                3 | 4 => {
                    let holder = bytes(&f, "VarType.dense_tensor")?;
                    for g in protobuf::fields(holder) {
                        let g = g.map_err(|e| format!("DenseTensorDesc: {e}"))?;
                        if g.number == 1 {
                            tensor = Some(bytes(&g, "DenseTensorDesc.tensor")?);
                        }
                    }
                }
                _ => {}
            }
        }
        let kind = kind.ok_or("VarType lacks required field type")?;
        let Some(tensor) = tensor else {
            return Ok((kind, None, None));
        };
        let at = self.at(tensor).unwrap_or(0);
        let (data_type, dims) = record::desc(tensor, at, 1 << 16).map_err(|p| p.message)?;
        Ok((kind, Some(data_type), Some(dims)))
    }

    fn op(&mut self, graph: GraphId, position: usize, op: &'b [u8], count: usize) {
        let at = self.at(op);
        let mut op_type = None;
        let mut attrs = Vec::new();
        let mut subgraphs = Vec::new();
        for field in fields(self.file, op) {
            let field = match field {
                Ok(f) => f,
                Err((at, what)) => return self.invalid(at, format!("OpDesc: {what}")),
            };
            let result = match field.number {
                // Slots are read in a second pass; each pays here, empty or not.
                1 | 2 => match bytes(&field, "OpDesc.inputs/outputs") {
                    Ok(_) if !self.cx.spend(1, Place::at(at)) => return,
                    other => other.map(drop),
                },
                3 => bytes(&field, "OpDesc.type").map(|t| op_type = Some(t)),
                4 => bytes(&field, "OpDesc.attrs").and_then(|a| {
                    if !self.cx.spend(1, Place::at(at)) {
                        return Ok(());
                    }
                    let attr = self.attr(a, count)?;
                    if let Some(attr) = attr {
                        if let AttrValue::Graph(g) = &attr.value {
                            subgraphs.push(g.graph);
                        }
                        attrs.push(attr);
                    }
                    Ok(())
                }),
                _ => Ok(()),
            };
            if let Err(e) = result {
                return self.invalid(at, e);
            }
        }
        let Some(op_type) = op_type else {
            return self.invalid(at, "OpDesc lacks required field type");
        };
        let op_type = self
            .cx
            .symbol(&String::from_utf8_lossy(op_type), Place::at(at));
        let (mut inputs, mut outputs, mut missing) = (Vec::new(), Vec::new(), Vec::new());
        for field in fields(self.file, op).flatten() {
            let (slot_kind @ (1 | 2), Wire::Bytes(slot)) = (field.number, field.value) else {
                continue;
            };
            for field in protobuf::fields(slot) {
                let Ok(field) = field else {
                    return self.invalid(at, "OpDesc.Var does not decode");
                };
                let Wire::Bytes(name) = field.value else {
                    continue;
                };
                if field.number != 2 {
                    continue;
                }
                if !self.cx.spend(1, Place::at(at)) {
                    return;
                }
                let node = if name.is_empty() || name == b"@EMPTY@" {
                    None
                } else {
                    let found = self.lookup(graph, position, name);
                    if found.is_none() {
                        missing.push(name);
                    }
                    found
                };
                if slot_kind == 2 {
                    outputs.push(node)
                } else {
                    inputs.push(node)
                }
            }
        }
        let scope = program::op_scope(self.cx, &attrs, at);
        let operator = Operator::new(
            op_type.clone(),
            attrs.into(),
            inputs.clone(),
            outputs.clone(),
        )
        .with_subgraphs(subgraphs.clone().into());
        let Some(node) = program::node(
            self.cx,
            graph,
            Name::default(),
            NewKind::Operator(operator),
            at,
            0,
        ) else {
            return;
        };
        program::record_scope(self.cx, graph, node, scope, at);
        let shown = || crate::escape::excerpt(op_type.as_bytes(), EXCERPT);
        for name in missing {
            let message = format!(
                "{} op {node} in block {position} names variable \"{}\", which its block does not declare",
                shown(),
                crate::escape::excerpt(name, 500)
            );
            let place = Place::at(at).item(Item::Node { graph, node });
            self.cx.report(&UNDECLARED_VARIABLE, place, message);
        }
        for sub in subgraphs {
            if let Some(g) = self.cx.inv.graphs.get_mut(sub).filter(|_| sub != graph) {
                g.parent
                    .get_or_insert(crate::inventory::SubgraphOf { graph, node });
            }
        }
        if let Some(g) = self.cx.inv.graphs.get_mut(graph).filter(|_| position == 0) {
            match &*op_type {
                "feed" => g.inputs.extend(outputs.into_iter().flatten()),
                "fetch" => g.outputs.extend(inputs.into_iter().flatten()),
                _ => {}
            }
        }
    }

    /// The node `name` is in `graph`: its own variable, or one of an enclosing block captured.
    fn lookup(&mut self, graph: GraphId, position: usize, name: &'b [u8]) -> Option<NodeId> {
        if let Some(&id) = self.names.get(position)?.get(name) {
            return Some(id);
        }
        let mut block = *self.parents.get(position)?;
        for _ in 0..MAX_ANCESTORS {
            let ancestor = block?;
            if let Some(&declared) = self.names.get(ancestor)?.get(name) {
                // Block graphs are consecutive: the ancestor's is as far from this one.
                let home = (graph - position).checked_add(ancestor)?;
                let home = self.cx.inv.graphs.get(home)?;
                let shared = home.node(declared)?.name.clone();
                let kind = NewKind::Value(Value::default());
                let id = program::node(self.cx, graph, shared, kind, None, 0)?;
                self.cx.inv.graphs.get_mut(graph)?.captures.push(id);
                self.names.get_mut(position)?.insert(name, id);
                return Some(id);
            }
            block = *self.parents.get(ancestor)?;
        }
        None
    }

    /// One attribute, or `None` for a kind the inventory does not show (scalars).
    fn attr(&mut self, attr: &'b [u8], blocks: usize) -> Result<Option<Attr>, String> {
        let mut name = None;
        let mut kind = None;
        let mut single = AttrValue::Int(0);
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        let mut strs = Vec::new();
        for f in protobuf::fields(attr) {
            let f = f.map_err(|e| format!("OpDesc.Attr: {e}"))?;
            let entries = match (f.number, f.value) {
                (1, Wire::Bytes(n)) => {
                    name = Some(n);
                    continue;
                }
                (2, Wire::Varint(k)) => {
                    kind = Some(k);
                    continue;
                }
                (3 | 12 | 13, Wire::Varint(v)) => {
                    single = AttrValue::Int(signed64(v));
                    continue;
                }
                (4, Wire::Fixed32(v)) => {
                    single = AttrValue::Float(f32::from_bits(v));
                    continue;
                }
                (19, Wire::Fixed64(v)) => {
                    single = AttrValue::Float(narrow(f64::from_bits(v)));
                    continue;
                }
                (10, Wire::Varint(v)) => {
                    single = AttrValue::Bool(v != 0);
                    continue;
                }
                (5 | 17, Wire::Bytes(s)) => {
                    single = AttrValue::Str(self.cx.name(s));
                    continue;
                }
                (8 | 18, Wire::Bytes(s)) => {
                    strs.push(self.cx.name(s));
                    1
                }
                (6 | 11 | 14 | 15, v) => v.count_scalars(Scalar::Varint)?,
                (7, v) => v.count_scalars(Scalar::Fixed32)?,
                (16, v) => v.count_scalars(Scalar::Fixed64)?,
                _ => continue,
            };
            if !self.cx.spend(entries, Place::FILE) {
                return Ok(None);
            }
            match f.number {
                6 | 11 | 14 | 15 => f
                    .value
                    .scalars(Scalar::Varint, |v| ints.push(signed64(v)))?,
                7 => f
                    .value
                    .scalars(Scalar::Fixed32, |v| floats.push(f32::from_bits(low32(v))))?,
                16 => f
                    .value
                    .scalars(Scalar::Fixed64, |v| floats.push(narrow(f64::from_bits(v))))?,
                _ => {}
            }
        }
        let name = name.ok_or("OpDesc.Attr lacks required field name")?;
        let kind = kind.ok_or("OpDesc.Attr lacks required field type")?;
        let graph = |i: i64| {
            usize::try_from(i)
                .ok()
                .filter(|&i| i < blocks)
                .map(|i| GraphRef {
                    graph: self.cx.inv.graphs.len() - blocks + i,
                })
        };
        let value = match kind {
            0 | 1 | 2 | 6 | 9 | 13 | 15 => single,
            3 | 7 | 11 => AttrValue::Ints(ints),
            4 | 12 => AttrValue::Floats(floats),
            5 | 14 => AttrValue::Strs(strs),
            8 => match single {
                AttrValue::Int(i) => match graph(i) {
                    Some(g) => AttrValue::Graph(g),
                    None => AttrValue::Int(i),
                },
                other => other,
            },
            10 => AttrValue::Graphs(ints.iter().filter_map(|&i| graph(i)).collect()),
            _ => return Ok(None),
        };
        let name = self
            .cx
            .symbol(&String::from_utf8_lossy(name), Place::at(self.at(name)));
        Ok(Some(Attr { name, value }))
    }
}
