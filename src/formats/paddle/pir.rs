//! PIR programs: the JSON that Paddle 3.x writes (`base_code.magic == "pir"`).
//!
//! Each block becomes a graph, each operation an operator node and each value it defines a
//! value node, named `%<id>` unless a `data` or `fetch` op names it. Parameter operations
//! (the compressed `"p"` form, and the older `builtin.parameter`/`0.parameter`) define the
//! values that the parameter stream's records belong to. The JSON is parsed whole, so files
//! over [`MAX_JSON`] are refused before parsing.

use super::dtype;
use super::program::{shape, sort, Builder, Param};
use super::rules::*;
use crate::check::generic::TOO_LARGE_TO_READ;
use crate::check::{Item, Place};
use crate::inventory::{Attr, AttrValue, GraphId, Name, NodeId, NodeKind, Operator, Symbol, Value};
use serde_json::Value as Json;
use std::collections::{HashMap, VecDeque};

/// The largest JSON program read: parsed JSON takes several times its size in memory.
pub const MAX_JSON: u64 = 256 << 20;

/// Reads the PIR program in `file`; returns its parameters, sorted.
pub fn read(file: &[u8], b: &mut Builder<'_>) -> Vec<Param> {
    let size = file.len() as u64;
    if size > MAX_JSON {
        let message = format!(
            "the PIR program is {size} bytes; rtenx parses JSON programs of up to {MAX_JSON} bytes"
        );
        b.out.add(&TOO_LARGE_TO_READ, Place::at(0), message);
        return Vec::new();
    }
    let json: Json = match serde_json::from_slice(file) {
        Ok(j) => j,
        Err(e) => {
            let at = offset(file, e.line(), e.column());
            b.out
                .add(&PROGRAM_INVALID, Place::at(at), format!("PIR JSON: {e}"));
            return Vec::new();
        }
    };
    let base = &json["base_code"];
    if base["magic"].as_str() != Some("pir") {
        b.out.add(
            &PROGRAM_INVALID,
            Place::at(0),
            "base_code.magic is not \"pir\"",
        );
        return Vec::new();
    }
    let version = base["version"].as_i64().unwrap_or(0);
    b.inv.format_version = format!("PIR v{version}");
    b.inv.property("version", version, None);
    let Some(regions) = json["program"]["regions"].as_array() else {
        b.out.add(
            &PROGRAM_INVALID,
            Place::at(0),
            "program.regions is missing or not a list",
        );
        return Vec::new();
    };
    let mut reader = Reader {
        b,
        values: HashMap::default(),
        params: Vec::new(),
        queue: VecDeque::new(),
    };
    reader.regions(regions, None);
    while let Some((graph, block)) = reader.queue.pop_front() {
        if reader.b.budget.exhausted() {
            break;
        }
        reader.block(graph, block);
    }
    let mut params = reader.params;
    sort(&mut params);
    params
}

/// The byte offset of a 1-based line and column.
fn offset(file: &[u8], line: usize, column: usize) -> Option<u64> {
    let start = if line <= 1 {
        0
    } else {
        file.iter()
            .enumerate()
            .filter(|(_, &c)| c == b'\n')
            .nth(line - 2)?
            .0
            + 1
    };
    Some((start + column.saturating_sub(1)) as u64)
}

struct Reader<'a, 'b, 'j> {
    b: &'a mut Builder<'b>,
    /// Where each value id is defined: its graph and node.
    values: HashMap<i64, (GraphId, NodeId), ahash::RandomState>,
    params: Vec<Param>,
    /// Blocks still to read, each with its graph.
    queue: VecDeque<(GraphId, &'j Json)>,
}

impl<'j> Reader<'_, '_, 'j> {
    fn invalid(&mut self, message: impl Into<String>) {
        self.b.out.add(&PROGRAM_INVALID, Place::FILE, message);
    }

