//! Scopes: the modules a model is made of (`/encoder/layers.0/self_attn`, `blk.3`), as a tree
//! with the operators, parameters and bytes under each, derived from the names of the main
//! graph's operators and of the tensors, whatever the format.
//!
//! A name with `/` is a path whose last part is the item itself (`/lm/h.0/attn/MatMul` is in
//! `lm › h.0 › attn`); a dotted name is one whose last part is the item, a number joining the
//! part before it (`model.layers.3.mlp.weight` is in `model › layers.3 › mlp`). A scope the
//! file records for a node ([`super::RecordedScope`]) is used instead of its name, and a
//! value, constant or tensor that operators with a recorded scope read is in the scope of the
//! first of them (a value none reads, in that of its writer): the weights of a Paddle
//! `Linear` (`linear_0.w_0`) or of an ExecuTorch `embed` (a nameless constant) are in the
//! module that reads them.
//!
//! The build is one pass over the names with a hash map of (parent, part), so O(n) in the
//! names' bytes; each scope's own part is copied once, whatever the number of names in it.

use super::grouped::Grouped;
use super::{Inventory, Name, NodeId, NodeKind, Nodes, TensorId};
use serde::Serialize;
use std::collections::HashMap;

/// Index into [`ScopeTree::scopes`]; 0 is the whole model.
pub type ScopeId = u32;

/// Parts of a name taken as scopes; deeper parts belong to the deepest kept.
const MAX_DEPTH: usize = 32;

/// One scope and what lies under it, its subscopes included.
#[derive(Debug, Clone, Serialize)]
pub struct Scope {
    /// The scope's own part of the path, such as `layers.3`; empty for the whole model.
    pub name: Name,
    /// The enclosing scope; `None` for the whole model.
    pub parent: Option<ScopeId>,
    /// Parts from the whole model: 1 for a top-level scope.
    pub depth: u32,
    /// Operators of the main graph.
    pub operators: u64,
    /// Tensors.
    pub tensors: u64,
    /// Elements of those tensors (saturating).
    pub parameters: u64,
    /// Bytes of those tensors (saturating).
    pub bytes: u64,
}

/// Every scope of a model, parents before children, with the main graph's operators placed.
#[derive(Debug, Clone, Default)]
pub struct ScopeTree {
    /// The scopes, the whole model first, each after its parent, in order of first mention.
    pub scopes: Vec<Scope>,
    /// The children of each scope.
    children: Grouped<ScopeId>,
    /// The operators directly in each scope.
    members: Grouped<NodeId>,
    /// The tensors directly in each scope.
    tensors: Grouped<u32>,
    /// The scope of each tensor.
    tensor_scope: Vec<ScopeId>,
    /// The scope of each node of the main graph.
    node_scope: Vec<ScopeId>,
    /// The first operator in each scope or below, or `u32::MAX` for none.
    first: Vec<NodeId>,
}

