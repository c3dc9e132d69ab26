//! Moves from one tab to another: a tab asks for one by returning an [`Event`], and the app
//! carries it out, so no tab changes another tab's state.

use crate::inventory::{GraphId, NodeId, TensorId};

/// A move to another tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Show a node in the Graph tab, clearing the filters that would hide it.
    ShowNode {
        /// The graph.
        graph: GraphId,
        /// The node.
        node: NodeId,
    },
    /// Show a tensor in the Tensors tab, clearing its filter.
    ShowTensor(TensorId),
    /// Select a section in the Layout tab (an index into the inventory's sections).
    ShowSection(usize),
    /// Select an import in the Imports tab (an index into the inventory's imports), clearing
    /// its filter.
    ShowImport(usize),
    /// Show only the operators of one type in the Graph tab.
    FilterOperator(String),
}
