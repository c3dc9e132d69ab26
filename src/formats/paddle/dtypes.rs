//! Paddle's `VarType.Type` numbers and PIR type names, as element types.

use crate::inventory::DType;

/// `VarType.Type` of a VOCAB variable, stored as a string map rather than a tensor record.
pub const VOCAB: u64 = 27;

/// Every `VarType.Type` with its name and, for plain element types, the element type.
const TYPES: &[(u64, &str, Option<DType>)] = &[
    (0, "BOOL", Some(DType::Bool)),
    (1, "INT16", Some(DType::I16)),
    (2, "INT32", Some(DType::I32)),
    (3, "INT64", Some(DType::I64)),
    (4, "FP16", Some(DType::F16)),
    (5, "FP32", Some(DType::F32)),
    (6, "FP64", Some(DType::F64)),
    (7, "DENSE_TENSOR", None),
    (8, "SELECTED_ROWS", None),
    (9, "FEED_MINIBATCH", None),
    (10, "FETCH_LIST", None),
    (11, "STEP_SCOPES", None),
    (12, "LOD_RANK_TABLE", None),
    (13, "DENSE_TENSOR_ARRAY", None),
    (14, "PLACE_LIST", None),
    (15, "READER", None),
    (16, "FETCH_VAR_LIST", None),
    (17, "RAW", None),
    (18, "TUPLE", None),
    (19, "SIZE_T", Some(DType::U64)),
    (20, "UINT8", Some(DType::U8)),
    (21, "INT8", Some(DType::I8)),
    (22, "BF16", Some(DType::BF16)),
    (23, "COMPLEX64", Some(DType::Complex64)),
    (24, "COMPLEX128", Some(DType::Complex128)),
    (25, "STRING", None),
    (26, "STRINGS", None),
    (27, "VOCAB", None),
    (28, "FEED_LIST", None),
    (29, "PSTRING", None),
    (30, "SPARSE_COO", None),
    (31, "SPARSE_CSR", None),
    (32, "FP8_E4M3FN", Some(DType::F8E4M3FN)),
    (33, "FP8_E5M2", Some(DType::F8E5M2)),
    (36, "UINT16", Some(DType::U16)),
    (37, "UINT32", Some(DType::U32)),
    (38, "UINT64", Some(DType::U64)),
];

/// The element type of a plain `VarType.Type`; `None` for containers and unknown numbers.
pub fn plain(code: u64) -> Option<DType> {
    TYPES.iter().find(|t| t.0 == code).and_then(|t| t.2)
}

/// `NAME(code)` for a message, such as `FP32(5)` or `unknown(99)`.
pub fn describe(code: u64) -> String {
    let name = TYPES
        .iter()
        .find(|t| t.0 == code)
        .map_or("unknown", |t| t.1);
    format!("{name}({code})")
}

/// The element type of a PIR type name such as `0.t_f32`.
pub fn from_pir(name: &str) -> Option<DType> {
    let short = name.rsplit('.').next().unwrap_or(name);
    Some(match short {
        "t_bool" => DType::Bool,
        "t_i8" => DType::I8,
        "t_ui8" => DType::U8,
        "t_i16" => DType::I16,
        "t_ui16" => DType::U16,
        "t_i32" => DType::I32,
        "t_ui32" => DType::U32,
        "t_i64" => DType::I64,
        "t_ui64" => DType::U64,
        "t_f16" => DType::F16,
        "t_bf16" => DType::BF16,
        "t_f32" => DType::F32,
        "t_f64" => DType::F64,
        "t_c64" => DType::Complex64,
        "t_c128" => DType::Complex128,
        "t_f8e4m3fn" => DType::F8E4M3FN,
        "t_f8e5m2" => DType::F8E5M2,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_types_have_elements_and_containers_do_not() {
        assert_eq!(plain(5), Some(DType::F32));
        assert_eq!(plain(22), Some(DType::BF16));
        assert_eq!(plain(7), None);
        assert_eq!(plain(VOCAB), None);
        assert_eq!(plain(99), None);
        assert_eq!(describe(27), "VOCAB(27)");
        assert_eq!(describe(99), "unknown(99)");
        assert_eq!(from_pir("0.t_bf16"), Some(DType::BF16));
        assert_eq!(from_pir("0.t_vec"), None);
    }
}
