//! ONNX `TensorProto.DataType` codes.

use crate::formats::shared::protobuf::Scalar;
use crate::inventory::DType;

/// The typed value fields of a TensorProto, in field-number order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Typed {
    Float,
    Int32,
    String,
    Int64,
    Double,
    Uint64,
}

impl Typed {
    pub(crate) const ALL: [Typed; 6] = [
        Typed::Float,
        Typed::Int32,
        Typed::String,
        Typed::Int64,
        Typed::Double,
        Typed::Uint64,
    ];

    /// The field's name in onnx.proto.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Typed::Float => "float_data",
            Typed::Int32 => "int32_data",
            Typed::String => "string_data",
            Typed::Int64 => "int64_data",
            Typed::Double => "double_data",
            Typed::Uint64 => "uint64_data",
        }
    }

    pub(crate) fn of_field(number: u32) -> Option<(Typed, Option<Scalar>)> {
        Some(match number {
            4 => (Typed::Float, Some(Scalar::Fixed32)),
            5 => (Typed::Int32, Some(Scalar::Varint)),
            6 => (Typed::String, None),
            7 => (Typed::Int64, Some(Scalar::Varint)),
            10 => (Typed::Double, Some(Scalar::Fixed64)),
            11 => (Typed::Uint64, Some(Scalar::Varint)),
            _ => return None,
        })
    }
}

/// The inventory dtype of an ONNX data type code; `None` for UNDEFINED (0) and unknown codes.
pub fn from_onnx(code: i32) -> Option<DType> {
    use DType::*;
    Some(match code {
        1 => F32,
        2 => U8,
        3 => I8,
        4 => U16,
        5 => I16,
        6 => I32,
        7 => I64,
        8 => String,
        9 => Bool,
        10 => F16,
        11 => F64,
        12 => U32,
        13 => U64,
        14 => Complex64,
        15 => Complex128,
        16 => BF16,
        17 => F8E4M3FN,
        18 => F8E4M3FNUZ,
        19 => F8E5M2,
        20 => F8E5M2FNUZ,
        21 => U4,
        22 => I4,
        23 => F4E2M1,
        24 => F8E8M0,
        25 => U2,
        26 => I2,
        _ => return None,
    })
}

/// The ONNX data type code of `dtype`.
pub fn to_onnx(dtype: DType) -> Option<i32> {
    (1..=26).find(|&code| from_onnx(code) == Some(dtype))
}

/// The typed field that holds `dtype`, and how many of its entries one element takes.
/// Sub-byte types are left out: their packing in int32_data varies by IR version.
pub(super) fn typed_field(dtype: DType) -> Option<(Typed, u64)> {
    use DType::*;
    Some(match dtype {
        F32 => (Typed::Float, 1),
        Complex64 => (Typed::Float, 2),
        F64 => (Typed::Double, 1),
        Complex128 => (Typed::Double, 2),
        I64 => (Typed::Int64, 1),
        U32 | U64 => (Typed::Uint64, 1),
        String => (Typed::String, 1),
        I32 | I16 | I8 | U16 | U8 | Bool | F16 | BF16 | F8E4M3FN | F8E4M3FNUZ | F8E5M2
        | F8E5M2FNUZ | F8E8M0 => (Typed::Int32, 1),
        I4 | U4 | I2 | U2 | F4E2M1 | F6E2M3 | F6E3M2 | Blocks(_) => return None,
        // PyTorch's own types and opaque bytes, which ONNX does not have.
        F4E2M1X2 | Complex32 | BComplex32 | Opaque => return None,
    })
}
