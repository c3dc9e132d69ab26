//! PyTorch's element types as pickles name them: legacy storage classes (`torch.FloatStorage`),
//! dtype globals (`torch.float32`, passed to `_rebuild_tensor_v3` and
//! `_rebuild_meta_tensor_no_storage`) and the `ScalarType` numbers of `torch.export` archives.
//!
//! Every dtype torch 2.15 defines is here with the bytes torch gives one element
//! (`dtype.itemsize`), which is what its storage arithmetic uses, and the inventory's element
//! type with the same layout. Where none has it, the nearest whole-byte type stands in: the
//! opaque `bits*` types are unsigned bytes, and the shell types `uint1`..`uint7` and
//! `int1`..`int7` take one byte per element in torch's storages (not rtenx's packed `U4` or
//! `I2`).

use crate::inventory::DType;

/// A torch dtype: the inventory's element type and torch's storage layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// The element type, as the inventory names it.
    pub dtype: DType,
    /// torch's `name` (`float8_e4m3fn`), without `torch.`.
    pub name: &'static str,
    /// Bytes per element in torch's storage arithmetic (`dtype.itemsize`).
    pub size: u64,
    /// Elements each byte of a quantized tensor's storage holds: 2 for `quint4x2` and 4 for
    /// `quint2x4`, whose storages torch packs; 1 for the others.
    pub per_byte: u64,
}

const fn element(name: &'static str, dtype: DType, size: u64) -> Element {
    Element {
        dtype,
        name,
        size,
        per_byte: 1,
    }
}

/// torch 2.15's dtypes (`torch.dtype` instances in `torch`), by their `str` without `torch.`:
/// the names pickles use. Aliases (`torch.half`, `torch.cfloat`) are in [`ALIASES`].
const DTYPES: &[Element] = &[
    element("float64", DType::F64, 8),
    element("float32", DType::F32, 4),
    element("float16", DType::F16, 2),
    element("bfloat16", DType::BF16, 2),
    element("float8_e4m3fn", DType::F8E4M3FN, 1),
    element("float8_e4m3fnuz", DType::F8E4M3FNUZ, 1),
    element("float8_e5m2", DType::F8E5M2, 1),
    element("float8_e5m2fnuz", DType::F8E5M2FNUZ, 1),
    element("float8_e8m0fnu", DType::F8E8M0, 1),
    element("float4_e2m1fn_x2", DType::F4E2M1X2, 1),
    element("int64", DType::I64, 8),
    element("int32", DType::I32, 4),
    element("int16", DType::I16, 2),
    element("int8", DType::I8, 1),
    element("uint64", DType::U64, 8),
    element("uint32", DType::U32, 4),
    element("uint16", DType::U16, 2),
    element("uint8", DType::U8, 1),
    element("bool", DType::Bool, 1),
    element("complex128", DType::Complex128, 16),
    element("complex64", DType::Complex64, 8),
    element("complex32", DType::Complex32, 4),
    element("bcomplex32", DType::BComplex32, 4),
    element("bits16", DType::U16, 2),
    element("bits8", DType::U8, 1),
    element("bits1x8", DType::U8, 1),
    element("bits2x4", DType::U8, 1),
    element("bits4x2", DType::U8, 1),
    element("qint32", DType::I32, 4),
    element("qint8", DType::I8, 1),
    element("quint8", DType::U8, 1),
    Element {
        per_byte: 2,
        ..element("quint4x2", DType::U4, 1)
    },
    Element {
        per_byte: 4,
        ..element("quint2x4", DType::U2, 1)
    },
    element("uint1", DType::U8, 1),
    element("uint2", DType::U8, 1),
    element("uint3", DType::U8, 1),
    element("uint4", DType::U8, 1),
    element("uint5", DType::U8, 1),
    element("uint6", DType::U8, 1),
    element("uint7", DType::U8, 1),
    element("int1", DType::I8, 1),
    element("int2", DType::I8, 1),
    element("int3", DType::I8, 1),
    element("int4", DType::I8, 1),
    element("int5", DType::I8, 1),
    element("int6", DType::I8, 1),
    element("int7", DType::I8, 1),
];