    /// Queues the blocks of `regions`, as subgraphs of `owner` (graph and node) if it is given.
    fn regions(&mut self, regions: &'j [Json], owner: Option<(GraphId, NodeId)>) -> Vec<GraphId> {
        let mut graphs = Vec::new();
        for region in regions {
            let Some(blocks) = region["blocks"].as_array() else {
                self.invalid("a region has no list of blocks");
                continue;
            };
            for block in blocks {
                let label = block["#"].as_str().unwrap_or("block");
                let Some(graph) = self.b.graph(label, None) else {
                    return graphs;
                };
                if let Some((parent, node)) = owner {
                    self.b.inv.graphs[graph].parent = Some(crate::inventory::SubgraphOf {
                        graph: parent,
                        node,
                    });
                }
                graphs.push(graph);
                self.queue.push_back((graph, block));
            }
        }
        graphs
    }

    fn block(&mut self, graph: GraphId, block: &'j Json) {
        for arg in block["args"].as_array().map_or(&[][..], Vec::as_slice) {
            if let Some(node) = self.define(graph, arg, None) {
                self.b.inv.graphs[graph].inputs.push(node);
            }
        }
        let Some(ops) = block["ops"].as_array() else {
            return self.invalid("a block has no list of ops");
        };
        let top = graph == 0;
        for op in ops {
            if self.b.budget.exhausted() {
                return;
            }
            match op["#"].as_str() {
                Some("p") => self.parameter(graph, top, &op["O"], &op["A"][3], op["OA"].get(0)),
                Some("0.parameter" | "builtin.parameter") => {
                    let name = attr(op, "parameter_name")
                        .map(|a| &a["D"])
                        .unwrap_or(&Json::Null);
                    let out = op["O"].get(0).unwrap_or(&Json::Null);
                    self.parameter(graph, top, out, name, None);
                }
                Some(name) => self.op(graph, name, op),
                None => self.invalid("an op has no name (\"#\")"),
            }
        }
    }

    /// A parameter op: the value it defines, named after the parameter.
    fn parameter(
        &mut self,
        graph: GraphId,
        top: bool,
        out: &Json,
        name: &Json,
        persistable: Option<&Json>,
    ) {
        let Some(name) = name.as_str() else {
            return self.invalid("a parameter op has no parameter_name");
        };
        let Some(node) = self.define(graph, out, Some(name)) else {
            return;
        };
        let persistable =
            persistable.is_none_or(|p| p.as_i64() == Some(1) || p.as_bool() == Some(true));
        if top && persistable {
            let (dtype, dims) = tensor_type(&out["TT"]);
            self.params.push(Param {
                name: Name::from(name),
                dtype,
                dims,
                vocab: false,
                node,
                offset: None,
            });
        }
    }

    /// Adds the value node for a result or block argument `{"%": id, "TT": type}`.
    fn define(&mut self, graph: GraphId, value: &Json, name: Option<&str>) -> Option<NodeId> {
        let id = value["%"].as_i64()?;
        let (dtype, dims) = tensor_type(&value["TT"]);
        let kind = NodeKind::Value(Value {
            dtype,
            shape: dims.as_deref().map(shape),
            composite: None,
        });
        let label = name.map_or_else(|| format!("%{id}"), str::to_owned);
        let node = self
            .b
            .node(graph, Name::from(label.as_str()), kind, None, 0)?;
        self.values.insert(id, (graph, node));
        Some(node)
    }

    /// The node for value `id` used in `graph`, capturing it from an enclosing graph.
    fn used(&mut self, graph: GraphId, id: i64) -> Result<NodeId, ()> {
        let &(defined_in, node) = self.values.get(&id).ok_or(())?;
        if defined_in == graph {
            return Ok(node);
        }
        let name = self.b.inv.graphs[defined_in].nodes[node as usize]
            .name
            .clone();
        let kind = NodeKind::Value(Value::default());
        let capture = self.b.node(graph, name, kind, None, 0).ok_or(())?;
        self.b.inv.graphs[graph].captures.push(capture);
        self.values.insert(id, (graph, capture));
        Ok(capture)
    }

