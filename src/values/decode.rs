//! One element at a time, as a number: what `diff --values` compares and the statistics of
//! the integer types sum.

use super::float::{self, Bits, Float};
use crate::inventory::DType;

/// Reads one little-endian element, given exactly its bytes, as f64.
pub type Decode = fn(&[u8]) -> f64;

/// The element size of `dtype` and how to decode one element, for the numeric types whose
/// elements are whole bytes; `None` for the others.
pub fn decoder(dtype: DType) -> Option<(usize, Decode)> {
    fn le<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&b[..N]);
        a
    }
    fn float<F: Float>(b: &[u8]) -> f64 {
        F::to_f64(F::U::read(b))
    }
    Some(match dtype {
        DType::F64 => (8, float::<float::F64>),
        DType::F32 => (4, float::<float::F32>),
        DType::F16 => (2, float::<float::F16>),
        DType::BF16 => (2, float::<float::Bf16>),
        DType::F8E4M3FN => (1, float::<float::F8E4M3FN>),
        DType::F8E4M3FNUZ => (1, float::<float::F8E4M3FNUZ>),
        DType::F8E5M2 => (1, float::<float::F8E5M2>),
        DType::F8E5M2FNUZ => (1, float::<float::F8E5M2FNUZ>),
        DType::F8E8M0 => (1, float::<float::F8E8M0>),
        DType::I8 => (1, |b| f64::from(b[0] as i8)),
        DType::U8 | DType::Bool => (1, |b| f64::from(b[0])),
        DType::I16 => (2, |b| f64::from(i16::from_le_bytes(le(b)))),
        DType::U16 => (2, |b| f64::from(u16::from_le_bytes(le(b)))),
        DType::I32 => (4, |b| f64::from(i32::from_le_bytes(le(b)))),
        DType::U32 => (4, |b| f64::from(u32::from_le_bytes(le(b)))),
        DType::I64 => (8, |b| i64::from_le_bytes(le(b)) as f64),
        DType::U64 => (8, |b| u64::from_le_bytes(le(b)) as f64),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_decode_little_endian() {
        let value = |dtype: DType, bytes: &[u8]| decoder(dtype).map(|(n, d)| (n, d(bytes)));
        assert_eq!(value(DType::F16, &[0x00, 0x3c]), Some((2, 1.0)));
        assert_eq!(value(DType::BF16, &[0x00, 0xc0]), Some((2, -2.0)));
        assert_eq!(value(DType::F8E4M3FN, &[0x7e]), Some((1, 448.0)));
        assert_eq!(value(DType::I16, &[0xff, 0xff]), Some((2, -1.0)));
        assert_eq!(value(DType::String, &[]), None);
    }
}
