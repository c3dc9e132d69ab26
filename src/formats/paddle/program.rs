//! What both program forms (ProgramDesc and PIR JSON) give the parameter reader, and the
//! graph-building steps they share.

use crate::check::Place;
use crate::formats::shared::budget::SUBGRAPH_ENTRIES;
use crate::formats::shared::context::Context;
use crate::formats::shared::stack;
use crate::inventory::{
    Attr, AttrValue, DType, Dim, Graph, GraphId, Name, NewKind, NewNode, NodeId, RecordedScope,
    Shape,
};

/// A persistable variable of the program: the n-th in byte order of the names owns the n-th
/// record of the parameter stream.
#[derive(Debug, Clone)]
pub struct Param {
    /// The variable's name.
    pub name: Name,
    /// The declared element type, if plain.
    pub dtype: Option<DType>,
    /// The declared dimensions; `-1` is unknown.
    pub dims: Option<Vec<i64>>,
    /// A VOCAB variable, stored as a string map.
    pub vocab: bool,
    /// Its value node in the main graph.
    pub node: NodeId,
    /// Where the program declares it.
    pub offset: Option<u64>,
}

/// Sorts parameters as every Paddle writer and reader does: by the bytes of their names.
pub fn sort(params: &mut [Param]) {
    params.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
}

/// Budget entries a node takes besides its inputs, outputs and attributes.
const NODE_ENTRIES: u64 = 4;

/// A declared shape, where `-1` (or any negative size) is unknown, shared with every equal
/// shape before it.
pub fn shape(cx: &mut Context<'_>, dims: &[i64]) -> Shape {
    let dims = dims.iter().map(|&d| match u64::try_from(d) {
        Ok(d) => Dim::Fixed(d),
        Err(_) => Dim::Symbolic(Name::from("?")),
    });
    cx.names.shape(dims.collect())
}

/// Adds a graph named `name`, or nothing once the budget has run out.
pub fn graph(cx: &mut Context<'_>, name: &str, offset: Option<u64>) -> Option<GraphId> {
    if !cx.spend(SUBGRAPH_ENTRIES, Place::at(offset)) {
        return None;
    }
    cx.inv.graphs.push(Graph {
        name: Name::from(name),
        offset,
        ..Graph::default()
    });
    Some(cx.inv.graphs.len() - 1)
}

/// Adds a node to `graph`, paying `extra` entries for its lists; `None` once the budget has
/// run out.
pub fn node(
    cx: &mut Context<'_>,
    graph: GraphId,
    name: Name,
    kind: NewKind,
    offset: Option<u64>,
    extra: u64,
) -> Option<NodeId> {
    if !cx.spend(NODE_ENTRIES.saturating_add(extra), Place::at(offset)) {
        return None;
    }
    let nodes = &mut cx.inv.graphs.get_mut(graph)?.nodes;
    let id = NodeId::try_from(nodes.len()).ok()?;
    nodes.push(NewNode {
        name,
        kind,
        offset: offset.into(),
    });
    Some(id)
}

/// The scope an op's attributes record: its name scope, `op_namescope` in a ProgramDesc
/// (`/encoder/layers.0/`, from `paddle.static.name_scope`) or `struct_name` in a PIR program
/// (`/Block_1/Linear/`, the layers' class names that `paddle.jit.save` records), unless it is
/// only `/`; else the module path of its `op_callstack`, if that names one (see [`stack`]).
/// Shared with the attribute, or copied once per text.
pub fn op_scope(cx: &mut Context<'_>, attrs: &[Attr], offset: Option<u64>) -> Option<Name> {
    let named = |want: &str| attrs.iter().find(|a| &*a.name == want).map(|a| &a.value);
    let scope = named("op_namescope").or_else(|| named("struct_name"));
    if let Some(AttrValue::Str(scope)) = scope {
        if scope.as_bytes().iter().any(|&b| b != b'/') {
            return Some(scope.clone());
        }
    }
    let Some(AttrValue::Strs(callstack)) = named("op_callstack") else {
        return None;
    };
    let frames = stack::traceback(callstack.iter().map(Name::as_bytes));
    let path = stack::module_path(frames);
    if path.is_empty() {
        return None;
    }
    cx.spelled(&path, Place::at(offset))
}

/// Records `scope` (see [`op_scope`]) for node `node` of `graph`, paying an entry.
pub fn record_scope(
    cx: &mut Context<'_>,
    graph: GraphId,
    node: NodeId,
    scope: Option<Name>,
    offset: Option<u64>,
) {
    let Some(path) = scope else { return };
    if !cx.spend(1, Place::at(offset)) {
        return;
    }
    if let Some(g) = cx.inv.graphs.get_mut(graph) {
        g.scopes.push(RecordedScope { node, path });
    }
}