impl ScopeTree {
    /// The scope tree of `inv`.
    pub fn build(inv: &Inventory) -> Self {
        let mut builder = Builder {
            scopes: vec![scope(Name::default(), None, 0)],
            index: HashMap::new(),
        };
        let none = Nodes::default();
        let nodes = inv.graphs.first().map_or(&none, |g| &g.nodes);
        let recorded = inv.graphs.first().map_or(&[][..], |g| &g.scopes[..]);
        // The scope each node is in by what the file records: its own, or for a value or
        // constant, that of the first operator with one that reads it, else writes it.
        let mut held: Vec<Option<ScopeId>> = vec![None; nodes.len()];
        for r in recorded {
            if let Some(slot) = held.get_mut(r.node as usize) {
                *slot = Some(builder.place_in(parts(r.path.as_bytes(), false)));
            }
        }
        if !recorded.is_empty() {
            // Readers first, then, for a value no such operator reads, its writer.
            for outputs in [false, true] {
                for (node, i) in nodes.iter().zip(0..) {
                    let (NodeKind::Operator(op), Some(scope)) = (&node.kind, held[i]) else {
                        continue;
                    };
                    let values = if outputs { op.outputs() } else { op.inputs() };
                    for &value in values.iter().flatten() {
                        let kind = nodes.get(value).map(|n| n.kind);
                        if matches!(kind, Some(NodeKind::Operator(_)) | None) {
                            continue;
                        }
                        if let Some(slot @ None) = held.get_mut(value as usize) {
                            *slot = Some(scope);
                        }
                    }
                }
            }
        }
        let node_scope: Vec<ScopeId> = nodes
            .iter()
            .zip(&held)
            .map(|(node, held)| {
                let id = match held {
                    Some(id) => *id,
                    None => builder.place_in(parts(node.name.as_bytes(), true)),
                };
                if let NodeKind::Operator(_) = node.kind {
                    builder.scopes[id as usize].operators += 1;
                }
                id
            })
            .collect();
        let mut tensor_scope = Vec::with_capacity(inv.tensors.len());
        for t in &inv.tensors {
            let declared = t.node.filter(|_| t.graph == 0);
            let held = declared.and_then(|n| held.get(n as usize).copied().flatten());
            let id = held.unwrap_or_else(|| builder.place_in(parts(t.name.as_bytes(), true)));
            tensor_scope.push(id);
            let s = &mut builder.scopes[id as usize];
            s.tensors += 1;
            s.parameters = s.parameters.saturating_add(t.parameters());
            s.bytes = s.bytes.saturating_add(t.byte_size.unwrap_or(0));
        }
        let mut scopes = builder.scopes;
        // Children come after their parents, so one backward pass sums every subtree.
        for i in (1..scopes.len()).rev() {
            let s = scopes[i].clone();
            if let Some(p) = s.parent.and_then(|p| scopes.get_mut(p as usize)) {
                p.operators += s.operators;
                p.tensors += s.tensors;
                p.parameters = p.parameters.saturating_add(s.parameters);
                p.bytes = p.bytes.saturating_add(s.bytes);
            }
        }
        let parents = scopes.iter().skip(1).map(|s| s.parent.unwrap_or(0));
        let children = Grouped::build(scopes.len(), (1u32..).zip(parents));
        let operators = (0u32..).zip(nodes).zip(&node_scope);
        let operators = operators.filter(|((_, n), _)| matches!(n.kind, NodeKind::Operator(_)));
        let members = Grouped::build(scopes.len(), operators.map(|((id, _), &s)| (id, s)));
        let tensors = Grouped::build(scopes.len(), (0u32..).zip(tensor_scope.iter().copied()));
        let mut first: Vec<NodeId> = (0..scopes.len() as u32)
            .map(|s| members.get(s).first().copied().unwrap_or(u32::MAX))
            .collect();
        for i in (1..scopes.len()).rev() {
            let p = scopes[i].parent.unwrap_or(0) as usize;
            first[p] = first[p].min(first[i]);
        }
        ScopeTree {
            first,
            scopes,
            children,
            members,
            tensors,
            tensor_scope,
            node_scope,
        }
    }

    /// True if some operator of the main graph is in a scope below the whole model.
    pub fn places_operators(&self) -> bool {
        let root = self.scopes.first().map_or(0, |r| r.operators);
        root > self.members(0).len() as u64
    }

    /// The scopes directly inside `scope`, in order of first mention.
    pub fn children(&self, scope: ScopeId) -> &[ScopeId] {
        self.children.get(scope)
    }

    /// The operators directly in `scope`, in graph order.
    pub fn members(&self, scope: ScopeId) -> &[NodeId] {
        self.members.get(scope)
    }

    /// The tensors directly in `scope`, in the inventory's order.
    pub fn tensors(&self, scope: ScopeId) -> &[u32] {
        self.tensors.get(scope)
    }

    /// The first operator of the main graph in `scope` or below it.
    pub fn first_operator(&self, scope: ScopeId) -> Option<NodeId> {
        self.first
            .get(scope as usize)
            .copied()
            .filter(|&n| n != u32::MAX)
    }

    /// The scope of node `node` of the main graph.
    pub fn scope_of(&self, node: NodeId) -> ScopeId {
        self.node_scope.get(node as usize).copied().unwrap_or(0)
    }

    /// The scope of tensor `tensor`.
    pub fn scope_of_tensor(&self, tensor: TensorId) -> ScopeId {
        self.tensor_scope.get(tensor).copied().unwrap_or(0)
    }

