//! Floating-point element types read by their bit patterns: which patterns are NaN, infinite,
//! zero, subnormal or the largest finite magnitude, each told with integer operations alone so
//! that a pass over many elements vectorises; and the number a pattern stands for.

use crate::inventory::DType;
use std::ops::{BitAnd, BitOr, BitXor};

/// An unsigned integer that holds one element's bits.
pub trait Bits:
    Copy
    + Default
    + Eq
    + Ord
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Send
    + Sync
{
    /// Bytes per element.
    const BYTES: usize;
    /// The element whose little-endian bytes are `le`, exactly [`Bits::BYTES`] of them (as
    /// `chunks_exact` hands them out; fewer read as 0).
    fn read(le: &[u8]) -> Self;
    /// The bits, widened.
    fn widen(self) -> u64;
    /// The low bits of `bits`, those [`Bits::widen`] gave.
    fn narrow(bits: u64) -> Self;
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn read(le: &[u8]) -> Self {
                // A plain load: no copy a build without LTO might leave as a call.
                <$t>::from_le_bytes(*le.first_chunk().unwrap_or(&[0; std::mem::size_of::<$t>()]))
            }
            #[inline(always)]
            fn widen(self) -> u64 {
                u64::from(self)
            }
            #[inline(always)]
            fn narrow(bits: u64) -> Self {
                bits as $t
            }
        }
    )*};
}
bits!(u8, u16, u32, u64);

/// Which bit patterns of a type are not numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Specials {
    /// IEEE 754: an all-ones exponent is infinite with a zero mantissa, NaN with any other.
    Ieee,
    /// No infinity; NaN is the all-ones exponent and mantissa (`f8e4m3fn`).
    NanAllOnes,
    /// No infinity and no negative zero: NaN is the pattern negative zero would have (`fnuz`).
    NanNegZero,
    /// An exponent alone, with no sign, zero or infinity: NaN is all ones (`f8e8m0`).
    Exponent,
}

/// A floating-point type, by the fields of its bit pattern.
pub trait Float {
    /// The bits of one element.
    type U: Bits;
    /// The sign bit (none for an exponent-only type).
    const SIGN: Self::U;
    /// Every bit but the sign.
    const ABS: Self::U;
    /// The exponent's bits.
    const EXP: Self::U;
    /// The largest finite magnitude.
    const MAX: Self::U;
    /// The smallest normal magnitude (0 for a type with no subnormals).
    const MIN_NORMAL: Self::U;
    /// Mantissa bits.
    const MANTISSA: u32;
    /// Exponent bias.
    const BIAS: i32;
    /// Which patterns are NaN or infinite.
    const SPECIALS: Specials;

    /// The number `x` stands for, exactly.
    #[inline(always)]
    fn to_f64(x: Self::U) -> f64 {
        // The IEEE types as the processor converts them (each `as` keeps every bit there is).
        let bits = x.widen();
        match (Self::U::BYTES, Self::MANTISSA) {
            (8, 52) => return f64::from_bits(bits),
            (4, 23) => return f64::from(f32::from_bits(bits as u32)),
            (2, 7) => return f64::from(f32::from_bits((bits as u32) << 16)),
            (2, 10) => return f64::from(f16_to_f32(bits as u16)),
            _ => {}
        }
        let c = class::<Self>(x);
        let negative = x & Self::SIGN != Self::U::default();
        let sign = if negative { -1.0 } else { 1.0 };
        if c.nan {
            return f64::NAN;
        }
        if c.inf {
            return sign * f64::INFINITY;
        }
        let bits = (x & Self::ABS).widen();
        let mantissa =
            (bits & ((1 << Self::MANTISSA) - 1)) as f64 / (1u64 << Self::MANTISSA) as f64;
        // Below 2^11, whatever the type: an exponent field is at most 11 bits.
        let exponent = (bits >> Self::MANTISSA) as i32;
        let value = if exponent == 0 && Self::SPECIALS != Specials::Exponent {
            mantissa * 2f64.powi(1 - Self::BIAS)
        } else {
            (1.0 + mantissa) * 2f64.powi(exponent - Self::BIAS)
        };
        sign * value
    }
}

