//! TFLite's `TensorType` as inventory dtypes.

use crate::inventory::DType;

/// The dtype of `TensorType` value `t`; `None` for a value the schema does not define.
/// RESOURCE and VARIANT are handles with no elements of their own: opaque.
pub fn dtype(t: i8) -> Option<DType> {
    Some(match t {
        0 => DType::F32,
        1 => DType::F16,
        2 => DType::I32,
        3 => DType::U8,
        4 => DType::I64,
        5 => DType::String,
        6 => DType::Bool,
        7 => DType::I16,
        8 => DType::Complex64,
        9 => DType::I8,
        10 => DType::F64,
        11 => DType::Complex128,
        12 => DType::U64,
        13 | 14 => DType::Opaque,
        15 => DType::U32,
        16 => DType::U16,
        17 => DType::I4,
        18 => DType::BF16,
        19 => DType::I2,
        20 => DType::U4,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::schema::TensorType;

    /// Every type the generated schema names has a dtype, and nothing past them.
    #[test]
    fn every_schema_type_has_a_dtype() {
        for t in TensorType::ENUM_VALUES {
            assert!(super::dtype(t.0).is_some(), "{:?}", t.variant_name());
        }
        assert!(super::dtype(TensorType::ENUM_MAX + 1).is_none());
    }
}
