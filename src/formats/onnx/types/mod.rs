//! Element-type inference through each graph of the inventory, checked against declared
//! types and the operators' type constraints.
//!
//! Types flow from graph inputs, initializers and declared value types through each node in
//! order: a node's output type comes from its schema (a fixed type, or a type variable bound
//! by an input) or from an attribute that names it (see [`outputs`]). A subgraph starts from
//! the types its enclosing graphs found for the values it captures. What cannot be known
//! without shape inference or for an unknown operator is left unknown, and unknown types are
//! never reported. One byte per node is kept.

mod captures;
mod outputs;

use super::dtypes::{from_onnx, to_onnx};
use super::rules::{TYPE_CONSTRAINT, TYPE_MISMATCH};
use super::schema::table::{Arity, ParamType, Schema};
use super::schema::Context;
use crate::check::{Findings, Item, Place};
use crate::inventory::{DType, Graph, GraphId, Inventory, NodeId, NodeKind, OpRef};

/// Infers element types through every graph of `inv` and reports where they disagree.
pub(super) fn check(inv: &Inventory, cx: &Context, out: &mut Findings) {
    let mut outer = captures::Outer::default();
    // Each graph's types, by graph id: subgraphs come after the graphs that enclose them.
    let mut known = Vec::with_capacity(inv.graphs.len());
    for (id, graph) in inv.graphs.iter().enumerate() {
        let mut types = GraphTypes::new(inv, graph, id);
        if !graph.captures.is_empty() {
            for (node, ty) in outer.types(inv, id, &known) {
                if let Some(slot) = types.known.get_mut(node as usize) {
                    *slot = Some(ty);
                }
            }
        }
        known.push(types.run(cx, out));
    }
}

/// The element types known in one graph.
struct GraphTypes<'i> {
    inv: &'i Inventory,
    graph: &'i Graph,
    id: GraphId,
    /// Each node's element type, by node id: declared or inferred.
    known: Vec<Option<DType>>,
}

impl<'i> GraphTypes<'i> {
    fn new(inv: &'i Inventory, graph: &'i Graph, id: GraphId) -> Self {
        let known = (graph.nodes.iter())
            .map(|n| match &n.kind {
                NodeKind::Value(v) => v.dtype,
                NodeKind::Constant { tensor } => inv.tensors.get(*tensor).and_then(|t| t.dtype),
                _ => None,
            })
            .collect();
        GraphTypes {
            inv,
            graph,
            id,
            known,
        }
    }

    fn type_of(&self, id: Option<NodeId>) -> Option<DType> {
        self.known.get(id? as usize).copied().flatten()
    }

    /// Infers and checks the graph's nodes in order; returns the types it knows then.
    fn run(mut self, cx: &Context, out: &mut Findings) -> Vec<Option<DType>> {
        // The schema check resolved each operator as the graph was read, in node order.
        let mut schemas = cx.schemas(self.id).iter().peekable();
        let (mut bound, mut computed) = (Vec::new(), Vec::new());
        for (index, node) in self.graph.nodes_with_ids() {
            let NodeKind::Operator(op) = &node.kind else {
                continue;
            };
            let Some(&(_, schema)) = schemas.next_if(|&&(n, _)| n == index) else {
                continue;
            };
            let place = Place::at(node.offset).item(Item::Node {
                graph: self.id,
                node: index,
            });
            bound.clear();
            bound.resize(schema.types.len(), None);
            if let Some(message) = self.bind(op, schema, &mut bound) {
                // Which type the outputs take is then unclear: they keep their declared ones.
                out.add(&TYPE_CONSTRAINT, place, message);
                continue;
            }
            outputs::computed(self.inv, &self, op, schema, &bound, &mut computed);
            for (i, (&output, &ty)) in op.outputs().iter().zip(&computed).enumerate() {
                let Some(slot) = output.and_then(|o| self.known.get_mut(o as usize)) else {
                    continue;
                };
                match (ty, *slot) {
                    (Some(ty), Some(declared)) if ty != declared => {
                        let name = self.graph.node(output.unwrap_or_default());
                        let name = name.map(|n| n.name.display().into_owned());
                        let message = format!(
                            "{schema} computes output {i} (\"{}\") as {}, but its declared type is {}",
                            name.unwrap_or_default(),
                            ty.name(),
                            declared.name()
                        );
                        out.add(&TYPE_MISMATCH, place, message);
                        *slot = Some(ty);
                    }
                    (Some(ty), None) => *slot = Some(ty),
                    _ => {}
                }
            }
        }
        self.known
    }

    /// Binds the schema's type variables to the known input types; the first input that
    /// breaks a constraint, described.
    fn bind(&self, op: &OpRef, schema: &Schema, bound: &mut [Option<DType>]) -> Option<String> {
        let mut broken = None;
        for (i, &input) in op.inputs().iter().enumerate() {
            let (Some(ty), Some(formal)) = (
                self.type_of(input),
                Schema::formal(&schema.formal_inputs, i),
            ) else {
                continue;
            };
            let (allowed, var) = match formal.ty {
                ParamType::Fixed(allowed) => (allowed, None),
                ParamType::Var(v) => {
                    let Some(var) = schema.types.get(v as usize) else {
                        continue;
                    };
                    (var.allowed, Some((v as usize, var.name)))
                }
            };
            if allowed.tensors != 0 && !to_onnx(ty).is_some_and(|c| allowed.has(c)) {
                let accepted = (1..=26)
                    .filter(|&c| allowed.has(c))
                    .filter_map(from_onnx)
                    .map(DType::name)
                    .collect::<Vec<_>>()
                    .join(", ");
                broken.get_or_insert(format!(
                    "input {i} of {schema} is {}, which it does not accept (it takes {accepted})",
                    ty.name()
                ));
                continue;
            }
            let homogeneous = formal.arity != Arity::Variadic { homogeneous: false };
            if let (Some((v, name)), true) = (var, homogeneous) {
                match bound.get(v).copied().flatten() {
                    Some(other) if other != ty => {
                        broken.get_or_insert(format!(
                            "type variable {name} of {schema} is bound to {} and, by input {i}, to {}",
                            other.name(),
                            ty.name()
                        ));
                    }
                    _ => {
                        if let Some(slot) = bound.get_mut(v) {
                            *slot = Some(ty);
                        }
                    }
                }
            }
        }
        broken
    }
}