/// What one bit pattern is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    /// Not a number.
    pub nan: bool,
    /// Positive or negative infinity.
    pub inf: bool,
    /// Positive or negative zero.
    pub zero: bool,
    /// Non-zero, and smaller in magnitude than the smallest normal number.
    pub subnormal: bool,
    /// The largest finite magnitude, positive or negative.
    pub extreme: bool,
}

/// What a pass counts of every element: fewer tests than [`Class`] has, each one
/// comparison, for the fewest instructions per element (NaN and infinite are told apart, and
/// subnormals from zeros, only where these counts say there are some).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// NaN or infinite.
    pub nonfinite: bool,
    /// Zero or subnormal: smaller in magnitude than the smallest normal number.
    pub small: bool,
    /// Zero.
    pub zero: bool,
    /// The largest finite magnitude.
    pub extreme: bool,
}

/// What a pass counts of `x`: [`class`] in fewer instructions.
#[inline(always)]
pub fn counted<F: Float + ?Sized>(x: F::U) -> Counted {
    let zero = F::U::default();
    let abs = x & F::ABS;
    let (nonfinite, small, is_zero) = match F::SPECIALS {
        Specials::Ieee => (abs >= F::EXP, abs < F::MIN_NORMAL, abs == zero),
        Specials::NanAllOnes => (abs == F::ABS, abs < F::MIN_NORMAL, abs == zero),
        Specials::NanNegZero => (x == F::SIGN, abs < F::MIN_NORMAL && x != F::SIGN, x == zero),
        Specials::Exponent => (x == F::ABS, false, false),
    };
    Counted {
        nonfinite,
        small,
        zero: is_zero,
        extreme: abs == F::MAX,
    }
}

/// What `x` is, with comparisons and masks only (no branch once `F` is known).
#[inline(always)]
pub fn class<F: Float + ?Sized>(x: F::U) -> Class {
    let zero = F::U::default();
    let abs = x & F::ABS;
    let (nan, inf) = match F::SPECIALS {
        Specials::Ieee => (abs > F::EXP, abs == F::EXP),
        Specials::NanAllOnes => (abs == F::ABS, false),
        Specials::NanNegZero => (x == F::SIGN, false),
        Specials::Exponent => (x == F::ABS, false),
    };
    Class {
        nan,
        inf,
        zero: abs == zero && !nan && F::SPECIALS != Specials::Exponent,
        subnormal: abs & F::EXP == zero && abs != zero,
        extreme: abs == F::MAX,
    }
}

macro_rules! float {
    ($(#[$doc:meta] $name:ident: $u:ty, sign $sign:literal, exp $exp:literal, max $max:literal,
       normal $normal:literal, mantissa $m:literal, bias $bias:literal, $specials:ident;)*) => {$(
        #[$doc]
        pub struct $name;
        impl Float for $name {
            type U = $u;
            const SIGN: $u = $sign;
            const ABS: $u = !$sign;
            const EXP: $u = $exp;
            const MAX: $u = $max;
            const MIN_NORMAL: $u = $normal;
            const MANTISSA: u32 = $m;
            const BIAS: i32 = $bias;
            const SPECIALS: Specials = Specials::$specials;
        }
    )*};
}