    /// `scope` and its enclosing scopes up to a top-level one, innermost first.
    pub fn path(&self, scope: ScopeId) -> impl Iterator<Item = ScopeId> + '_ {
        let mut at = Some(scope).filter(|&s| s != 0);
        std::iter::from_fn(move || {
            let s = at?;
            at = self.scopes.get(s as usize)?.parent.filter(|&p| p != 0);
            Some(s)
        })
    }

    /// True if `scope` is `ancestor` or lies below it; a walk up of at most the tree's depth.
    pub fn within(&self, scope: ScopeId, ancestor: ScopeId) -> bool {
        let Some(top) = self.scopes.get(ancestor as usize).map(|a| a.depth) else {
            return false;
        };
        let mut at = scope;
        // Each step goes one level up; the tree is at most MAX_DEPTH deep.
        for _ in 0..=MAX_DEPTH {
            if at == ancestor {
                return true;
            }
            match self.scopes.get(at as usize) {
                Some(s) if s.depth > top => at = s.parent.unwrap_or(0),
                _ => return false,
            }
        }
        false
    }

    /// The operators of the main graph in `scope` or below it, each once: the scope's own,
    /// then each subscope's, depth first, without recursion.
    pub fn operators_within(&self, scope: ScopeId) -> impl Iterator<Item = NodeId> + '_ {
        let mut stack = vec![scope];
        std::iter::from_fn(move || {
            let s = stack.pop()?;
            stack.extend_from_slice(self.children(s));
            Some(self.members(s))
        })
        .flatten()
        .copied()
    }

    /// `scope`'s whole path, such as `lm/h.0/attn`, escaped for a terminal.
    pub fn path_text(&self, scope: ScopeId) -> String {
        let mut parts: Vec<String> = (self.path(scope))
            .filter_map(|s| Some(self.scopes.get(s as usize)?.name.display().into_owned()))
            .collect();
        parts.reverse();
        parts.join("/")
    }

    /// `scope`'s whole path, such as `lm/h.0/attn`, as the names have it (not escaped; bytes
    /// that are not UTF-8 replaced).
    pub fn label(&self, scope: ScopeId) -> String {
        let name = |s: ScopeId| Some(self.scopes.get(s as usize)?.name.as_bytes());
        let mut parts: Vec<String> = (self.path(scope))
            .filter_map(|s| Some(String::from_utf8_lossy(name(s)?).into_owned()))
            .collect();
        parts.reverse();
        parts.join("/")
    }

    /// The depth at which the model's weights divide: one below the first scope, going down
    /// from the whole model, with more than one child holding tensors (`lm/transformer`
    /// holding `h.0`, `h.1`, ... gives 3); 1 for a model with no scope or several at the top.
    pub fn dividing_depth(&self) -> u32 {
        let mut at = 0;
        let weighty = |s: &ScopeId| self.scopes.get(*s as usize).is_some_and(|s| s.tensors > 0);
        // Bounded by the depth of the tree, itself at most MAX_DEPTH.
        loop {
            let mut holding = self.children(at).iter().filter(|s| weighty(s));
            match (holding.next(), holding.next()) {
                (Some(&only), None) => at = only,
                _ => break,
            }
        }
        self.scopes.get(at as usize).map_or(1, |s| s.depth + 1)
    }
}

/// The whole model or a scope named `name`, empty.
fn scope(name: Name, parent: Option<ScopeId>, depth: u32) -> Scope {
    Scope {
        name,
        parent,
        depth,
        operators: 0,
        tensors: 0,
        parameters: 0,
        bytes: 0,
    }
}

/// The scopes being made, and each one's id by parent and part.
struct Builder<'n> {
    scopes: Vec<Scope>,
    index: HashMap<(ScopeId, &'n [u8]), ScopeId>,
}

impl<'n> Builder<'n> {
    /// The scope at the end of `parts`, made with its parents if new.
    fn place_in(&mut self, parts: Vec<&'n [u8]>) -> ScopeId {
        let mut at = 0;
        for (depth, part) in (1u32..).zip(parts) {
            if let Some(&id) = self.index.get(&(at, part)) {
                at = id;
                continue;
            }
            let Ok(id) = ScopeId::try_from(self.scopes.len()) else {
                break;
            };
            self.scopes.push(scope(part.into(), Some(at), depth));
            self.index.insert((at, part), id);
            at = id;
        }
        at
    }
}

