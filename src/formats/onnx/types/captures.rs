//! The types of values a subgraph reads from its enclosing graphs.

use crate::inventory::hashing::Seeded;
use crate::inventory::{DType, GraphId, Inventory, Name, NodeId, NodeKind};
use std::collections::HashMap;

/// Values by name, for the graphs whose subgraphs capture from them; built on first use.
#[derive(Default)]
pub(super) struct Outer<'i> {
    names: HashMap<GraphId, HashMap<&'i Name, NodeId, Seeded>>,
}

impl<'i> Outer<'i> {
    /// The type of each value graph `id` captures, as the nearest enclosing graph that
    /// defines its name knows it (`known`, by graph, for the graphs done so far).
    pub(super) fn types(
        &mut self,
        inv: &'i Inventory,
        id: GraphId,
        known: &[Vec<Option<DType>>],
    ) -> Vec<(NodeId, DType)> {
        let Some(graph) = inv.graphs.get(id) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for &capture in &graph.captures {
            let Some(name) = graph.node(capture).map(|n| n.name) else {
                continue;
            };
            let mut scope = graph.parent.map(|p| p.graph);
            while let Some(outer) = scope.filter(|&s| s < id) {
                let names = self
                    .names
                    .entry(outer)
                    .or_insert_with(|| defined(inv, outer));
                if let Some(&node) = names.get(name) {
                    let ty = known.get(outer).and_then(|k| k.get(node as usize)).copied();
                    if let Some(ty) = ty.flatten() {
                        found.push((capture, ty));
                    }
                    break;
                }
                scope = inv
                    .graphs
                    .get(outer)
                    .and_then(|g| g.parent)
                    .map(|p| p.graph);
            }
        }
        found
    }
}

/// The values graph `id` defines, by name: inputs, initializers and node outputs.
fn defined(inv: &Inventory, id: GraphId) -> HashMap<&Name, NodeId, Seeded> {
    let nodes = inv.graphs.get(id).map(|g| g.nodes_with_ids());
    (nodes.into_iter().flatten())
        .filter(|(_, n)| matches!(n.kind, NodeKind::Value(_) | NodeKind::Constant { .. }))
        .map(|(i, n)| (n.name, i))
        .collect()
}
