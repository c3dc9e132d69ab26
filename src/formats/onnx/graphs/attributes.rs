//! Attributes of nodes and functions: their values, and the tensors and subgraphs they hold.

use super::{GraphReader, TENSOR_ENTRIES};
use crate::check::Place;
use crate::formats::onnx::schema::Schema;
use crate::formats::onnx::views::attribute::AttributeView;
use crate::formats::onnx::views::tensor::sparse_parts;
use crate::inventory::{Attr, AttrValue, GraphRef, Name, NodeId, Symbol, TensorRef};

impl<'b> GraphReader<'_, 'b> {
    /// Registers every tensor an attribute of node `op` (or of the function, for `None`)
    /// holds, whatever its declared type, adding a reference to each to `refs`. A tensor
    /// without a name of its own, such as a Constant's value, is named after where it is:
    /// `node.attribute`, then `[i]` in a list and `.values` or `.indices` in a sparse tensor.
    pub(super) fn attribute_tensors<'a>(
        &mut self,
        a: &'a AttributeView<'b>,
        op: Option<NodeId>,
        refs: &mut Vec<TensorRef>,
    ) {
        let sparse = a.sparse_tensor.is_some() || !a.sparse_tensors.is_empty();
        if a.t.is_none() && a.tensors.is_empty() && !sparse {
            return;
        }
        // No more tensors are listed than the budget can pay for; the first one it cannot
        // pay for then runs it out below.
        let affordable =
            usize::try_from(self.r.cx.budget.left() / TENSOR_ENTRIES + 1).unwrap_or(usize::MAX);
        let listed = |list: &'a [&'b [u8]]| {
            (0..).zip(list).take(affordable).map(|(i, &t)| {
                let at = Within {
                    index: Some(i),
                    part: "",
                };
                (t, at)
            })
        };
        let whole = |t: &'b [u8]| (t, Within::WHOLE);
        let dense = a.t.map(whole).into_iter().chain(listed(&a.tensors));
        let mut sparse_parts_found = Vec::new();
        for (bytes, at) in (a.sparse_tensor.map(whole).into_iter()).chain(listed(&a.sparse_tensors))
        {
            match sparse_parts(bytes) {
                Ok((values, indices)) => {
                    let part = |part| Within { part, ..at };
                    sparse_parts_found.extend(values.map(|t| (t, part(".values"))));
                    sparse_parts_found.extend(indices.map(|t| (t, part(".indices"))));
                }
                Err(e) => {
                    self.r
                        .malformed("sparse tensor attribute", e, self.offset(bytes));
                }
            }
        }
        for (bytes, within) in dense.chain(sparse_parts_found) {
            if !self.r.cx.spend(1, Place::at(self.offset(bytes))) {
                break;
            }
            let Some((t, at)) = self.tensor_view(bytes, "tensor attribute") else {
                continue;
            };
            let name = if t.name.is_empty() {
                self.label_of(op, a.name, within)
            } else {
                Name::from(t.name)
            };
            refs.push(TensorRef {
                tensor: self.r.tensor(&t, name, self.id, op, at),
            });
        }
    }

    /// The name of a tensor without one of its own, `within` attribute `attribute` of node
    /// `op` (of the graph, for `None`), built in a buffer kept from tensor to tensor.
    fn label_of(&mut self, op: Option<NodeId>, attribute: &[u8], within: Within) -> Name {
        use std::io::Write;
        let mut label = std::mem::take(&mut self.label);
        label.clear();
        let graph = self.graph();
        match op.and_then(|id| graph.node(id)) {
            Some(node) if !node.name.is_empty() => label.extend_from_slice(node.name.as_bytes()),
            Some(_) => {
                let _ = write!(label, "node {}", op.unwrap_or_default());
            }
            None => label.extend_from_slice(graph.name.as_bytes()),
        }
        label.push(b'.');
        label.extend_from_slice(attribute);
        if let Some(i) = within.index {
            let _ = write!(label, "[{i}]");
        }
        label.extend_from_slice(within.part.as_bytes());
        let name = Name::from(&label[..]);
        self.label = label;
        name
    }

    /// Decodes attribute `a` of node `op`, which follows `schema` if it is known.
    pub(super) fn attribute(
        &mut self,
        a: &mut AttributeView<'b>,
        op: NodeId,
        schema: Option<&Schema>,
    ) -> Attr {
        // Most attributes hold no tensor and a Constant's one: the list is a buffer kept
        // from attribute to attribute, copied only for an attribute with several.
        let mut tensors = std::mem::take(&mut self.tensors);
        tensors.clear();
        self.attribute_tensors(a, Some(op), &mut tensors);
        let mut graphs: Vec<GraphRef> =
            a.g.iter()
                .chain(&a.graphs)
                .filter_map(|g| self.subgraph(g, op))
                .collect();
        let value = match a.r#type.unwrap_or(0) {
            _ if a.ref_attr_name.is_some() => {
                let mut reference = b"@".to_vec();
                reference.extend_from_slice(a.ref_attr_name.unwrap_or_default());
                AttrValue::Str(Name::from(&reference[..]))
            }
            1 => AttrValue::Float(a.f.unwrap_or(0.0)),
            2 => AttrValue::Int(a.i.unwrap_or(0)),
            3 => AttrValue::Str(Name::from(a.s.unwrap_or_default())),
            5 if graphs.len() == 1 => AttrValue::Graph(graphs.remove(0)),
            6 => AttrValue::Floats(std::mem::take(&mut a.floats)),
            7 => AttrValue::Ints(std::mem::take(&mut a.ints)),
            8 => AttrValue::Strs(a.strings.iter().map(|&s| Name::from(s)).collect()),
            4 | 11 if tensors.len() == 1 => AttrValue::Tensor(tensors.remove(0)),
            _ if !graphs.is_empty() => AttrValue::Graphs(graphs),
            _ if !tensors.is_empty() => AttrValue::Tensors(tensors.clone()),
            _ => AttrValue::Str(Name::from("<unsupported attribute type>")),
        };
        // An attribute the schema knows is named by the table: no copy for each node.
        let name = match schema.and_then(|s| s.attr(a.name)) {
            Some(spec) => Symbol::Static(spec.name),
            None => {
                let at = self.offset(a.name);
                self.r.symbol(a.name, at)
            }
        };
        self.tensors = tensors;
        Attr { name, value }
    }
}

/// Where a tensor is in an attribute, for naming one without a name of its own: its index
/// in a list, and which part of a sparse tensor it is.
#[derive(Clone, Copy)]
struct Within {
    index: Option<usize>,
    part: &'static str,
}

impl Within {
    /// The attribute's single tensor, or all of a sparse one.
    const WHOLE: Within = Within {
        index: None,
        part: "",
    };
}
