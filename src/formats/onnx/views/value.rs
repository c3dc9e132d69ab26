//! ValueInfoProto read in place: a value's name, element type and shape, with the dimensions
//! kept bounded by the caller's budget. Repeated occurrences merge as prost merges them.

use crate::formats::shared::numbers::{protobuf_int32, signed64};
use crate::formats::shared::protobuf::{fields, Field, Value, WireError};

/// One dimension: a size, a symbolic name, or neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DimView<'b> {
    Size(i64),
    Param(&'b [u8]),
    Unknown,
}

/// A tensor or sparse tensor type; a sequence, map or optional type only as text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct TypeView<'b> {
    pub(crate) sparse: bool,
    pub(crate) elem_type: Option<i32>,
    pub(crate) shape: Option<Vec<DimView<'b>>>,
    /// A sequence, map or optional type, such as `seq(map(string, f32))`, for display only:
    /// schema/onnx.proto leaves these kinds out, so prost skips them as unknown fields.
    pub(crate) composite: Option<String>,
}

/// The fields of a ValueInfoProto.
#[derive(Debug, Default)]
pub(crate) struct ValueView<'b> {
    pub(crate) name: Option<&'b [u8]>,
    /// `None` when absent or not a tensor type.
    pub(crate) ty: Option<TypeView<'b>>,
    /// Dimensions beyond the budget: counted, not kept.
    pub(crate) dropped: u64,
}

impl<'b> ValueView<'b> {
    /// Reads the ValueInfoProto in `bytes`, keeping at most `keep` dimensions.
    pub(crate) fn read(bytes: &'b [u8], keep: u64) -> Result<Self, WireError> {
        let mut v = ValueView::default();
        let mut room = keep;
        // TypeProto's oneof, as prost holds it: the kind read last, tensor or sparse tensor.
        let mut kind: Option<TypeView<'b>> = None;
        let mut wire = fields(bytes);
        while let Some(field) = wire.next_field() {
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
        v.ty = kind.filter(|t| {
            t.elem_type.is_some() || t.shape.is_some() || t.sparse || t.composite.is_some()
        });
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
            (4 | 5 | 9, Value::Bytes(_)) => {
                ty.composite = Some(composite_text(bytes, 0));
                continue;
            }
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
                (1, Value::Varint(e)) => ty.elem_type = Some(protobuf_int32(e)),
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

/// How deep [`composite_text`] describes nested types before it writes `…`.
const MAX_TYPE_DEPTH: usize = 4;

/// A TypeProto as text: `tensor(f32)`, `seq(map(string, f32))`, `optional(tensor(i64))`.
/// Fields that do not decode read as `?`, as prost skips these kinds unread.
fn composite_text(bytes: &[u8], depth: usize) -> String {
    if depth >= MAX_TYPE_DEPTH {
        return "…".to_owned();
    }
    let elem = |e: u64| {
        let dtype = i32::try_from(e)
            .ok()
            .and_then(crate::formats::onnx::dtypes::from_onnx);
        dtype.map_or("?", |d| d.name())
    };
    let mut text = "?".to_owned();
    for field in fields(bytes) {
        let Ok(Field { number, value, .. }) = field else {
            return "?".to_owned();
        };
        let Value::Bytes(inner) = value else {
            continue;
        };
        let first = |number: u32| {
            fields(inner).find_map(|f| match f {
                Ok(Field {
                    number: n, value, ..
                }) if n == number => Some(value),
                _ => None,
            })
        };
        let nested = |number| match first(number) {
            Some(Value::Bytes(b)) => composite_text(b, depth + 1),
            _ => "?".to_owned(),
        };
        text = match number {
            1 | 8 => {
                let e = match first(1) {
                    Some(Value::Varint(e)) => elem(e),
                    _ => "?",
                };
                let kind = if number == 1 {
                    "tensor"
                } else {
                    "sparse_tensor"
                };
                format!("{kind}({e})")
            }
            4 => format!("seq({})", nested(1)),
            5 => {
                let key = match first(1) {
                    Some(Value::Varint(e)) => elem(e),
                    _ => "?",
                };
                format!("map({key}, {})", nested(2))
            }
            9 => format!("optional({})", nested(1)),
            _ => continue,
        };
    }
    text
}

/// Appends the dimensions of a TensorShapeProto to `dims`.
fn merge_shape<'b>(
    bytes: &'b [u8],
    dims: &mut Vec<DimView<'b>>,
    room: &mut u64,
    dropped: &mut u64,
) -> Result<(), WireError> {
    let mut wire = fields(bytes);
    while let Some(field) = wire.next_field() {
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
                (1, Value::Varint(v)) => d = DimView::Size(signed64(v)),
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

    use super::{DimView, TypeView, ValueView};
    use crate::formats::onnx::proto::tensor_shape_proto::{dimension, Dimension};
    use crate::formats::onnx::proto::{type_proto, TensorShapeProto, TypeProto, ValueInfoProto};
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
            composite: None,
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
        // The composite text is ours alone: prost skips those kinds as unknown fields.
        let tensor_part = view.ty.map(|t| TypeView {
            composite: None,
            ..t
        });
        let tensor_part =
            tensor_part.filter(|t| t.elem_type.is_some() || t.shape.is_some() || t.sparse);
        assert_eq!(
            tensor_part,
            v.r#type.as_ref().and_then(as_view),
            "{bytes:02x?}"
        );
        true
    }

    /// A length-delimited field `number` holding `inner`.
    fn field(number: u8, inner: &[u8]) -> Vec<u8> {
        let mut out = vec![number << 3 | 2, inner.len() as u8];
        out.extend_from_slice(inner);
        out
    }

    #[test]
    fn sequences_maps_and_optionals_read_as_text() {
        use super::composite_text;
        // tensor_type { elem_type: FLOAT }
        let float = field(1, &[0x08, 1]);
        // map_type { key_type: INT64, value_type: float }
        let map = field(5, &[&[0x08, 7][..], &field(2, &float)].concat());
        let seq = field(4, &field(1, &map));
        assert_eq!(composite_text(&seq, 0), "seq(map(i64, tensor(f32)))");
        assert_eq!(
            composite_text(&field(9, &field(1, &float)), 0),
            "optional(tensor(f32))"
        );
        // Deeper than four levels, and undecodable bytes, read as marks, never as errors.
        let mut deep = float.clone();
        for _ in 0..6 {
            deep = field(4, &field(1, &deep));
        }
        assert_eq!(composite_text(&deep, 0), "seq(seq(seq(seq(…))))");
        assert_eq!(composite_text(&field(4, &[0xff]), 0), "seq(?)");
        let bytes = field(2, &seq);
        let value = ValueView::read(&bytes, u64::MAX).unwrap();
        let ty = value.ty.unwrap();
        assert_eq!(ty.composite.as_deref(), Some("seq(map(i64, tensor(f32)))"));
        assert_eq!((ty.elem_type, ty.shape), (None, None));
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
