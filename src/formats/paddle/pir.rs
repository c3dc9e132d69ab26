//! PIR programs: the JSON that Paddle 3.x writes (`base_code.magic == "pir"`).
//!
//! Each block becomes a graph, each operation an operator node and each value it defines a
//! value node, named `%<id>` unless a `data` or `fetch` op names it. Parameter operations
//! (the compressed `"p"` form, and the older `builtin.parameter`/`0.parameter`) define the
//! values that the parameter stream's records belong to.
//!
//! The JSON is read in place by a pull parser, depth first and in file order as Paddle's own
//! deserializer reads it (an op's inputs are looked up before its regions are read, its
//! results defined after them). Nothing of the file is kept but what becomes the inventory:
//! every op, slot, attribute, list value and dimension pays the budget, names are copied
//! once per place in the file, and the walk keeps its own stack, so nesting costs no call
//! stack.

use super::dtypes;
use super::program::{self, sort, Param};
use super::rules::*;
use crate::check::{Item, Place};
use crate::escape::EXCERPT;
use crate::formats::shared::bytes::Stop;
use crate::formats::shared::context::Context;
use crate::formats::shared::json::{self, Parser, Str, Token};
use crate::formats::shared::numbers::narrow;
use crate::inventory::hashing::Seeded;
use crate::inventory::{
    Attr, AttrValue, DType, GraphId, Name, NewKind, NodeId, Operator, SubgraphOf, Symbol, Value,
};
use std::collections::HashMap;

/// How deep the JSON may nest. Each region an op holds adds six levels (its list of regions,
/// the region, its blocks, the block, its ops, the op); types and attributes add a few. Paddle
/// reads nesting without a limit of its own (see README, "PaddlePaddle programs"): this lets
/// through 1,300 nested regions, far past the few that control flow needs.
pub const MAX_DEPTH: usize = 8192;

/// A step of the walk; it stops where the file is not JSON from there on
/// ([`Stop::Problem`]), or once the budget ran out ([`Stop::Reported`]).
type Step<T = ()> = Result<T, Stop<json::Error>>;

/// Reads the PIR program `cx` reads; returns its parameters, sorted.
pub fn read(cx: &mut Context<'_>) -> Vec<Param> {
    let file = cx.bytes;
    let mut reader = Reader {
        cx,
        values: HashMap::default(),
        captured: HashMap::default(),
        params: Vec::new(),
        magic: false,
        regions: false,
    };
    let mut p = Parser::new(file, MAX_DEPTH);
    match reader.document(&mut p) {
        Ok(()) => {}
        Err(Stop::Short(_) | Stop::Reported) => return sorted(reader.params),
        Err(Stop::Problem(e)) => {
            let message = format!("PIR JSON: {}", e.what);
            reader.cx.report(&PROGRAM_INVALID, Place::at(e.at), message);
            return Vec::new();
        }
    }
    if !reader.magic {
        let message = "base_code.magic is not \"pir\"";
        reader.cx.report(&PROGRAM_INVALID, Place::at(0), message);
        return Vec::new();
    }
    if !reader.regions {
        let message = "program.regions is missing or not a list";
        reader.cx.report(&PROGRAM_INVALID, Place::at(0), message);
        return Vec::new();
    }
    sorted(reader.params)
}

fn sorted(mut params: Vec<Param>) -> Vec<Param> {
    sort(&mut params);
    params
}

/// A result or block argument: `{"%": id, "TT": type}`.
#[derive(Default)]
struct Defined {
    id: Option<i64>,
    at: u64,
    dtype: Option<DType>,
    dims: Option<Vec<i64>>,
}

/// An operation read so far: its fields come in any order, and it becomes a node when it
/// ends.
struct Pending<'a> {
    graph: GraphId,
    at: u64,
    name: Option<Str<'a>>,
    inputs: Vec<Option<NodeId>>,
    /// Input ids no earlier operation or block argument defines.
    undefined: Vec<i64>,
    outputs: Vec<Defined>,
    attrs: Vec<Attr>,
    /// The compressed parameter form's name, `A[3]`.
    positional: Option<Str<'a>>,
    /// The `parameter_name` attribute of the older parameter forms.
    parameter_name: Option<Str<'a>>,
    /// The `name` attribute, which names the value of a `data` or `fetch` op.
    label: Option<Str<'a>>,
    /// The compressed parameter form's `OA[0]`.
    persistable: Option<bool>,
    /// Graphs of the blocks of its regions.
    subgraphs: Vec<GraphId>,
}