/// The parts of a path (see the module's documentation), at most [`MAX_DEPTH`]; without its
/// last part if `item`, for the name of an item in the scope rather than of the scope.
fn parts(name: &[u8], item: bool) -> Vec<&[u8]> {
    let mut parts: Vec<&[u8]> = Vec::new();
    if name.contains(&b'/') {
        parts.extend(name.split(|&b| b == b'/').filter(|p| !p.is_empty()));
    } else {
        let mut start = 0;
        for (i, piece) in dotted(name).filter(|(_, p)| !p.is_empty()) {
            let numbered = piece.iter().all(u8::is_ascii_digit);
            match parts.last_mut() {
                // A number joins the part before it: `layers.3`.
                Some(last) if numbered => *last = &name[start..i + piece.len()],
                _ => {
                    start = i;
                    parts.push(piece);
                }
            }
        }
    }
    if item {
        parts.pop();
    }
    parts.truncate(MAX_DEPTH);
    parts
}

/// The parts of a dotted name with the offset of each.
fn dotted(name: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut at = 0;
    name.split(|&b| b == b'.').map(move |piece| {
        let start = at;
        at += piece.len() + 1;
        (start, piece)
    })
}

#[cfg(test)]
mod tests {
    use super::{parts, ScopeTree};
    use crate::inventory::{
        FileEntry, FileFormat, Graph, Inventory, NewKind, NewNode, Operator, Storage, Tensor,
    };

    fn operator(name: &[u8]) -> NewNode {
        let op = Operator::new("Op".into(), Box::new([]), vec![], vec![]);
        NewNode {
            name: name.into(),
            kind: NewKind::Operator(op),
            offset: crate::inventory::Offset::NONE,
        }
    }

    fn tensor(name: &str, elements: u64) -> Tensor {
        Tensor {
            name: name.into(),
            dtype: None,
            shape: vec![elements],
            elements: Some(elements),
            byte_size: Some(elements * 4),
            storage: Storage::Inline,
            data: None,
            graph: 0,
            node: None,
            decl_offset: None,
        }
    }

    #[test]
    fn a_tree_sums_its_subtrees_and_keeps_graph_order_and_hostile_names() {
        let file = FileEntry::model("m", 0);
        let mut inv = Inventory::new(FileFormat::Read("onnx"), "", file);
        let deep = "/x".repeat(10_000);
        let nodes = [
            &b"/enc/layers.0/MatMul"[..],
            b"/enc/layers.1/MatMul",
            b"Relu",
            deep.as_bytes(),
            b"/\xff\x1b/Op",
        ];
        inv.graphs.push(Graph {
            nodes: nodes.iter().map(|n| operator(n)).collect(),
            ..Graph::default()
        });
        inv.tensors = vec![
            tensor("enc.layers.0.w", 2),
            tensor("enc.layers.1.w", 3),
            tensor("bias", 1),
        ];
        let tree = ScopeTree::build(&inv);
        let root = &tree.scopes[0];
        assert_eq!(
            (root.operators, root.tensors, root.parameters, root.bytes),
            (5, 3, 6, 24)
        );
        let enc = tree.children(0)[0];
        assert_eq!(tree.label(enc), "enc");
        assert_eq!(
            (
                tree.scopes[enc as usize].operators,
                tree.scopes[enc as usize].parameters
            ),
            (2, 5)
        );
        let layers: Vec<String> = tree.children(enc).iter().map(|&l| tree.label(l)).collect();
        assert_eq!(layers, ["enc/layers.0", "enc/layers.1"]);
        assert_eq!(tree.members(0), [2], "Relu is in no scope");
        assert_eq!(tree.first_operator(enc), Some(0));
        assert!(tree.places_operators());
        assert_eq!(
            tree.scope_of(3),
            tree.scopes.len() as u32 - 2,
            "cut at MAX_DEPTH"
        );
        assert_eq!(
            tree.scopes[tree.scope_of(3) as usize].depth,
            super::MAX_DEPTH as u32
        );
        assert_eq!(tree.dividing_depth(), 2, "enc holds both layers' weights");
        let layer0 = tree.children(enc)[0];
        assert!(tree.within(layer0, enc) && tree.within(layer0, 0) && tree.within(enc, enc));
        assert!(!tree.within(enc, layer0) && !tree.within(tree.scope_of(2), enc));
        assert!(!tree.within(layer0, 999) && !tree.within(999, enc));
        assert_eq!(tree.operators_within(enc).collect::<Vec<_>>(), [1, 0]);
        assert_eq!(tree.operators_within(0).count(), 5);
        assert_eq!(
            tree.path_text(tree.scope_of(4)),
            "\u{fffd}\\u{1b}",
            "escaped"
        );
        assert_eq!(tree.scope_of(99), 0);
    }

