//! ValueInfoProto read in place: a value's name, element type and shape, with the dimensions
//! kept bounded by the caller's budget. Repeated occurrences merge as prost merges them.

use crate::formats::shared::protobuf::{fields, Field, Value, WireError};

/// One dimension: a size, a symbolic name, or neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DimView<'b> {
    Size(i64),
    Param(&'b [u8]),
    Unknown,
}

/// A tensor or sparse tensor type (the other TypeProto kinds are not read).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct TypeView<'b> {
    pub(super) sparse: bool,
    pub(super) elem_type: Option<i32>,
    pub(super) shape: Option<Vec<DimView<'b>>>,
}

/// The fields of a ValueInfoProto.
#[derive(Debug, Default)]
pub(super) struct ValueView<'b> {
    pub(super) name: Option<&'b [u8]>,
    /// `None` when absent or not a tensor type.
    pub(super) ty: Option<TypeView<'b>>,
    /// Dimensions beyond the budget: counted, not kept.
    pub(super) dropped: u64,
}

impl<'b> ValueView<'b> {
    /// Reads the ValueInfoProto in `bytes`, keeping at most `keep` dimensions.
    pub(super) fn read(bytes: &'b [u8], keep: u64) -> Result<Self, WireError> {
        let mut v = ValueView::default();
        let mut room = keep;
        // TypeProto's oneof, as prost holds it: the kind read last, tensor or sparse tensor.
        let mut kind: Option<TypeView<'b>> = None;
        for field in fields(bytes) {
            let Field { at, number, value } = field?;
            match (number, value) {
                (1, Value::Bytes(b)) => v.name = Some(b),
                (2, Value::Bytes(b)) => {
                    let ty = kind.get_or_insert_with(TypeView::default);
                    merge_type(b, ty, &mut room, &mut v.dropped)?;
                }
                (1 | 2, other) => return Err(WireError::unexpected(number, other, at)),
                _ => {}
            }
        }
        // An empty TypeProto has no kind: prost leaves its oneof unset.
        v.ty = kind.filter(|t| t.elem_type.is_some() || t.shape.is_some() || t.sparse);
        Ok(v)
    }
}