float! {
    /// IEEE double precision.
    F64: u64, sign 0x8000_0000_0000_0000, exp 0x7ff0_0000_0000_0000,
        max 0x7fef_ffff_ffff_ffff, normal 0x0010_0000_0000_0000, mantissa 52, bias 1023, Ieee;
    /// IEEE single precision.
    F32: u32, sign 0x8000_0000, exp 0x7f80_0000, max 0x7f7f_ffff, normal 0x0080_0000,
        mantissa 23, bias 127, Ieee;
    /// IEEE half precision: largest finite 65504.
    F16: u16, sign 0x8000, exp 0x7c00, max 0x7bff, normal 0x0400, mantissa 10, bias 15, Ieee;
    /// bfloat16, the top half of an IEEE single.
    Bf16: u16, sign 0x8000, exp 0x7f80, max 0x7f7f, normal 0x0080, mantissa 7, bias 127, Ieee;
    /// E4M3 with no infinity: largest finite 448.
    F8E4M3FN: u8, sign 0x80, exp 0x78, max 0x7e, normal 0x08, mantissa 3, bias 7, NanAllOnes;
    /// E4M3 with no infinity or negative zero: largest finite 240.
    F8E4M3FNUZ: u8, sign 0x80, exp 0x78, max 0x7f, normal 0x08, mantissa 3, bias 8, NanNegZero;
    /// E5M2, IEEE-like: largest finite 57344.
    F8E5M2: u8, sign 0x80, exp 0x7c, max 0x7b, normal 0x04, mantissa 2, bias 15, Ieee;
    /// E5M2 with no infinity or negative zero: largest finite 57344.
    F8E5M2FNUZ: u8, sign 0x80, exp 0x7c, max 0x7f, normal 0x04, mantissa 2, bias 16, NanNegZero;
    /// An exponent alone: 2^(e - 127), 0xff NaN.
    F8E8M0: u8, sign 0x00, exp 0xff, max 0xfe, normal 0x00, mantissa 0, bias 127, Exponent;
}

/// The floating-point types whose elements the scan reads, by their bit patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // Named as the `DType`s are.
pub enum FloatType {
    F64,
    F32,
    F16,
    Bf16,
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    F8E8M0,
}

/// `$body` with `$f` naming the [`Float`] type of `$kind` (a [`FloatType`]).
macro_rules! with_float {
    ($kind:expr, $f:ident => $body:expr) => {{
        use $crate::values::float::{self as fl, FloatType as K};
        match $kind {
            K::F64 => {
                type $f = fl::F64;
                $body
            }
            K::F32 => {
                type $f = fl::F32;
                $body
            }
            K::F16 => {
                type $f = fl::F16;
                $body
            }
            K::Bf16 => {
                type $f = fl::Bf16;
                $body
            }
            K::F8E4M3FN => {
                type $f = fl::F8E4M3FN;
                $body
            }
            K::F8E4M3FNUZ => {
                type $f = fl::F8E4M3FNUZ;
                $body
            }
            K::F8E5M2 => {
                type $f = fl::F8E5M2;
                $body
            }
            K::F8E5M2FNUZ => {
                type $f = fl::F8E5M2FNUZ;
                $body
            }
            K::F8E8M0 => {
                type $f = fl::F8E8M0;
                $body
            }
        }
    }};
}
pub(crate) use with_float;

impl FloatType {
    /// The floating-point type of `dtype`'s elements, and how many of them make one element
    /// (two for a complex number); `None` for the other types.
    pub fn of(dtype: DType) -> Option<(FloatType, u64)> {
        Some(match dtype {
            DType::F64 => (FloatType::F64, 1),
            DType::F32 => (FloatType::F32, 1),
            DType::F16 => (FloatType::F16, 1),
            DType::BF16 => (FloatType::Bf16, 1),
            DType::F8E4M3FN => (FloatType::F8E4M3FN, 1),
            DType::F8E4M3FNUZ => (FloatType::F8E4M3FNUZ, 1),
            DType::F8E5M2 => (FloatType::F8E5M2, 1),
            DType::F8E5M2FNUZ => (FloatType::F8E5M2FNUZ, 1),
            DType::F8E8M0 => (FloatType::F8E8M0, 1),
            DType::Complex32 => (FloatType::F16, 2),
            DType::BComplex32 => (FloatType::Bf16, 2),
            DType::Complex64 => (FloatType::F32, 2),
            DType::Complex128 => (FloatType::F64, 2),
            _ => return None,
        })
    }

    /// Bytes per value.
    pub fn bytes(self) -> usize {
        with_float!(self, F => <F as Float>::U::BYTES)
    }

    /// The number the little-endian `le` (exactly [`FloatType::bytes`] of them) stands for.
    pub fn value(self, le: &[u8]) -> f64 {
        with_float!(self, F => F::to_f64(<F as Float>::U::read(le)))
    }

    /// The largest finite value.
    pub fn max(self) -> f64 {
        with_float!(self, F => F::to_f64(F::MAX))
    }

    /// The smallest positive normal value.
    pub fn min_normal(self) -> f64 {
        with_float!(self, F => F::to_f64(F::MIN_NORMAL))
    }
}

