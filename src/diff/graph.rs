//! The graph: operator counts by type, then the operators of both files paired
//! (`pairing.rs`), with what was added, removed or changed; a changed operator lists its
//! attributes and the constants it reads that changed.

use super::pairing::{shared_tensors, Pairing, Place};
use super::tensors::TensorChange;
use super::topology::{Op, Topology};
use super::Change;
use crate::inventory::{AttrValue, GraphId, Inventory, Name, NodeId, OpRef, Symbol, TensorId};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// How the graphs differ.
#[derive(Debug, Default, Serialize)]
pub struct GraphDiff {
    /// Operator types whose counts differ.
    pub operators: Vec<OpCount>,
    /// Operators paired with one of the same type in the other file.
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

    /// Paired operators of different types: one replaced the other in place.
    pub fn replaced(&self) -> usize {
        self.changed.iter().filter(|c| c.op_type.is_some()).count()
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
    /// Constants both read at one input slot, or hold in one attribute, that changed.
    pub tensors: Vec<HeldTensor>,
}

/// A constant two paired operators hold at one place, changed.
#[derive(Debug, Serialize)]
pub struct HeldTensor {
    /// The input slot that reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<usize>,
    /// The attribute that holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute: Option<Symbol>,
    /// The names, and the dtype, shape and bytes where they changed.
    #[serde(flatten)]
    pub change: TensorChange,
    /// Whether its values differ beyond the tolerance (with `--values`).
    pub values_differ: bool,
}

/// Builds the graph section from the pairing; `differing` holds the tensor pairs whose values
/// differ beyond the tolerance.
pub(super) fn compare(
    (a, b): (&Topology, &Topology),
    pairing: &Pairing,
    differing: &HashSet<(TensorId, TensorId)>,
) -> GraphDiff {
    let attributes_compared = a.inv.format == b.inv.format;
    let mut changed = Vec::new();
    let mut matched = 0;
    for (i, &j) in (0..).zip(&pairing.a) {
        let (x, Some(y)) = (&a.ops[i as usize], b.ops.get(j as usize)) else {
            continue;
        };
        matched += u64::from(x.kind == y.kind);
        let mut tensors = Vec::new();
        shared_tensors(a, b, i, j, |place, tx, ty| {
            let (ta, tb) = (&a.inv.tensors[tx], &b.inv.tensors[ty]);
            let values_differ = differing.contains(&(tx, ty));
            let change = TensorChange::of(ta, tb).or_else(|| {
                values_differ.then(|| TensorChange::named(ta.name.clone(), tb.name.clone()))
            });
            if let Some(change) = change {
                let (input, attribute) = match place {
                    Place::Input(k) => (Some(k), None),
                    Place::Attribute(name) => (None, Some(name.clone())),
                };
                tensors.push(HeldTensor {
                    input,
                    attribute,
                    change,
                    values_differ,
                });
            }
        });
        let change = NodeChange {
            a: reference(x),
            b: reference(y),
            op_type: Change::of(x.op.op_type().clone(), y.op.op_type().clone()),
            inputs: Change::of(x.op.inputs().len(), y.op.inputs().len()),
            attributes: if attributes_compared {
                attribute_changes(x.op, y.op)
            } else {
                Vec::new()
            },
            tensors,
        };
        if change.op_type.is_some()
            || change.inputs.is_some()
            || !change.attributes.is_empty()
            || !change.tensors.is_empty()
        {
            changed.push(change);
        }
    }
    let unpaired = |topo: &Topology, partner: &[u32]| -> Vec<NodeRef> {
        (topo.ops.iter().zip(partner))
            .filter(|&(_, &p)| p == super::topology::NONE)
            .map(|(op, _)| reference(op))
            .collect()
    };
    GraphDiff {
        operators: op_counts(a.inv, b.inv),
        matched,
        attributes_compared,
        changed,
        added: unpaired(b, &pairing.b),
        removed: unpaired(a, &pairing.a),
    }
}

fn reference(op: &Op) -> NodeRef {
    NodeRef {
        graph: op.graph,
        node: op.id,
        name: op.name.clone(),
        op_type: op.op.op_type().clone(),
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
/// compared by kind only here: their indices mean nothing across files (a tensor that
/// changed is listed with the operator's tensors).
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