/// Merges a TypeProto into `ty`, as prost does: a oneof field of the kind already set merges
/// into it, one of the other kind replaces it.
fn merge_type<'b>(
    bytes: &'b [u8],
    ty: &mut TypeView<'b>,
    room: &mut u64,
    dropped: &mut u64,
) -> Result<(), WireError> {
    for field in fields(bytes) {
        let Field { at, number, value } = field?;
        let sparse = match (number, value) {
            (1, Value::Bytes(_)) => false,
            (8, Value::Bytes(_)) => true,
            (1 | 8, other) => return Err(WireError::unexpected(number, other, at)),
            _ => continue,
        };
        let Value::Bytes(tensor) = value else {
            continue;
        };
        if ty.sparse != sparse || (ty.elem_type.is_none() && ty.shape.is_none()) {
            *ty = TypeView {
                sparse,
                ..TypeView::default()
            };
        }
        for field in fields(tensor) {
            let Field { at, number, value } = field?;
            match (number, value) {
                (1, Value::Varint(e)) => ty.elem_type = Some(e as i32),
                (2, Value::Bytes(shape)) => {
                    let dims = ty.shape.get_or_insert_with(Vec::new);
                    merge_shape(shape, dims, room, dropped)?;
                }
                (1 | 2, other) => return Err(WireError::unexpected(number, other, at)),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Appends the dimensions of a TensorShapeProto to `dims`.
fn merge_shape<'b>(
    bytes: &'b [u8],
    dims: &mut Vec<DimView<'b>>,
    room: &mut u64,
    dropped: &mut u64,
) -> Result<(), WireError> {
    for field in fields(bytes) {
        let Field { at, number, value } = field?;
        let dim = match (number, value) {
            (1, Value::Bytes(b)) => b,
            (1, other) => return Err(WireError::unexpected(number, other, at)),
            _ => continue,
        };
        let mut d = DimView::Unknown;
        for field in fields(dim) {
            let Field { at, number, value } = field?;
            match (number, value) {
                (1, Value::Varint(v)) => d = DimView::Size(v as i64),
                (2, Value::Bytes(p)) => d = DimView::Param(p),
                (1 | 2, other) => return Err(WireError::unexpected(number, other, at)),
                _ => {}
            }
        }
        match room.checked_sub(1) {
            Some(left) => {
                *room = left;
                dims.push(d);
            }
            None => *dropped += 1,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The view must accept and refuse exactly what prost does, with the same fields,
    //! including how repeated occurrences of a message field merge.

    use super::super::proto::tensor_shape_proto::{dimension, Dimension};
    use super::super::proto::{type_proto, TensorShapeProto, TypeProto, ValueInfoProto};
    use super::{DimView, TypeView, ValueView};
    use crate::formats::onnx::test_rng::{differential, Rng};
    use prost::Message;

    fn random_value(rng: &mut Rng) -> ValueInfoProto {
        let dims = (0..rng.below(4))
            .map(|_| Dimension {
                value: match rng.below(3) {
                    0 => Some(dimension::Value::DimValue(rng.below(100) as i64 - 3)),
                    1 => Some(dimension::Value::DimParam(rng.bytes(3))),
                    _ => None,
                },
            })
            .collect();
        let tensor = type_proto::Tensor {
            elem_type: (rng.below(3) != 0).then(|| rng.below(27) as i32),
            shape: (rng.below(3) != 0).then_some(TensorShapeProto { dim: dims }),
        };
        ValueInfoProto {
            name: (rng.below(4) != 0).then(|| rng.bytes(5)),
            r#type: (rng.below(4) != 0).then(|| TypeProto {
                value: match rng.below(3) {
                    0 => Some(type_proto::Value::TensorType(tensor)),
                    1 => Some(type_proto::Value::SparseTensorType(tensor)),
                    _ => None,
                },
            }),
        }
    }

    /// prost's decoded type, in the view's terms.
    fn as_view(ty: &TypeProto) -> Option<TypeView<'_>> {
        let (sparse, t) = match ty.value.as_ref()? {
            type_proto::Value::TensorType(t) => (false, t),
            type_proto::Value::SparseTensorType(t) => (true, t),
        };
        fn dim(d: &Dimension) -> DimView<'_> {
            match &d.value {
                Some(dimension::Value::DimValue(v)) => DimView::Size(*v),
                Some(dimension::Value::DimParam(p)) => DimView::Param(p),
                None => DimView::Unknown,
            }
        }
        let t = TypeView {
            sparse,
            elem_type: t.elem_type,
            shape: t.shape.as_ref().map(|s| s.dim.iter().map(dim).collect()),
        };
        (t.elem_type.is_some() || t.shape.is_some() || t.sparse).then_some(t)
    }

    /// Both accept `bytes` with the same fields, or both refuse it; returns whether accepted.
    fn agree(bytes: &[u8]) -> bool {
        let ours = ValueView::read(bytes, u64::MAX);
        let theirs = ValueInfoProto::decode(bytes);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "disagree on {bytes:02x?}: {theirs:?}"
        );
        let (Ok(view), Ok(v)) = (ours, theirs) else {
            return false;
        };
        assert_eq!(view.name, v.name.as_deref());
        assert_eq!(view.ty, v.r#type.as_ref().and_then(as_view), "{bytes:02x?}");
        true
    }

    #[test]
    fn agrees_with_prost_on_valid_mutated_and_merged_values() {
        let make = |rng: &mut Rng| {
            let mut bytes = random_value(rng).encode_to_vec();
            // Half the time, a second occurrence of every field, which merges.
            if rng.below(2) == 0 {
                bytes.extend(random_value(rng).encode_to_vec());
            }
            bytes
        };
        differential(0x7a1e_0000_0000_0001, make, agree);
    }
}