/// IEEE half precision to single precision, exactly.
#[inline(always)]
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let frac = u32::from(h & 0x3ff);
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: normalise.
            let shift = frac.leading_zeros() - 21;
            sign | ((113 - shift) << 23) | ((frac << shift) & 0x3ff) << 13
        }
        (0x1f, _) => sign | 0x7f80_0000 | (frac << 13),
        _ => sign | ((exp + 112) << 23) | (frac << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pattern of every 8- and 16-bit type, against its decoded value.
    #[test]
    fn classes_agree_with_values() {
        fn each<F: Float>(n: u64, known: &[(u64, f64)])
        where
            F::U: TryFrom<u64>,
        {
            for (bits, value) in known {
                let x = F::U::try_from(*bits).ok().unwrap();
                let v = F::to_f64(x);
                assert!(
                    v == *value || v.is_nan() && value.is_nan(),
                    "{bits:#x}: {v}"
                );
            }
            for bits in 0..n {
                let x = F::U::try_from(bits).ok().unwrap();
                let (c, v) = (class::<F>(x), F::to_f64(x));
                let fast = counted::<F>(x);
                assert_eq!(fast.nonfinite, c.nan || c.inf, "{bits:#x}");
                assert_eq!(fast.small, c.zero || c.subnormal, "{bits:#x}");
                assert_eq!((fast.zero, fast.extreme), (c.zero, c.extreme), "{bits:#x}");
                assert_eq!(c.nan, v.is_nan(), "{bits:#x}");
                assert_eq!(c.inf, v.is_infinite(), "{bits:#x}");
                assert_eq!(c.zero, v == 0.0, "{bits:#x}");
                let max = F::to_f64(F::MAX);
                assert_eq!(c.extreme, v.abs() == max, "{bits:#x}");
                assert!(v.is_nan() || v.abs() <= max || v.is_infinite(), "{bits:#x}");
            }
        }
        each::<F16>(
            1 << 16,
            &[
                (0x3c00, 1.0),
                (0x7bff, 65504.0),
                (0x0001, 5.960_464_477_539_063e-8),
            ],
        );
        each::<Bf16>(
            1 << 16,
            &[(0x3f80, 1.0), (0xc000, -2.0), (0x7f80, f64::INFINITY)],
        );
        each::<F8E4M3FN>(
            256,
            &[
                (0x7e, 448.0),
                (0x7f, f64::NAN),
                (0x38, 1.0),
                (0x01, 0.001_953_125),
            ],
        );
        each::<F8E4M3FNUZ>(256, &[(0x7f, 240.0), (0x80, f64::NAN), (0x40, 1.0)]);
        each::<F8E5M2>(256, &[(0x7b, 57344.0), (0x7c, f64::INFINITY), (0x3c, 1.0)]);
        each::<F8E5M2FNUZ>(256, &[(0x7f, 57344.0), (0x80, f64::NAN), (0x40, 1.0)]);
        each::<F8E8M0>(
            256,
            &[(0x7f, 1.0), (0x00, 2f64.powi(-127)), (0xfe, 2f64.powi(127))],
        );
        for (h, f) in [
            (0x3c00u16, 1.0f32),
            (0xc000, -2.0),
            (0x0001, 5.960_464_5e-8),
        ] {
            assert_eq!(f16_to_f32(h), f);
            assert_eq!(F16::to_f64(h), f64::from(f));
        }
        assert!(f16_to_f32(0x7e00).is_nan());
    }

    #[test]
    fn subnormals_are_below_the_smallest_normal() {
        assert!(class::<F16>(0x03ff).subnormal && !class::<F16>(0x0400).subnormal);
        assert!(class::<F32>(0x8000_0001).subnormal && !class::<F32>(0x8000_0000).subnormal);
        assert!(!class::<F8E8M0>(0x00).subnormal && !class::<F8E8M0>(0x00).zero);
        assert!(!class::<F8E4M3FNUZ>(0x80).zero && class::<F8E4M3FNUZ>(0x00).zero);
        assert_eq!(FloatType::F16.max(), 65504.0);
    }
}
