//! Element types, shared by every format.

use serde::{Serialize, Serializer};
use std::fmt;

/// The element type of a tensor or value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // The variant names are the documentation.
pub enum DType {
    F64,
    F32,
    F16,
    BF16,
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    F8E8M0,
    F6E2M3,
    F6E3M2,
    F4E2M1,
    /// Two `F4E2M1` values packed in one byte that is one element (PyTorch's
    /// `float4_e2m1fn_x2`): shapes and strides count the pairs.
    F4E2M1X2,
    I64,
    I32,
    I16,
    I8,
    I4,
    U64,
    U32,
    U16,
    U8,
    U4,
    I2,
    U2,
    Bool,
    String,
    /// A complex number of two `F16`s (PyTorch's `complex32`).
    Complex32,
    /// A complex number of two `BF16`s (PyTorch's `bcomplex32`).
    BComplex32,
    Complex64,
    Complex128,
    /// Elements stored in fixed-size blocks, such as GGML's quantized types.
    Blocks(&'static BlockType),
    /// Bytes that a backend reads in a layout of its own (an ExecuTorch delegate's packed
    /// weights): one element per byte, and no parameters.
    Opaque,
}

/// A type whose elements are stored in blocks: `elements` elements take `bytes` bytes, so
/// a tensor's element count (for GGML, each row's) must be a multiple of `elements`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockType {
    /// Lower-case name, such as `q4_k`.
    pub name: &'static str,
    /// Elements per block.
    pub elements: u64,
    /// Bytes per block.
    pub bytes: u64,
    /// Where each block keeps the scales its values are multiplied by.
    pub scales: Scales,
}

/// Where a block keeps its scales (and mins), and how they are coded: what `check --values`
/// reads of a block type, as llama.cpp's row validation (`ggml_validate_row_data`) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scales {
    /// No scale can be wrong: every byte value is a valid scale (NVFP4's UE4M3 scales).
    None,
    /// Half-precision scales, each at its byte offset in the block, by name (`d`, `dmin`).
    F16(&'static [(u16, &'static str)]),
    /// One single-precision scale `d` at this byte offset.
    F32(u16),
    /// One power-of-two scale `e` (E8M0, whose 0xff is NaN) at this byte offset.
    E8M0(u16),
    /// One half-precision scale spread over the top four bits of the four little-endian
    /// 16-bit words at this byte offset, lowest nibble first (IQ1_M).
    F16Nibbles(u16),
}

impl BlockType {
    /// Bits per element, as a fraction: `bytes * 8 / elements`.
    pub fn bits_per_element(self) -> f64 {
        (self.bytes * 8) as f64 / self.elements as f64
    }
}

impl DType {
    /// Storage size of one element in bits; `None` for variable-size types (strings).
    pub fn bits(self) -> Option<u64> {
        use DType::*;
        Some(match self {
            F64 | I64 | U64 | Complex64 => 64,
            F32 | I32 | U32 | Complex32 | BComplex32 => 32,
            F16 | BF16 | I16 | U16 => 16,
            F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E8M0 | F4E2M1X2 | I8 | U8 | Bool
            | Opaque => 8,
            F6E2M3 | F6E3M2 => 6,
            I4 | U4 | F4E2M1 => 4,
            I2 | U2 => 2,
            Complex128 => 128,
            String | Blocks(_) => return None,
        })
    }

    /// Storage bits per element, as a fraction for block types (4.5 for `q4_0`); `None`
    /// for variable-size types.
    pub fn bits_per_element(self) -> Option<f64> {
        match self {
            DType::Blocks(block) => Some(block.bits_per_element()),
            other => other.bits().map(|b| b as f64),
        }
    }

    /// Natural alignment of one element in bytes (1 for sub-byte types).
    pub fn align(self) -> u64 {
        self.bits().map_or(1, |b| (b / 8).max(1))
    }

    /// Bytes needed for `elements` packed elements, rounding sub-byte types up;
    /// `None` on overflow or for variable-size types.
    pub fn byte_size(self, elements: u64) -> Option<u64> {
        // Counted in bytes, or in elements per byte, so that no bit count can overflow where
        // the byte count does not.
        if let DType::Blocks(block) = self {
            return elements.div_ceil(block.elements).checked_mul(block.bytes);
        }
        match self.bits()? {
            bits if bits % 8 == 0 => elements.checked_mul(bits / 8),
            6 => Some(elements.checked_mul(3)?.div_ceil(4)),
            bits => Some(elements.div_ceil(8 / bits)),
        }
    }

    /// Lower-case name, as in JSON output.
    pub fn name(self) -> &'static str {
        use DType::*;
        match self {
            F64 => "f64",
            F32 => "f32",
            F16 => "f16",
            BF16 => "bf16",
            F8E4M3FN => "f8e4m3fn",
            F8E4M3FNUZ => "f8e4m3fnuz",
            F8E5M2 => "f8e5m2",
            F8E5M2FNUZ => "f8e5m2fnuz",
            F8E8M0 => "f8e8m0",
            F6E2M3 => "f6e2m3",
            F6E3M2 => "f6e3m2",
            F4E2M1 => "f4e2m1",
            F4E2M1X2 => "f4e2m1x2",
            I64 => "i64",
            I32 => "i32",
            I16 => "i16",
            I8 => "i8",
            I4 => "i4",
            U64 => "u64",
            U32 => "u32",
            U16 => "u16",
            U8 => "u8",
            U4 => "u4",
            I2 => "i2",
            U2 => "u2",
            Bool => "bool",
            String => "string",
            Complex32 => "complex32",
            BComplex32 => "bcomplex32",
            Complex64 => "complex64",
            Complex128 => "complex128",
            Blocks(block) => block.name,
            Opaque => "opaque",
        }
    }
}

impl Serialize for DType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::{BlockType, DType, Scales};

    #[test]
    fn byte_sizes_round_sub_byte_types_up_and_never_overflow() {
        assert_eq!(DType::F32.byte_size(3), Some(12));
        assert_eq!(DType::I4.byte_size(3), Some(2));
        assert_eq!(DType::U2.byte_size(5), Some(2));
        assert_eq!(DType::String.byte_size(3), None);
        assert_eq!(DType::F64.byte_size(u64::MAX / 4), None);
        assert_eq!(DType::U8.byte_size(1 << 62), Some(1 << 62));
        assert_eq!(DType::U4.byte_size(u64::MAX), Some(1 << 63));
        assert_eq!(DType::Complex128.byte_size(1 << 60), None);
        assert_eq!(DType::F6E2M3.byte_size(5), Some(4));
        assert_eq!(DType::F6E3M2.byte_size(u64::MAX), None);
        static Q4_0: BlockType = BlockType {
            name: "q4_0",
            elements: 32,
            bytes: 18,
            scales: Scales::F16(&[(0, "d")]),
        };
        assert_eq!(DType::Blocks(&Q4_0).byte_size(64), Some(36));
        assert_eq!(DType::Blocks(&Q4_0).bits_per_element(), Some(4.5));
    }

    #[test]
    fn serde_names_match_display_names() {
        for dtype in [
            DType::F32,
            DType::BF16,
            DType::F8E4M3FNUZ,
            DType::U2,
            DType::Complex128,
            DType::F6E3M2,
        ] {
            let json = serde_json::to_string(&dtype).unwrap();
            assert_eq!(json, format!("\"{}\"", dtype.name()));
        }
    }
}