    fn op(&mut self, graph: GraphId, name: &str, op: &'j Json) {
        let empty = Vec::new();
        let ins = op["I"].as_array().unwrap_or(&empty);
        let outs = op["O"].as_array().unwrap_or(&empty);
        let attrs_json = op["A"].as_array().unwrap_or(&empty);
        if !self
            .b
            .spend((ins.len() + outs.len() + attrs_json.len()) as u64, None)
        {
            return;
        }
        let mut inputs = Vec::with_capacity(ins.len());
        let mut undefined = Vec::new();
        for input in ins {
            match input["%"].as_i64() {
                Some(0) | None => inputs.push(None),
                Some(id) => match self.used(graph, id) {
                    Ok(node) => inputs.push(Some(node)),
                    Err(()) => {
                        undefined.push(id);
                        inputs.push(None);
                    }
                },
            }
        }
        let label = match name {
            "1.data" | "1.fetch" => attr(op, "name").and_then(|a| a["D"].as_str()),
            _ => None,
        };
        let outputs: Vec<Option<NodeId>> =
            outs.iter().map(|o| self.define(graph, o, label)).collect();
        let attrs: Vec<Attr> = attrs_json.iter().filter_map(convert).collect();
        let (domain, op_type) = split(name);
        let operator = Operator {
            op_type: Symbol::from(op_type.to_owned()),
            domain,
            attrs: attrs.into(),
            inputs: inputs.clone().into(),
            outputs: outputs.clone().into(),
            subgraphs: Box::new([]),
        };
        let Some(node) = self.b.node(
            graph,
            Name::default(),
            NodeKind::Operator(operator),
            None,
            0,
        ) else {
            return;
        };
        for id in undefined {
            let message = format!(
                "{name} op {node} uses value %{id}, which no earlier operation or block argument defines"
            );
            let place = Place::on(Item::Node { graph, node });
            self.b.out.add(&VALUE_BEFORE_DEFINITION, place, message);
        }
        if let Some(regions) = op["regions"].as_array() {
            let subgraphs = self.regions(regions, Some((graph, node)));
            if let NodeKind::Operator(o) = &mut self.b.inv.graphs[graph].nodes[node as usize].kind {
                o.subgraphs = subgraphs.into();
            }
        }
        if graph == 0 {
            let g = &mut self.b.inv.graphs[0];
            match name {
                "1.data" => g.inputs.extend(outputs.into_iter().flatten()),
                "1.fetch" => g.outputs.extend(inputs.into_iter().flatten()),
                _ => {}
            }
        }
    }
}

/// The attribute `name` of a normal op: `{"N": name, "AT": {...}}`.
fn attr<'j>(op: &'j Json, name: &str) -> Option<&'j Json> {
    op["A"]
        .as_array()?
        .iter()
        .find(|a| a["N"] == name)
        .map(|a| &a["AT"])
}

/// `pd_op` for dialect 1, `builtin` for 0, and so on; the op's name without its dialect.
fn split(name: &str) -> (Option<String>, &str) {
    let Some((dialect, op)) = name.split_once('.') else {
        return (None, name);
    };
    let domain = match dialect {
        "0" => "builtin",
        "1" => "pd_op",
        "2" => "cf",
        "3" => "custom_op",
        "4" => "dist",
        other => other,
    };
    (Some(domain.to_owned()), op)
}

/// The element type and dims of a `0.t_dtensor` type.
fn tensor_type(tt: &Json) -> (Option<crate::inventory::DType>, Option<Vec<i64>>) {
    if tt["#"].as_str().is_none_or(|t| !t.ends_with("t_dtensor")) {
        return (None, None);
    }
    let d = &tt["D"];
    let dtype = d[0]["#"].as_str().and_then(dtype::from_pir);
    let dims = d[1]
        .as_array()
        .map(|dims| dims.iter().map(|x| x.as_i64().unwrap_or(-1)).collect());
    (dtype, dims)
}

/// An attribute `{"N": name, "AT": {"#": type, "D": data}}` as the inventory shows it.
fn convert(a: &Json) -> Option<Attr> {
    let name = a["N"].as_str()?;
    let data = &a["AT"]["D"];
    let value = match data {
        Json::Bool(b) => AttrValue::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => AttrValue::Int(i),
            None => AttrValue::Float(n.as_f64()? as f32),
        },
        Json::String(s) => AttrValue::Str(Name::from(s.as_str())),
        Json::Array(items) if items.iter().all(Json::is_i64) => {
            AttrValue::Ints(items.iter().filter_map(Json::as_i64).collect())
        }
        _ => return None,
    };
    Some(Attr {
        name: Symbol::from(name.to_owned()),
        value,
    })
}
