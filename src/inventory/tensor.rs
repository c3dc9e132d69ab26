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
    /// The graph that owns the tensor (0 in a model with no graph).
    #[serde(skip)]
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

/// A tensor that views part of a storage, which other tensors may view too (PyTorch): its
/// [`Tensor::data`] is the whole storage, and two views of one storage share those bytes
/// rather than overlap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TensorView {
    /// The tensor.
    pub tensor: TensorId,
    /// The storage's key in the file.
    pub storage: Name,
    /// Where the tensor's first element is, in elements from the storage's start.
    pub storage_offset: u64,
    /// Elements between neighbours along each dimension.
    pub strides: Vec<u64>,
}

impl TensorView {
    /// Elements of the storage the view reaches: one past its last element, from the
    /// storage's start; 0 for an empty tensor; `None` on overflow.
    pub fn extent(&self, shape: &[u64]) -> Option<u64> {
        if shape.contains(&0) {
            return Some(0);
        }
        let last = shape
            .iter()
            .zip(&self.strides)
            .try_fold(0u64, |acc, (&d, &s)| {
                acc.checked_add(d.checked_sub(1)?.checked_mul(s)?)
            })?;
        self.storage_offset.checked_add(last)?.checked_add(1)
    }
}

impl TensorView {
    /// The bytes of `data` (the view's storage) from the view's first element to one past its
    /// last: exactly its elements when they are contiguous in some order, with the elements
    /// between them when strides skip some. `None` when the view reaches past its storage.
    pub fn span(&self, shape: &[u64], dtype: DType, data: DataRange) -> Option<DataRange> {
        let element = dtype.byte_size(1)?;
        let first = self.storage_offset.checked_mul(element)?;
        let end = self.extent(shape)?.checked_mul(element)?.max(first);
        (end <= data.len).then(|| DataRange {
            file: data.file,
            offset: data.offset + first,
            len: end - first,
        })
    }
}

impl DataRange {
    /// One past the last byte; `None` on overflow.
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.len)
    }
}

impl Tensor {
    /// A tensor as declared at `decl_offset`, with element count and byte size derived from
    /// `shape` and `dtype`, in graph 0, with no data yet (see [`Tensor::stored`]).
    pub fn declared(name: Name, dtype: Option<DType>, shape: Vec<u64>, decl_offset: u64) -> Self {
        let (elements, byte_size) = Tensor::sizes(&shape, dtype);
        Tensor {
            name,
            dtype,
            shape,
            elements,
            byte_size,
            storage: Storage::Missing,
            data: None,
            graph: 0,
            node: None,
            decl_offset: Some(decl_offset),
        }
    }

    /// The parameters the tensor holds: its elements, none for opaque bytes.
    pub fn parameters(&self) -> u64 {
        match self.dtype {
            Some(DType::Opaque) => 0,
            _ => self.elements.unwrap_or(0),
        }
    }

    /// The tensor with its bytes at `data`, stored as `storage`.
    pub fn stored(self, storage: Storage, data: DataRange) -> Self {
        Tensor {
            storage,
            data: Some(data),
            ..self
        }
    }

    /// A dimension that is not a size, such as a negative one in an ONNX file: readers keep
    /// it as this value, which makes every size built on it overflow (short of a 0 that
    /// empties the tensor), and report it themselves. Displayed as `invalid`.
    pub const NOT_A_SIZE: u64 = u64::MAX;

    /// Element count and byte size for `shape` and `dtype`, overflow-checked. A shape with a
    /// 0 holds no elements whatever its other dimensions, as the reference loaders count it
    /// (safetensors' product stops growing at the 0); a format whose loader multiplies in
    /// another way says so itself (ST010).
    pub fn sizes(shape: &[u64], dtype: Option<DType>) -> (Option<u64>, Option<u64>) {
        let elements = if shape.contains(&0) {
            Some(0)
        } else {
            shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
        };
        let bytes = elements.zip(dtype).and_then(|(n, dt)| dt.byte_size(n));
        (elements, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_reaches_from_its_offset_to_its_last_element() {
        let view = |offset, strides: &[u64]| TensorView {
            tensor: 0,
            storage: Name::from("0"),
            storage_offset: offset,
            strides: strides.to_vec(),
        };
        // Two int32 views of one 10-element storage, as torch.save writes them.
        let storage = DataRange {
            file: 0,
            offset: 3136,
            len: 40,
        };
        assert_eq!(view(2, &[1]).extent(&[3]), Some(5));
        let span = view(6, &[2, 1]).span(&[2, 2], DType::I32, storage);
        assert_eq!(span.map(|d| (d.offset, d.len)), Some((3160, 16)));
        // A transposed view covers its whole storage; an empty one nothing.
        assert_eq!(view(0, &[1, 3]).extent(&[3, 2]), Some(6));
        assert_eq!(view(4, &[1]).extent(&[0]), Some(0));
        assert_eq!(view(8, &[1]).span(&[4], DType::I32, storage), None);
        assert_eq!(view(0, &[u64::MAX]).extent(&[3]), None);
    }

    #[test]
    fn a_zero_dimension_empties_the_tensor_in_any_order() {
        let big = 1 << 40;
        for shape in [[0, big, big], [big, big, 0], [big, 0, big]] {
            assert_eq!(
                Tensor::sizes(&shape, Some(DType::F32)),
                (Some(0), Some(0)),
                "{shape:?}"
            );
        }
        assert_eq!(Tensor::sizes(&[big, big], Some(DType::F32)), (None, None));
        assert_eq!(Tensor::sizes(&[], Some(DType::U8)), (Some(1), Some(1)));
        assert_eq!(
            Tensor::sizes(&[1 << 62], Some(DType::U8)),
            (Some(1 << 62), Some(1 << 62))
        );
        assert_eq!(
            Tensor::sizes(&[1 << 62], Some(DType::F32)),
            (Some(1 << 62), None)
        );
    }
}