/// Where the walk is in the program's nesting.
enum Level<'a> {
    /// A list of regions.
    Regions,
    /// A region object; whether it had its list of blocks.
    Region { blocks: bool },
    /// A region's list of blocks.
    Blocks,
    /// A block object, which is `graph`; whether it had its list of ops.
    Block { graph: GraphId, ops: bool },
    /// A block's list of ops.
    Ops(GraphId),
    /// An op object.
    Op(Box<Pending<'a>>),
}

struct Reader<'b, 'c> {
    cx: &'b mut Context<'c>,
    /// Where each value id is defined: its graph and node.
    values: HashMap<i64, (GraphId, NodeId), Seeded>,
    /// The capture of a value in a graph other than its own.
    captured: HashMap<(GraphId, i64), NodeId, Seeded>,
    params: Vec<Param>,
    magic: bool,
    regions: bool,
}

impl<'a> Reader<'_, '_> {
    fn invalid(&mut self, at: u64, message: impl Into<String>) {
        self.cx.report(&PROGRAM_INVALID, Place::at(at), message);
    }

    /// Takes `n` entries, or stops the reading.
    fn spend(&mut self, n: u64, at: u64) -> Step {
        if self.cx.spend(n, Place::at(Some(at))) {
            Ok(())
        } else {
            Err(Stop::Reported)
        }
    }

    /// The name in the string `s`, copied once.
    fn name(&mut self, s: &Str<'a>) -> Name {
        self.cx.name_at(s.at, s.raw().len() as u64, || {
            s.unescape().into_owned().into_bytes()
        })
    }

    /// Reports that the value at `at` is `token` where `expected` belongs, and skips it.
    fn wrong(&mut self, p: &mut Parser<'a>, at: u64, token: &Token<'_>, expected: &str) -> Step {
        let message = format!("{expected} is {}", token.kind());
        self.invalid(at, message);
        p.finish_value(token)?;
        Ok(())
    }

    fn document(&mut self, p: &mut Parser<'a>) -> Step {
        match p.token()? {
            Some((_, Token::Object)) => {}
            Some((at, token)) => return self.wrong(p, at, &token, "the PIR program"),
            None => return Ok(()),
        }
        while let Some(key) = p.key_or_end()? {
            if key.is("base_code") {
                self.base_code(p)?;
            } else if key.is("program") {
                self.program(p)?;
            } else {
                p.skip_value()?;
            }
        }
        p.end()?;
        Ok(())
    }

    /// `{"magic": "pir", "version": 4, ...}`
    fn base_code(&mut self, p: &mut Parser<'a>) -> Step {
        let Some((_, Token::Object)) = p.token()? else {
            return Ok(());
        };
        while let Some(key) = p.key_or_end()? {
            match p.token()? {
                Some((_, Token::Str(s))) if key.is("magic") => self.magic = s.is("pir"),
                Some((at, Token::Number(n))) if key.is("version") => {
                    let version = n.as_i64().unwrap_or(0);
                    self.cx.inv.format_version = format!("PIR v{version}");
                    self.cx.inv.property("version", version, Some(at));
                }
                Some((_, token)) => p.finish_value(&token)?,
                None => {}
            }
        }
        Ok(())
    }

    /// `{"regions": [...]}`
    fn program(&mut self, p: &mut Parser<'a>) -> Step {
        let Some((_, Token::Object)) = p.token()? else {
            return Ok(());
        };
        while let Some(key) = p.key_or_end()? {
            match p.token()? {
                Some((_, Token::Array)) if key.is("regions") => {
                    self.regions = true;
                    self.walk(p)?;
                }
                Some((_, token)) => p.finish_value(&token)?,
                None => {}
            }
        }
        Ok(())
    }

    /// Reads a list of regions whose `[` was read, and everything nested in it.
    fn walk(&mut self, p: &mut Parser<'a>) -> Step {
        let mut stack = vec![Level::Regions];
        while let Some(level) = stack.last_mut() {
            match level {
                Level::Regions => match p.item_or_end()? {
                    None => drop(stack.pop()),
                    Some((_, Token::Object)) => stack.push(Level::Region { blocks: false }),
                    Some((at, token)) => self.wrong(p, at, &token, "a region")?,
                },
                Level::Region { blocks } => {
                    let Some(key) = p.key_or_end()? else {
                        if !*blocks {
                            self.invalid(p.pos(), "a region has no list of blocks");
                        }
                        stack.pop();
                        continue;
                    };
                    match p.token()? {
                        Some((_, Token::Array)) if key.is("blocks") => {
                            *blocks = true;
                            stack.push(Level::Blocks);
                        }
                        Some((at, token)) if key.is("blocks") => {
                            self.wrong(p, at, &token, "a region's blocks")?
                        }
                        Some((_, token)) => p.finish_value(&token)?,
                        None => {}
                    }
                }
                Level::Blocks => match p.item_or_end()? {
                    None => drop(stack.pop()),
                    Some((at, Token::Object)) => {
                        let graph =
                            program::graph(self.cx, "block", Some(at)).ok_or(Stop::Reported)?;
                        let owner = stack.iter_mut().rev().find_map(|l| match l {
                            Level::Op(op) => Some(op),
                            _ => None,
                        });
                        if let Some(op) = owner {
                            op.subgraphs.push(graph);
                        }
                        stack.push(Level::Block { graph, ops: false });
                    }
                    Some((at, token)) => self.wrong(p, at, &token, "a block")?,
                },
                Level::Block { graph, ops } => {
                    let graph = *graph;
                    let Some(key) = p.key_or_end()? else {
                        if !*ops {
                            self.invalid(p.pos(), "a block has no list of ops");
                        }
                        stack.pop();
                        continue;
                    };
                    if key.is("ops") {
                        match p.token()? {
                            Some((_, Token::Array)) => {
                                *ops = true;
                                stack.push(Level::Ops(graph));
                            }
                            Some((at, token)) => self.wrong(p, at, &token, "a block's ops")?,
                            None => {}
                        }
                    } else if key.is("#") {
                        match p.token()? {
                            Some((_, Token::Str(s))) => {
                                let name = self.name(&s);
                                if let Some(g) = self.cx.inv.graphs.get_mut(graph) {
                                    g.name = name;
                                }
                            }
                            Some((_, token)) => p.finish_value(&token)?,
                            None => {}
                        }
                    } else if key.is("args") || key.is("kwargs") {
                        self.arguments(p, graph)?;
                    } else {
                        p.skip_value()?;
                    }
                }
                Level::Ops(graph) => match p.item_or_end()? {
                    None => drop(stack.pop()),
                    Some((at, Token::Object)) => {
                        let op = Pending::new(*graph, at);
                        stack.push(Level::Op(Box::new(op)));
                    }
                    Some((at, token)) => self.wrong(p, at, &token, "an op")?,
                },
                Level::Op(op) => {
                    let Some(key) = p.key_or_end()? else {
                        if let Some(Level::Op(op)) = stack.pop() {
                            self.finish(*op)?;
                        }
                        continue;
                    };
                    if key.is("regions") {
                        match p.token()? {
                            Some((_, Token::Array)) => stack.push(Level::Regions),
                            Some((at, token)) => self.wrong(p, at, &token, "an op's regions")?,
                            None => {}
                        }
                    } else {
                        self.field(p, op, key)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A block's arguments: values defined by the block itself, its graph's inputs.
    fn arguments(&mut self, p: &mut Parser<'a>, graph: GraphId) -> Step {
        let Some((at, token)) = p.token()? else {
            return Ok(());
        };
        if token != Token::Array {
            return self.wrong(p, at, &token, "a block's arguments");
        }
        while let Some((at, token)) = p.item_or_end()? {
            let value = self.defined(p, at, token)?;
            let node = self.define(graph, &value, None);
            if let Some((node, g)) = node.zip(self.cx.inv.graphs.get_mut(graph)) {
                g.inputs.push(node);
            }
        }
        Ok(())
    }

    /// One field of an op.
    fn field(&mut self, p: &mut Parser<'a>, op: &mut Pending<'a>, key: Str<'a>) -> Step {
        let Some((at, token)) = p.token()? else {
            return Ok(());
        };
        match (&*key.unescape(), token) {
            ("#", Token::Str(s)) => op.name = Some(s),
            ("I", Token::Array) => {
                while let Some((at, token)) = p.item_or_end()? {
                    self.spend(1, at)?;
                    let id = self.value_id(p, token)?;
                    let input = match id {
                        Some(0) | None => None,
                        Some(id) => {
                            let node = self.used(op.graph, id);
                            if node.is_none() {
                                op.undefined.push(id);
                            }
                            node
                        }
                    };
                    op.inputs.push(input);
                }
            }
            ("O", Token::Object) => op.outputs.push(self.defined(p, at, Token::Object)?),
            ("O", Token::Array) => {
                while let Some((at, token)) = p.item_or_end()? {
                    self.spend(1, at)?;
                    op.outputs.push(self.defined(p, at, token)?);
                }
            }
            ("A", Token::Array) => {
                let mut index = 0;
                while let Some((at, token)) = p.item_or_end()? {
                    self.spend(1, at)?;
                    match token {
                        Token::Str(s) if index == 3 => op.positional = Some(s),
                        Token::Object => self.attribute(p, op)?,
                        other => p.finish_value(&other)?,
                    }
                    index += 1;
                }
            }
            ("OA", Token::Array) => {
                if let Some((_, first)) = p.item_or_end()? {
                    op.persistable = match first {
                        Token::Number(n) => Some(n.as_i64() == Some(1)),
                        Token::Bool(b) => Some(b),
                        _ => Some(false),
                    };
                    p.finish_value(&first)?;
                    p.finish()?;
                }
            }
            (_, token) => p.finish_value(&token)?,
        }
        Ok(())
    }

    /// The id of a value reference `{"%": id}` whose first token is `token`.
    fn value_id(&mut self, p: &mut Parser<'a>, token: Token<'a>) -> Step<Option<i64>> {
        if token != Token::Object {
            p.finish_value(&token)?;
            return Ok(None);
        }
        let mut id = None;
        while let Some(key) = p.key_or_end()? {
            match p.token()? {
                Some((_, Token::Number(n))) if key.is("%") => id = n.as_i64(),
                Some((_, token)) => p.finish_value(&token)?,
                None => {}
            }
        }
        Ok(id)
    }

    /// A result or block argument `{"%": id, "TT": type}` whose first token is `token`.
    fn defined(&mut self, p: &mut Parser<'a>, at: u64, token: Token<'a>) -> Step<Defined> {
        let mut value = Defined {
            at,
            ..Defined::default()
        };
        if token != Token::Object {
            p.finish_value(&token)?;
            return Ok(value);
        }
        while let Some(key) = p.key_or_end()? {
            match p.token()? {
                Some((_, Token::Number(n))) if key.is("%") => value.id = n.as_i64(),
                Some((_, Token::Object)) if key.is("TT") => {
                    (value.dtype, value.dims) = self.tensor_type(p)?;
                }
                Some((_, token)) => p.finish_value(&token)?,
                None => {}
            }
        }
        Ok(value)
    }

    /// The element type and dims of a `0.t_dtensor` type whose `{` was read:
    /// `{"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, [dims], layout, lod, offset]}`.
    fn tensor_type(&mut self, p: &mut Parser<'a>) -> Step<(Option<DType>, Option<Vec<i64>>)> {
        let (mut dense, mut dtype, mut dims) = (false, None, None);
        while let Some(key) = p.key_or_end()? {
            match p.token()? {
                Some((_, Token::Str(s))) if key.is("#") => dense = s.raw().ends_with("t_dtensor"),
                Some((_, Token::Array)) if key.is("D") => {
                    let mut index = 0;
                    while let Some((_, token)) = p.item_or_end()? {
                        match (index, token) {
                            (0, Token::Object) => dtype = self.element_type(p)?,
                            (1, Token::Array) => dims = Some(self.ints(p, -1)?),
                            (_, token) => p.finish_value(&token)?,
                        }
                        index += 1;
                    }
                }
                Some((_, token)) => p.finish_value(&token)?,
                None => {}
            }
        }
        Ok(if dense { (dtype, dims) } else { (None, None) })
    }

    /// `{"#": "0.t_f32"}` as an element type.
    fn element_type(&mut self, p: &mut Parser<'a>) -> Step<Option<DType>> {
        let mut dtype = None;
        while let Some(key) = p.key_or_end()? {
            match p.token()? {
                Some((_, Token::Str(s))) if key.is("#") => dtype = dtypes::from_pir(s.raw()),
                Some((_, token)) => p.finish_value(&token)?,
                None => {}
            }
        }
        Ok(dtype)
    }

    /// The items of a list whose `[` was read, as integers (`other` for any item that is
    /// not one), each paid for.
    fn ints(&mut self, p: &mut Parser<'a>, other: i64) -> Step<Vec<i64>> {
        let mut ints = Vec::new();
        while let Some((at, token)) = p.item_or_end()? {
            self.spend(1, at)?;
            let value = match token {
                Token::Number(n) => n.as_i64(),
                _ => None,
            };
            ints.push(value.unwrap_or(other));
            p.finish_value(&token)?;
        }
        Ok(ints)
    }

    /// An attribute `{"N": name, "AT": {"#": type, "D": data}}` whose `{` was read, kept
    /// when its data is a boolean, number, string or list of integers.
    fn attribute(&mut self, p: &mut Parser<'a>, op: &mut Pending<'a>) -> Step {
        let (mut name, mut value, mut text) = (None, None, None);
        while let Some(key) = p.key_or_end()? {
            match p.token()? {
                Some((at, Token::Str(s))) if key.is("N") => name = Some((at, s)),
                Some((_, Token::Object)) if key.is("AT") => {
                    while let Some(key) = p.key_or_end()? {
                        let Some((_, token)) = p.token()? else { break };
                        if !key.is("D") {
                            p.finish_value(&token)?;
                            continue;
                        }
                        value = match token {
                            Token::Bool(b) => Some(AttrValue::Bool(b)),
                            Token::Number(n) => Some(match n.as_i64() {
                                Some(i) => AttrValue::Int(i),
                                None => AttrValue::Float(narrow(n.as_f64())),
                            }),
                            Token::Str(s) => {
                                text = Some(s);
                                Some(AttrValue::Str(self.name(&s)))
                            }
                            Token::Array => {
                                let ints = self.ints(p, i64::MIN)?;
                                let all = !ints.contains(&i64::MIN);
                                all.then_some(AttrValue::Ints(ints))
                            }
                            other => {
                                p.finish_value(&other)?;
                                None
                            }
                        };
                    }
                }
                Some((_, token)) => p.finish_value(&token)?,
                None => {}
            }
        }
        let (Some((at, name)), Some(value)) = (name, value) else {
            return Ok(());
        };
        if name.is("parameter_name") {
            op.parameter_name = text;
        } else if name.is("name") {
            op.label = text;
        }
        let name = self.cx.symbol(&name.unescape(), Place::at(Some(at)));
        op.attrs.push(Attr { name, value });
        Ok(())
    }

    /// Turns an op that ended into its nodes.
    fn finish(&mut self, op: Pending<'a>) -> Step {
        let Some(name) = op.name else {
            self.invalid(op.at, "an op has no name (\"#\")");
            return Ok(());
        };
        let top = op.graph == 0;
        let kind = name.unescape();
        match &*kind {
            "p" => {
                let persistable = op.persistable.unwrap_or(true);
                self.parameter(&op, op.positional, top && persistable)
            }
            "0.parameter" | "builtin.parameter" => self.parameter(&op, op.parameter_name, top),
            _ => self.operation(op, &name),
        }
    }

    /// A parameter op: the value it defines, named after the parameter.
    fn parameter(&mut self, op: &Pending<'a>, name: Option<Str<'a>>, kept: bool) -> Step {
        let Some(name) = name else {
            self.invalid(op.at, "a parameter op has no parameter_name");
            return Ok(());
        };
        let Some(out) = op.outputs.first() else {
            return Ok(());
        };
        let name = self.name(&name);
        let Some(node) = self.define(op.graph, out, Some(name.clone())) else {
            return Ok(());
        };
        if kept {
            self.params.push(Param {
                name,
                dtype: out.dtype,
                dims: out.dims.clone(),
                vocab: false,
                node,
                offset: Some(out.at),
            });
        }
        Ok(())
    }

    /// Adds the value node for a result or block argument.
    fn define(&mut self, graph: GraphId, value: &Defined, name: Option<Name>) -> Option<NodeId> {
        let id = value.id?;
        let kind = NewKind::Value(Value {
            dtype: value.dtype,
            shape: value.dims.as_deref().map(|d| program::shape(self.cx, d)),
            composite: None,
        });
        let name = name.unwrap_or_else(|| Name::from(format!("%{id}")));
        let node = program::node(self.cx, graph, name, kind, Some(value.at), 0)?;
        self.values.insert(id, (graph, node));
        Some(node)
    }

    /// The node for value `id` used in `graph`: its own, or its capture from another graph.
    fn used(&mut self, graph: GraphId, id: i64) -> Option<NodeId> {
        let &(defined_in, node) = self.values.get(&id)?;
        if defined_in == graph {
            return Some(node);
        }
        if let Some(&capture) = self.captured.get(&(graph, id)) {
            return Some(capture);
        }
        let name = self.cx.inv.graphs.get(defined_in)?.node(node)?.name.clone();
        let kind = NewKind::Value(Value::default());
        let capture = program::node(self.cx, graph, name, kind, None, 0)?;
        self.cx.inv.graphs.get_mut(graph)?.captures.push(capture);
        self.captured.insert((graph, id), capture);
        Some(capture)
    }

    fn operation(&mut self, op: Pending<'a>, name: &Str<'a>) -> Step {
        let Pending { graph, at, .. } = op;
        let kind = name.unescape();
        let label = match &*kind {
            "1.data" | "1.fetch" => op.label.as_ref().map(|s| self.name(s)),
            _ => None,
        };
        let mut outputs = Vec::with_capacity(op.outputs.len());
        for out in &op.outputs {
            outputs.push(self.define(graph, out, label.clone()));
        }
        let (domain, op_type) = split(&kind);
        // A dialect Paddle defines is named by the table; another is shared once made.
        let domain = match domain {
            Some(Ok(known)) => Some(Symbol::Static(known)),
            Some(Err(other)) => Some(self.cx.symbol(other, Place::at(Some(at)))),
            None => None,
        };
        let scope = program::op_scope(self.cx, &op.attrs, Some(at));
        let operator = Operator::new(
            self.cx.symbol(op_type, Place::at(Some(at))),
            op.attrs.into(),
            op.inputs.clone(),
            outputs.clone(),
        )
        .with_domain(domain)
        .with_subgraphs(op.subgraphs.clone().into());
        let node = program::node(
            self.cx,
            graph,
            Name::default(),
            NewKind::Operator(operator),
            Some(at),
            0,
        )
        .ok_or(Stop::Reported)?;
        program::record_scope(self.cx, graph, node, scope, Some(at));
        let shown = || crate::escape::excerpt(kind.as_bytes(), EXCERPT);
        for id in op.undefined {
            let message = format!(
                "{} op {node} uses value %{id}, which no earlier operation or block argument defines",
                shown()
            );
            let place = Place::at(at).item(Item::Node { graph, node });
            self.cx.report(&VALUE_BEFORE_DEFINITION, place, message);
        }
        for &sub in &op.subgraphs {
            if let Some(g) = self.cx.inv.graphs.get_mut(sub) {
                g.parent = Some(SubgraphOf { graph, node });
            }
        }
        if let Some(g) = self.cx.inv.graphs.get_mut(graph).filter(|_| graph == 0) {
            match &*kind {
                "1.data" => g.inputs.extend(outputs.into_iter().flatten()),
                "1.fetch" => g.outputs.extend(op.inputs.into_iter().flatten()),
                _ => {}
            }
        }
        Ok(())
    }
}

impl Pending<'_> {
    fn new(graph: GraphId, at: u64) -> Self {
        Pending {
            graph,
            at,
            name: None,
            inputs: Vec::new(),
            undefined: Vec::new(),
            outputs: Vec::new(),
            attrs: Vec::new(),
            positional: None,
            parameter_name: None,
            label: None,
            persistable: None,
            subgraphs: Vec::new(),
        }
    }
}

/// The op's dialect (`Ok("pd_op")` for 1, `Ok("builtin")` for 0, and so on; `Err` with the
/// text of one Paddle does not define) and its name without the dialect.
fn split(name: &str) -> (Option<Result<&'static str, &str>>, &str) {
    let Some((dialect, op)) = name.split_once('.') else {
        return (None, name);
    };
    let domain = match dialect {
        "0" => Ok("builtin"),
        "1" => Ok("pd_op"),
        "2" => Ok("cf"),
        "3" => Ok("custom_op"),
        "4" => Ok("dist"),
        other => Err(other),
    };
    (Some(domain), op)
}
