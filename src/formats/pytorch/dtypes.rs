//! PyTorch's element types as pickles name them: legacy storage classes (`torch.FloatStorage`),
//! dtype globals (`torch.float32`, passed to `_rebuild_tensor_v3`) and the `ScalarType` numbers
//! of `torch.export` archives.

use crate::inventory::DType;

/// The element type of a storage class, by its last name (`FloatStorage`).
pub fn of_storage(class: &str) -> Option<DType> {
    let class = class.rsplit('.').next().unwrap_or(class);
    Some(match class {
        "DoubleStorage" => DType::F64,
        "FloatStorage" => DType::F32,
        "HalfStorage" => DType::F16,
        "BFloat16Storage" => DType::BF16,
        "LongStorage" => DType::I64,
        "IntStorage" | "QInt32Storage" => DType::I32,
        "ShortStorage" => DType::I16,
        "CharStorage" | "QInt8Storage" => DType::I8,
        "ByteStorage" | "QUInt8Storage" | "QUInt4x2Storage" | "QUInt2x4Storage"
        | "UntypedStorage" => DType::U8,
        "BoolStorage" => DType::Bool,
        "ComplexFloatStorage" => DType::Complex64,
        "ComplexDoubleStorage" => DType::Complex128,
        _ => return None,
    })
}

/// The element type of a dtype global (`torch.float32`).
pub fn of_dtype(global: &str) -> Option<DType> {
    Some(match global.strip_prefix("torch.")? {
        "float64" => DType::F64,
        "float32" => DType::F32,
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        "int64" => DType::I64,
        "int32" | "qint32" => DType::I32,
        "int16" => DType::I16,
        "int8" | "qint8" => DType::I8,
        "uint8" | "quint8" => DType::U8,
        "uint16" => DType::U16,
        "uint32" => DType::U32,
        "uint64" => DType::U64,
        "bool" => DType::Bool,
        "complex64" => DType::Complex64,
        "complex128" => DType::Complex128,
        "float8_e4m3fn" => DType::F8E4M3FN,
        "float8_e4m3fnuz" => DType::F8E4M3FNUZ,
        "float8_e5m2" => DType::F8E5M2,
        "float8_e5m2fnuz" => DType::F8E5M2FNUZ,
        "float8_e8m0fnu" => DType::F8E8M0,
        _ => return None,
    })
}

/// The element type of a `torch.export` `ScalarType` (`torch/_export/serde/schema.py`).
pub fn of_scalar_type(number: i64) -> Option<DType> {
    Some(match number {
        1 => DType::U8,
        2 => DType::I8,
        3 => DType::I16,
        4 => DType::I32,
        5 => DType::I64,
        6 => DType::F16,
        7 => DType::F32,
        8 => DType::F64,
        10 => DType::Complex64,
        11 => DType::Complex128,
        12 => DType::Bool,
        13 => DType::BF16,
        28 => DType::U16,
        29 => DType::F8E4M3FN,
        30 => DType::F8E5M2,
        31 => DType::F8E4M3FNUZ,
        32 => DType::F8E5M2FNUZ,
        33 => DType::F8E8M0,
        34 => DType::U32,
        35 => DType::U64,
        _ => return None,
    })
}
