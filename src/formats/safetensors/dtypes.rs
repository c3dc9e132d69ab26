//! safetensors dtype names, as the `safetensors` crate 0.8 spells them.

use crate::inventory::DType;

/// The element type `name` stands for.
pub fn dtype(name: &str) -> Option<DType> {
    use DType::*;
    Some(match name {
        "BOOL" => Bool,
        "F4" => F4E2M1,
        "F6_E2M3" => F6E2M3,
        "F6_E3M2" => F6E3M2,
        "U8" => U8,
        "I8" => I8,
        "F8_E5M2" => F8E5M2,
        "F8_E4M3" => F8E4M3FN,
        "F8_E8M0" => F8E8M0,
        "F8_E4M3FNUZ" => F8E4M3FNUZ,
        "F8_E5M2FNUZ" => F8E5M2FNUZ,
        "I16" => I16,
        "U16" => U16,
        "F16" => F16,
        "BF16" => BF16,
        "I32" => I32,
        "U32" => U32,
        "F32" => F32,
        "C64" => Complex64,
        "F64" => F64,
        "I64" => I64,
        "U64" => U64,
        _ => return None,
    })
}
