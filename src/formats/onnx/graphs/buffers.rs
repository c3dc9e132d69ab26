//! What the graph walk keeps from node to node.

use crate::formats::onnx::views::attribute::AttributeView;
use crate::formats::onnx::views::node::NodeView;
use crate::inventory::{Attr, NodeId};

/// Buffers reused from node to node, so that reading a node allocates nothing of its own:
/// the node and its attributes as read, and its inputs, outputs and attributes as stored.
#[derive(Default)]
pub(super) struct Buffers<'b> {
    pub(super) view: NodeView<'b>,
    pub(super) attributes: Vec<AttributeView<'b>>,
    pub(super) inputs: Vec<Option<NodeId>>,
    pub(super) outputs: Vec<Option<NodeId>>,
    pub(super) attrs: Vec<Attr>,
}

impl Buffers<'_> {
    /// Lists longer than this are given back after their node rather than kept for the next.
    const KEPT: usize = 1024;

    /// Empties the lists a node was stored from, and gives back any that one large node grew.
    pub(super) fn trim(&mut self) {
        for list in [&mut self.inputs, &mut self.outputs] {
            list.clear();
            if list.capacity() > Self::KEPT {
                *list = Vec::new();
            }
        }
        self.attrs.clear();
        if self.attrs.capacity() > Self::KEPT {
            self.attrs = Vec::new();
        }
        if self
            .attributes
            .iter()
            .map(AttributeView::room)
            .sum::<usize>()
            > Self::KEPT
        {
            self.attributes = Vec::new();
        }
    }
}
