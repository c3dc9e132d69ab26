//! The graph: operator counts by type, then the operators of both files aligned by topology
//! and operator type (names change between exporters), with what was added, removed or
//! changed.

use super::align::{align, Alignment};
use super::Change;
use crate::inventory::{
    AttrValue, Graph, GraphId, Inventory, Name, NodeId, NodeKind, OpRef, Symbol,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// How the graphs differ.
#[derive(Debug, Default, Serialize)]
pub struct GraphDiff {
    /// Operator types whose counts differ.
    pub operators: Vec<OpCount>,
    /// Operators paired with one of the other file.
    pub matched: u64,
    /// Whether attributes were compared: only between files of one format, since formats
    /// name and encode attributes differently.
    pub attributes_compared: bool,
    /// Paired operators that differ.
    pub changed: Vec<NodeChange>,
    /// Operators only B has.
    pub added: Vec<NodeRef>,
    /// Operators only A has.
    pub removed: Vec<NodeRef>,
}

impl GraphDiff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.operators.is_empty()
            && self.changed.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
    }
}

/// How many operators of one type each file has.
#[derive(Debug, Serialize)]
pub struct OpCount {
    /// The operator type.
    pub op_type: String,
    /// A's count.
    pub a: u64,
    /// B's count.
    pub b: u64,
}

/// An operator node.
#[derive(Debug, Serialize)]
pub struct NodeRef {
    /// Its graph (0 is the main graph).
    pub graph: GraphId,
    /// Its index in the graph.
    pub node: NodeId,
    /// Its name (may be empty).
    pub name: Name,
    /// Its operator type.
    pub op_type: Symbol,
}

/// Two paired operators and how they differ.
#[derive(Debug, Serialize)]
pub struct NodeChange {
    /// A's node.
    pub a: NodeRef,
    /// B's node.
    pub b: NodeRef,
    /// The operator type, where one replaced the other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_type: Option<Change<Symbol>>,
    /// The number of inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Change<usize>>,
    /// Attributes added, removed or given another value, by name.
    pub attributes: Vec<Symbol>,
}

pub(super) fn compare(a: &Inventory, b: &Inventory) -> GraphDiff {
    let (ops_a, ops_b) = (Ops::of(a), Ops::of(b));
    let Alignment { same, replaced } = align(&[
        (&ops_a.wide, &ops_b.wide),
        (&ops_a.near, &ops_b.near),
        (&ops_a.depth, &ops_b.depth),
        (&ops_a.kind, &ops_b.kind),
    ]);
    let attributes_compared = a.format == b.format;
    let mut paired_a = vec![false; ops_a.nodes.len()];
    let mut paired_b = vec![false; ops_b.nodes.len()];
    let mut changed = Vec::new();
    for &(i, j) in same.iter().chain(&replaced) {
        (paired_a[i], paired_b[j]) = (true, true);
        let (x, y) = (&ops_a.nodes[i], &ops_b.nodes[j]);
        let change = NodeChange {
            a: x.reference(),
            b: y.reference(),
            op_type: Change::of(x.op.op_type().clone(), y.op.op_type().clone()),
            inputs: Change::of(x.op.inputs().len(), y.op.inputs().len()),
            attributes: if attributes_compared {
                attribute_changes(x.op, y.op)
            } else {
                Vec::new()
            },
        };
        if change.op_type.is_some() || change.inputs.is_some() || !change.attributes.is_empty() {
            changed.push(change);
        }
    }
    let unpaired = |ops: &Ops, paired: &[bool]| -> Vec<NodeRef> {
        (ops.nodes.iter().zip(paired))
            .filter(|(_, &p)| !p)
            .map(|(op, _)| op.reference())
            .collect()
    };
    GraphDiff {
        operators: op_counts(a, b),
        matched: same.len() as u64,
        attributes_compared,
        changed,
        added: unpaired(&ops_b, &paired_b),
        removed: unpaired(&ops_a, &paired_a),
    }
}

fn op_counts(a: &Inventory, b: &Inventory) -> Vec<OpCount> {
    let mut counts: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for (op, n) in a.operator_histogram() {
        counts.entry(op).or_default().0 = n;
    }
    for (op, n) in b.operator_histogram() {
        counts.entry(op).or_default().1 = n;
    }
    (counts.into_iter())
        .filter(|(_, (a, b))| a != b)
        .map(|(op, (a, b))| OpCount {
            op_type: op.to_owned(),
            a,
            b,
        })
        .collect()
}

