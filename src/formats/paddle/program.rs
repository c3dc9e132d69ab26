//! What both program forms (ProgramDesc and PIR JSON) give the parameter reader, and the
//! graph-building steps they share.

use crate::check::{Findings, Place};
use crate::formats::shared::budget::{Budget, Interner, SUBGRAPH_ENTRIES};
use crate::formats::shared::stack;
use crate::inventory::{
    Attr, AttrValue, DType, Dim, Graph, GraphId, Inventory, Name, NewKind, NewNode, NodeId,
    RecordedScope, Shape, Symbol,
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

/// The inventory being built, with the budget it spends, the findings it reports and the
/// names it has copied out of the file.
pub struct Builder<'a> {
    pub inv: &'a mut Inventory,
    pub budget: &'a mut Budget,
    pub out: &'a mut Findings,
    pub names: Interner,
}

impl Builder<'_> {
    /// A declared shape, where `-1` (or any negative size) is unknown, shared with every
    /// equal shape before it.
    pub fn shape(&mut self, dims: &[i64]) -> Shape {
        let dims = dims.iter().map(|&d| match u64::try_from(d) {
            Ok(d) => Dim::Fixed(d),
            Err(_) => Dim::Symbolic(Name::from("?")),
        });
        self.names.shape(dims.collect())
    }

    /// Takes `n` entries from the budget; false once it has run out.
    pub fn spend(&mut self, n: u64, offset: Option<u64>) -> bool {
        self.budget.spend(n, Place::at(offset), self.out)
    }

    /// The name `bytes` (a slice of `file`), copied once per place in the file.
    pub fn name(&mut self, file: &[u8], bytes: &[u8]) -> Name {
        self.names.name(file, bytes, self.budget, self.out)
    }

    /// The name stored at `offset` (`len` bytes there), made by `text` the first time.
    pub fn name_at(&mut self, offset: u64, len: u64, text: impl FnOnce() -> Vec<u8>) -> Name {
        self.names.name_at(offset, len, text, self.budget, self.out)
    }

    /// The operator or attribute name `text`, made once and shared.
    pub fn symbol(&mut self, text: &str, offset: Option<u64>) -> Symbol {
        self.names
            .symbol(text, Place::at(offset), self.budget, self.out)
    }

    /// Adds a graph named `name`, or nothing once the budget has run out.
    pub fn graph(&mut self, name: &str, offset: Option<u64>) -> Option<GraphId> {
        if !self.spend(SUBGRAPH_ENTRIES, offset) {
            return None;
        }
        self.inv.graphs.push(Graph {
            name: Name::from(name),
            offset,
            ..Graph::default()
        });
        Some(self.inv.graphs.len() - 1)
    }

    /// Adds a node to `graph`, paying `extra` entries for its lists; `None` once the budget
    /// has run out.
    pub fn node(
        &mut self,
        graph: GraphId,
        name: Name,
        kind: NewKind,
        offset: Option<u64>,
        extra: u64,
    ) -> Option<NodeId> {
        if !self.spend(NODE_ENTRIES.saturating_add(extra), offset) {
            return None;
        }
        let nodes = &mut self.inv.graphs.get_mut(graph)?.nodes;
        let id = NodeId::try_from(nodes.len()).ok()?;
        nodes.push(NewNode {
            name,
            kind,
            offset: offset.into(),
        });
        Some(id)
    }

    /// The scope an op's attributes record: its name scope, `op_namescope` in a ProgramDesc
    /// (`/encoder/layers.0/`, from `paddle.static.name_scope`) or `struct_name` in a PIR
    /// program (`/Block_1/Linear/`, the layers' class names that `paddle.jit.save` records),
    /// unless it is only `/`; else the module path of its `op_callstack`, if that names one
    /// (see [`stack`]). Shared with the attribute, or copied once per text.
    pub fn op_scope(&mut self, attrs: &[Attr], offset: Option<u64>) -> Option<Name> {
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
        (self.names).spelled(&path, Place::at(offset), self.budget, self.out)
    }

    /// Records `scope` (see [`Builder::op_scope`]) for node `node` of `graph`, paying an entry.
    pub fn record_scope(
        &mut self,
        graph: GraphId,
        node: NodeId,
        scope: Option<Name>,
        offset: Option<u64>,
    ) {
        let Some(path) = scope else { return };
        if !self.spend(1, offset) {
            return;
        }
        if let Some(g) = self.inv.graphs.get_mut(graph) {
            g.scopes.push(RecordedScope { node, path });
        }
    }
}
