//! The interface: the main graph's inputs and outputs, by name.

use crate::inventory::{DType, Graph, Inventory, Name, NodeId, NodeKind, Shape};
use serde::Serialize;
use std::collections::BTreeMap;

/// Inputs and outputs that were added, removed or changed.
#[derive(Debug, Default, Serialize)]
pub struct InterfaceDiff {
    /// Graph inputs.
    pub inputs: Vec<PortChange>,
    /// Graph outputs.
    pub outputs: Vec<PortChange>,
}

impl InterfaceDiff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty() && self.outputs.is_empty()
    }
}

/// One input or output that differs; a side without it has `null`.
#[derive(Debug, Serialize)]
pub struct PortChange {
    /// Its name.
    pub name: Name,
    /// A's.
    pub a: Option<Port>,
    /// B's.
    pub b: Option<Port>,
}

/// An input's or output's type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Port {
    /// Element type, if known.
    pub dtype: Option<DType>,
    /// Shape, if known.
    pub shape: Option<Shape>,
}

pub(super) fn compare(a: &Inventory, b: &Inventory) -> InterfaceDiff {
    let (ga, gb) = (a.graphs.first(), b.graphs.first());
    InterfaceDiff {
        inputs: changes(ports(ga, |g| &g.inputs), ports(gb, |g| &g.inputs)),
        outputs: changes(ports(ga, |g| &g.outputs), ports(gb, |g| &g.outputs)),
    }
}

/// The named values `ids` of `graph`, by name; constants (ONNX initializers listed as inputs)
/// are tensors, not part of the interface.
fn ports(graph: Option<&Graph>, list: fn(&Graph) -> &[NodeId]) -> Ports<'_> {
    let Some(graph) = graph else {
        return BTreeMap::new();
    };
    list(graph)
        .iter()
        .filter_map(|&id| graph.node(id))
        .filter_map(|node| match &node.kind {
            NodeKind::Value(v) => Some((
                node.name.as_bytes(),
                (
                    node.name,
                    Port {
                        dtype: v.dtype,
                        shape: v.shape.clone(),
                    },
                ),
            )),
            _ => None,
        })
        .collect()
}

/// Inputs or outputs by name.
type Ports<'g> = BTreeMap<&'g [u8], (&'g Name, Port)>;

fn changes(mut a: Ports, b: Ports) -> Vec<PortChange> {
    let mut out = Vec::new();
    for (key, (name, port_b)) in b {
        let port_a = a.remove(key).map(|(_, p)| p);
        if port_a.as_ref() != Some(&port_b) {
            out.push(PortChange {
                name: name.clone(),
                a: port_a,
                b: Some(port_b),
            });
        }
    }
    out.extend(a.into_values().map(|(name, port)| PortChange {
        name: name.clone(),
        a: Some(port),
        b: None,
    }));
    out.sort_by(|x, y| x.name.as_bytes().cmp(y.name.as_bytes()));
    out
}
