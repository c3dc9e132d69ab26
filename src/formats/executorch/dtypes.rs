//! ExecuTorch scalar types: their element types and names.

use crate::inventory::DType;

/// The element type of ExecuTorch scalar type `code` (a c10::ScalarType number), or `None`
/// for a number ExecuTorch does not define. Quantized types map to their storage type.
pub fn dtype(code: i8) -> Option<DType> {
    use DType::*;
    Some(match code {
        0 | 13 | 16 | 17 => U8,
        1 | 12 => I8,
        2 => I16,
        3 | 14 => I32,
        4 => I64,
        5 => F16,
        6 => F32,
        7 => F64,
        11 => Bool,
        15 => BF16,
        22 | 27 => U16,
        23 => F8E5M2,
        24 => F8E4M3FN,
        25 => F8E5M2FNUZ,
        26 => F8E4M3FNUZ,
        28 => U32,
        29 => U64,
        _ => return None,
    })
}

/// ExecuTorch's name for scalar type `code`, such as `FLOAT`.
pub fn name(code: i8) -> String {
    super::schema::program::ScalarType(code)
        .variant_name()
        .map_or_else(|| format!("#{code}"), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_scalar_type_has_an_element_type_and_no_other_does() {
        for code in i8::MIN..=i8::MAX {
            let named = crate::formats::executorch::schema::program::ScalarType(code)
                .variant_name()
                .is_some();
            assert_eq!(dtype(code).is_some(), named, "scalar type {code}");
        }
        assert_eq!(name(6), "FLOAT");
        assert_eq!(name(9), "#9");
    }
}