    #[test]
    fn values_constants_and_tensors_follow_the_recorded_scope_of_their_first_reader() {
        use crate::inventory::{RecordedScope, Value};
        let file = FileEntry::model("m", 0);
        let mut inv = Inventory::new(FileFormat::Read("paddle"), "", file);
        let value = |name: &str| NewNode {
            name: name.into(),
            kind: NewKind::Value(Value::default()),
            offset: crate::inventory::Offset::NONE,
        };
        let reads = |inputs: &[u32]| {
            let inputs: Box<[Option<u32>]> = inputs.iter().map(|&i| Some(i)).collect();
            let op = Operator::new("Op".into(), Box::new([]), inputs.into_vec(), vec![]);
            NewNode {
                name: "".into(),
                kind: NewKind::Operator(op),
                offset: crate::inventory::Offset::NONE,
            }
        };
        let nodes = vec![
            value("linear_0.w_0"),
            value("x"),
            value("linear_9.tmp_0"),
            reads(&[1, 0, 99]),
            reads(&[0, 3]),
            reads(&[2]),
        ];
        let scopes = [
            (3, "/Linear/"),
            (4, "/Block/Linear/"),
            (77, "/out/of/range/"),
        ];
        inv.graphs.push(Graph {
            nodes: nodes.into_iter().collect(),
            scopes: (scopes.iter())
                .map(|&(node, path)| RecordedScope {
                    node,
                    path: path.into(),
                })
                .collect(),
            ..Graph::default()
        });
        let mut w = tensor("linear_0.w_0", 4);
        w.node = Some(0);
        let mut other = tensor("linear_0.b_0", 1);
        (other.node, other.graph) = (Some(0), 1);
        inv.tensors = vec![w, other];
        let tree = ScopeTree::build(&inv);
        let top: Vec<String> = tree.children(0).iter().map(|&c| tree.label(c)).collect();
        // The scope recorded for node 77, which the graph does not have, is not made.
        assert_eq!(top, ["Linear", "Block", "linear_9", "linear_0"]);
        let linear = tree.children(0)[0];
        assert_eq!(tree.scope_of(0), linear, "the first reader's scope");
        assert_eq!(tree.scope_of(1), linear);
        let by_own_name = tree.label(tree.scope_of(2));
        assert_eq!(
            by_own_name, "linear_9",
            "read by no recorded scope: by its name"
        );
        assert_eq!(tree.scope_of(5), 0);
        let s = &tree.scopes[linear as usize];
        assert_eq!((s.operators, s.tensors, s.parameters), (1, 1, 4));
        let by_name = tree.children(0)[3];
        assert_eq!(
            tree.scopes[by_name as usize].tensors, 1,
            "another graph's tensor"
        );
    }

    fn text(name: &str) -> Vec<&str> {
        let parts = parts(name.as_bytes(), true);
        parts
            .iter()
            .map(|p| std::str::from_utf8(p).unwrap())
            .collect()
    }

    #[test]
    fn scopes_come_from_paths_and_dotted_names() {
        assert_eq!(
            text("/lm/transformer/h.0/attn/MatMul"),
            ["lm", "transformer", "h.0", "attn"]
        );
        assert_eq!(
            text("lm.transformer.h.0.attn.c_attn.weight"),
            ["lm", "transformer", "h.0", "attn", "c_attn"]
        );
        assert_eq!(
            text("model.layers.12.mlp.weight"),
            ["model", "layers.12", "mlp"]
        );
        assert_eq!(text("blk.3.attn_q.weight"), ["blk.3", "attn_q"]);
        assert_eq!(text("0.weight"), ["0"]);
        assert_eq!(
            text("/lm/transformer/Constant.value"),
            ["lm", "transformer"]
        );
        assert_eq!(text("onnx::MatMul_583"), [] as [&str; 0]);
        assert_eq!(text("a..b.c"), ["a", "b"]);
        assert_eq!(text(""), [] as [&str; 0]);
        assert_eq!(text(&"/a".repeat(100)).len(), super::MAX_DEPTH);
        let recorded = parts(b"layers.0.attn", false);
        assert_eq!(
            recorded,
            [&b"layers.0"[..], b"attn"],
            "a recorded scope keeps its last part"
        );
    }
}