/// Attribute names whose values differ. Subgraphs and tensors held in attributes are
/// compared by kind only: their indices mean nothing across files.
fn attribute_changes(a: OpRef<'_>, b: OpRef<'_>) -> Vec<Symbol> {
    let mut names: BTreeMap<&str, (Option<&AttrValue>, Option<&AttrValue>)> = BTreeMap::new();
    for attr in a.attrs().iter() {
        names.entry(&attr.name).or_default().0 = Some(&attr.value);
    }
    for attr in b.attrs().iter() {
        names.entry(&attr.name).or_default().1 = Some(&attr.value);
    }
    let same = |x: &AttrValue, y: &AttrValue| match (x, y) {
        (AttrValue::Graph(_), AttrValue::Graph(_))
        | (AttrValue::Graphs(_), AttrValue::Graphs(_))
        | (AttrValue::Tensor(_), AttrValue::Tensor(_))
        | (AttrValue::Tensors(_), AttrValue::Tensors(_)) => true,
        _ => x == y,
    };
    (names.into_iter())
        .filter(|(_, (x, y))| !matches!((x, y), (Some(x), Some(y)) if same(x, y)))
        .map(|(name, _)| Symbol::from(name.to_owned()))
        .collect()
}

/// One operator node of a file.
struct Op<'a> {
    graph: GraphId,
    id: NodeId,
    name: &'a Name,
    op: OpRef<'a>,
}

impl Op<'_> {
    fn reference(&self) -> NodeRef {
        NodeRef {
            graph: self.graph,
            node: self.id,
            name: self.name.clone(),
            op_type: self.op.op_type().clone(),
        }
    }
}

/// Every operator of a file, graph after graph, with its keys from coarse to fine: its type
/// (`kind`); its type and depth from the inputs (`depth`); its type with what feeds each
/// input (`near`: the producer's type, or the constant's dtype and shape); and that again
/// one step further up (`wide`). Names take no part.
struct Ops<'a> {
    nodes: Vec<Op<'a>>,
    kind: Vec<u64>,
    depth: Vec<u64>,
    near: Vec<u64>,
    wide: Vec<u64>,
}

impl<'a> Ops<'a> {
    fn of(inv: &'a Inventory) -> Self {
        let mut ops = Ops {
            nodes: Vec::new(),
            kind: Vec::new(),
            depth: Vec::new(),
            near: Vec::new(),
            wide: Vec::new(),
        };
        for (gid, graph) in inv.graphs.iter().enumerate() {
            ops.add_graph(inv, gid, graph);
        }
        ops
    }

    fn add_graph(&mut self, inv: &Inventory, gid: GraphId, graph: &'a Graph) {
        let first = self.nodes.len();
        // For each value node, the position (in `nodes`) of the operator that produces it.
        let mut producer = vec![usize::MAX; graph.nodes.len()];
        for (id, node) in graph.nodes.iter().enumerate() {
            if let NodeKind::Operator(op) = node.kind {
                for out in op.outputs().iter().flatten() {
                    if let Some(slot) = producer.get_mut(*out as usize) {
                        *slot = self.nodes.len();
                    }
                }
                self.nodes.push(Op {
                    graph: gid,
                    id: id as NodeId,
                    name: node.name,
                    op,
                });
            }
        }
        let ops = &self.nodes[first..];
        // What feeds an input, by the producer's key in `keys`, or by what the input is.
        let feed = |keys: &[u64], input: Option<NodeId>, before: usize| -> u64 {
            let Some(id) = input else { return 1 };
            match producer.get(id as usize) {
                Some(&p) if p != usize::MAX && p < before => keys[p],
                _ => match graph.node(id).map(|n| n.kind) {
                    Some(NodeKind::Constant { tensor }) => inv.tensors.get(tensor).map_or(2, |t| {
                        let dtype = t.dtype.map_or(0, |d| text_key(d.name()));
                        t.shape.iter().fold(mix(3, dtype), |h, &d| mix(h, d))
                    }),
                    Some(NodeKind::Value(_)) => 4,
                    _ => 5,
                },
            }
        };
        for op in ops {
            let key = text_key(op.op.op_type());
            let key = op.op.domain().map_or(key, |d| mix(key, text_key(d)));
            self.kind.push(mix(key, op.op.outputs().len() as u64));
        }
        for (k, op) in ops.iter().enumerate() {
            let at = first + k;
            let inputs = op.op.inputs().iter();
            let depth = (inputs.clone())
                .filter_map(|i| producer.get((*i)? as usize).copied())
                .filter(|&p| p < at)
                .map(|p| self.depth[p])
                .max()
                .map_or(1, |d| d + 1);
            self.depth.push(depth);
            let near = inputs.fold(self.kind[at], |h, &i| mix(h, feed(&self.kind, i, at)));
            self.near.push(near);
        }
        for (k, op) in ops.iter().enumerate() {
            let at = first + k;
            let wide = (op.op.inputs().iter())
                .fold(self.near[at], |h, &i| mix(h, feed(&self.near, i, at)));
            self.wide.push(wide);
        }
        // Depth becomes a key only now: it was needed as a number above.
        for at in first..self.nodes.len() {
            self.depth[at] = mix(self.kind[at], self.depth[at]);
        }
    }
}

/// Mixes `x` into the hash `h` (FxHash's step).
fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95)
}

fn text_key(s: &str) -> u64 {
    s.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| mix(h, u64::from(b)))
}
