//! Constant tensors.

use super::{DType, FileId, GraphId, Name, NodeId};
use serde::Serialize;

/// Index into [`super::Inventory::tensors`].
pub type TensorId = usize;

/// A constant tensor (weights, initializers, inline constants).
#[derive(Debug, Clone, Serialize)]
pub struct Tensor {
    /// Tensor name. A tensor without a name of its own in the file (such as an ONNX
    /// Constant's value) is named after what holds it, as `node.attribute`.
    pub name: Name,
    /// Element type, if the file states one.
    pub dtype: Option<DType>,
    /// Dimensions.
    pub shape: Vec<u64>,
    /// Number of elements; `None` if the product of the shape overflows.
    pub elements: Option<u64>,
    /// Bytes implied by shape and dtype; `None` if unknown or overflowing.
    pub byte_size: Option<u64>,
    /// Where the data lives.
    pub storage: Storage,
    /// The bytes the file claims for the data, which may lie outside the file: rules check.
    pub data: Option<DataRange>,
    /// The graph that owns the tensor.
    pub graph: GraphId,
    /// The node that declares the tensor, if it is a node.
    pub node: Option<NodeId>,
    /// Absolute offset of the declaration in the model file.
    pub decl_offset: Option<u64>,
}

/// Where a tensor's bytes are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Storage {
    /// Inside the graph structure.
    Inline,
    /// In a separate data section or file.
    External,
    /// Nowhere: the declaration has no usable data.
    Missing,
}

/// The byte range a tensor's data occupies, as the file declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DataRange {
    /// The file holding the bytes.
    pub file: FileId,
    /// Absolute offset of the first byte.
    pub offset: u64,
    /// Number of bytes stored.
    pub len: u64,
}

impl DataRange {
    /// One past the last byte; `None` on overflow.
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.len)
    }
}

impl Tensor {
    /// Element count and byte size for `shape` and `dtype`, overflow-checked.
    pub fn sizes(shape: &[u64], dtype: Option<DType>) -> (Option<u64>, Option<u64>) {
        let elements = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
        let bytes = elements.zip(dtype).and_then(|(n, dt)| dt.byte_size(n));
        (elements, bytes)
    }
}