/// Other names `torch` gives the same dtypes.
const ALIASES: &[(&str, &str)] = &[
    ("double", "float64"),
    ("float", "float32"),
    ("half", "float16"),
    ("long", "int64"),
    ("int", "int32"),
    ("short", "int16"),
    ("cdouble", "complex128"),
    ("cfloat", "complex64"),
    ("chalf", "complex32"),
    ("bit", "uint1"),
];

/// Storage classes (`torch.FloatStorage`) and the dtype of their elements
/// (`torch.storage._dtype_to_storage_type_map`); an `UntypedStorage` holds bytes.
const STORAGES: &[(&str, &str)] = &[
    ("DoubleStorage", "float64"),
    ("FloatStorage", "float32"),
    ("HalfStorage", "float16"),
    ("BFloat16Storage", "bfloat16"),
    ("LongStorage", "int64"),
    ("IntStorage", "int32"),
    ("ShortStorage", "int16"),
    ("CharStorage", "int8"),
    ("ByteStorage", "uint8"),
    ("BoolStorage", "bool"),
    ("ComplexDoubleStorage", "complex128"),
    ("ComplexFloatStorage", "complex64"),
    ("QInt32Storage", "qint32"),
    ("QInt8Storage", "qint8"),
    ("QUInt8Storage", "quint8"),
    ("QUInt4x2Storage", "quint4x2"),
    ("QUInt2x4Storage", "quint2x4"),
    ("UntypedStorage", "uint8"),
];

/// The dtype torch calls `name` (`float32`, or an alias such as `half`).
fn named(name: &str) -> Option<Element> {
    let name = ALIASES
        .iter()
        .find_map(|&(alias, real)| (alias == name).then_some(real))
        .unwrap_or(name);
    DTYPES.iter().copied().find(|e| e.name == name)
}

/// The elements of a storage class, by its last name (`FloatStorage`, `UntypedStorage`).
pub fn storage(class: &str) -> Option<Element> {
    let class = class.rsplit('.').next().unwrap_or(class);
    let (_, name) = STORAGES.iter().find(|(c, _)| *c == class)?;
    named(name)
}

/// The element type of a storage class, by its last name (`FloatStorage`).
pub fn of_storage(class: &str) -> Option<DType> {
    storage(class).map(|e| e.dtype)
}

/// The dtype a global names (`torch.float32`).
pub fn dtype(global: &str) -> Option<Element> {
    named(global.strip_prefix("torch.")?)
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
        9 => DType::Complex32,
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

#[cfg(test)]
mod tests {
    use super::{dtype, storage, DTYPES, STORAGES};

    /// torch's `dtype.itemsize` is the element size of the inventory's type, except for the
    /// packed quantized types, whose storages hold several elements a byte, and the types
    /// rtenx packs and torch does not.
    #[test]
    fn element_sizes_are_torchs() {
        for e in DTYPES {
            let packed = e.per_byte > 1;
            assert_eq!(
                e.dtype.byte_size(1),
                Some(e.size),
                "{} as {}",
                e.name,
                e.dtype
            );
            if !packed {
                assert_eq!(e.dtype.bits(), Some(e.size * 8), "{}", e.name);
            }
        }
        assert_eq!(dtype("torch.quint4x2").map(|e| e.per_byte), Some(2));
        assert_eq!(dtype("torch.quint2x4").map(|e| e.per_byte), Some(4));
    }

    #[test]
    fn names_storages_and_aliases_resolve() {
        assert_eq!(dtype("torch.chalf").map(|e| e.name), Some("complex32"));
        assert_eq!(dtype("torch.float8_e8m0fnu").map(|e| e.size), Some(1));
        assert_eq!(dtype("float32"), None);
        assert_eq!(dtype("torch.FloatStorage"), None);
        for (class, _) in STORAGES {
            assert!(storage(&format!("torch.{class}")).is_some(), "{class}");
        }
        assert_eq!(
            storage("torch.storage.UntypedStorage").map(|e| e.size),
            Some(1)
        );
        assert_eq!(
            storage("torch.cuda.HalfStorage").map(|e| e.name),
            Some("float16")
        );
        assert_eq!(storage("torch.TypedStorage"), None);
    }
}
