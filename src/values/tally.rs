//! What a pass over a tensor's values finds, counted part by part: the parts of one tensor,
//! counted on different threads, add up with [`Tally::merge`] in any order.
//!
//! The counting loop reads each element as an unsigned integer and tests its bits
//! ([`counted`]: four comparisons), adding each test's outcome into a 16-bit counter per block
//! of [`BLOCK`] elements: no branch, no float, so the compiler vectorises it (16-bit lanes for
//! f16 and bf16). Only a block whose counts show something is read again, to tell NaN from
//! infinity and to find where.

use super::float::{class, counted, Bits, Class, Float};
use super::moments::Moments;

/// Elements counted in 16-bit counters before they are added to the totals.
const BLOCK: usize = 1 << 15;

/// Bytes of a page of memory.
const PAGE: usize = 4096;

/// How far ahead of the page being counted the next one is asked for.
const PREFETCH: usize = 2 * PAGE;

/// What a pass over some elements (or quantised blocks) of one tensor found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Values read: elements, the parts of complex ones, or blocks of a block type.
    pub count: u64,
    /// NaN values (blocks: NaN scales).
    pub nan: u64,
    /// Infinite values (blocks: infinite scales).
    pub inf: u64,
    /// Zeros (blocks: blocks whose every scale is zero).
    pub zeros: u64,
    /// Subnormal values.
    pub subnormal: u64,
    /// Values of the largest finite magnitude of their type.
    pub extreme: u64,
    /// Whether some value's bits differ from the first's (always, for blocks).
    pub varies: bool,
    /// The first NaN or infinite value (blocks: the first block with a NaN or infinite
    /// scale), by index.
    pub first_nonfinite: Option<u64>,
    /// The first subnormal value, by index.
    pub first_subnormal: Option<u64>,
    /// The first value of the largest magnitude, by index.
    pub first_extreme: Option<u64>,
    /// One past the last byte that is not zero, counted from the tensor's first byte; 0 when
    /// every byte is zero.
    pub nonzero_end: u64,
    /// Figures over the finite values, when asked for.
    pub moments: Option<Moments>,
}

impl Tally {
    /// Adds `other`, a tally of other values of the same tensor.
    pub fn merge(&mut self, other: &Tally) {
        self.count += other.count;
        self.nan += other.nan;
        self.inf += other.inf;
        self.zeros += other.zeros;
        self.subnormal += other.subnormal;
        self.extreme += other.extreme;
        self.varies |= other.varies;
        let first = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.first_nonfinite = first(self.first_nonfinite, other.first_nonfinite);
        self.first_subnormal = first(self.first_subnormal, other.first_subnormal);
        self.first_extreme = first(self.first_extreme, other.first_extreme);
        self.nonzero_end = self.nonzero_end.max(other.nonzero_end);
        self.moments = match (self.moments, other.moments) {
            (Some(mut a), Some(b)) => {
                a.merge(&b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
    }

    /// NaN and infinite values together.
    pub fn nonfinite(&self) -> u64 {
        self.nan + self.inf
    }

    /// Notes where the last non-zero byte of `bytes` is, `bytes` starting `start` bytes into
    /// the tensor.
    pub fn last_nonzero(&mut self, bytes: &[u8], start: u64) {
        // Words of 64 bytes, or'ed together: vectorised where a tensor ends in zeros.
        let words = bytes.rchunks(64);
        let mut end = bytes.len();
        for word in words {
            if word.iter().fold(0, |a, &b| a | b) != 0 {
                let last = word.iter().rposition(|&b| b != 0).unwrap_or(0);
                self.nonzero_end = self
                    .nonzero_end
                    .max(start + (end - word.len() + last + 1) as u64);
                return;
            }
            end -= word.len();
        }
    }
}

/// Counts the values of `bytes` (whole values of `F`) into `t`: the first of them is value
/// `base` of the tensor, and `first` is the tensor's first value, which every value is
/// compared with. On a processor with AVX2 the loop runs as compiled for it, with vectors
/// twice as wide.
#[allow(unsafe_code)] // The call of the AVX2 build, after the processor says it has AVX2.
pub fn floats<F: Float>(bytes: &[u8], base: u64, first: F::U, t: &mut Tally) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: a function compiled for AVX2 may only run where the processor has it,
        // which `is_x86_feature_detected!` has just checked; it is otherwise `floats_in`.
        return unsafe { floats_avx2::<F>(bytes, base, first, t) };
    }
    floats_in::<F>(bytes, base, first, t)
}

/// [`floats_in`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn floats_avx2<F: Float>(bytes: &[u8], base: u64, first: F::U, t: &mut Tally) {
    floats_in::<F>(bytes, base, first, t)
}

/// [`floats`], for whatever processor it is compiled for.
#[inline(always)]
fn floats_in<F: Float>(bytes: &[u8], base: u64, first: F::U, t: &mut Tally) {
    let size = F::U::BYTES;
    for (b, block) in bytes.chunks(BLOCK * size).enumerate() {
        let start = b * BLOCK * size;
        let (mut nonfinite, mut small, mut zero, mut extreme) = (0u16, 0u16, 0u16, 0u16);
        let mut spread = F::U::default();
        for (p, page) in block.chunks(PAGE).enumerate() {
            // The processor's prefetcher stops at the end of a page, and the next page of a
            // file's map is anywhere in memory: ask for it before it is needed.
            if let Some(ahead) = bytes.get(start + p * PAGE + PREFETCH..) {
                crate::source::prefetch(ahead);
            }
            for e in page.chunks_exact(size) {
                let x = F::U::read(e);
                let c = counted::<F>(x);
                nonfinite += u16::from(c.nonfinite);
                small += u16::from(c.small);
                zero += u16::from(c.zero);
                extreme += u16::from(c.extreme);
                spread = spread | (x ^ first);
            }
        }
        let at = base + (b * BLOCK) as u64;
        t.count += (block.len() / size) as u64;
        t.zeros += u64::from(zero);
        t.subnormal += u64::from(small - zero);
        t.extreme += u64::from(extreme);
        t.varies |= spread != F::U::default();
        let values = || block.chunks_exact(size).map(|e| class::<F>(F::U::read(e)));
        let first = |test: fn(Class) -> bool| values().position(test).map(|i| at + i as u64);
        if nonfinite > 0 {
            let nan = values().filter(|c| c.nan).count() as u64;
            t.nan += nan;
            t.inf += u64::from(nonfinite) - nan;
            if t.first_nonfinite.is_none() {
                t.first_nonfinite = first(|c| c.nan || c.inf);
            }
        }
        if small > zero && t.first_subnormal.is_none() {
            t.first_subnormal = first(|c| c.subnormal);
        }
        if extreme > 0 && t.first_extreme.is_none() {
            t.first_extreme = first(|c| c.extreme);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::float::{Bf16, F16, F32};

    fn le16(v: &[u16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn counts_and_first_places_of_half_precision_values() {
        // 1.0, NaN, -inf, a subnormal, 65504, 0, -0
        let bytes = le16(&[0x3c00, 0x7e00, 0xfc00, 0x0001, 0x7bff, 0x0000, 0x8000]);
        let mut t = Tally::default();
        floats::<F16>(&bytes, 10, 0x3c00, &mut t);
        assert_eq!(
            (t.count, t.nan, t.inf, t.zeros, t.subnormal, t.extreme),
            (7, 1, 1, 2, 1, 1)
        );
        assert_eq!(
            (t.first_nonfinite, t.first_subnormal, t.first_extreme),
            (Some(11), Some(13), Some(14))
        );
        assert!(t.varies);
    }

    #[test]
    fn a_nan_past_the_first_block_is_found_where_it_is() {
        let mut v = vec![0x3f80u16; BLOCK * 2 + 5];
        v[BLOCK + 3] = 0xffc1;
        let bytes = le16(&v);
        let mut whole = Tally::default();
        floats::<Bf16>(&bytes, 0, 0x3f80, &mut whole);
        assert_eq!(
            (whole.nan, whole.first_nonfinite),
            (1, Some(BLOCK as u64 + 3))
        );
        // Counted in two parts, in either order, the tally is the same.
        let (a, b) = bytes.split_at(BLOCK * 2 + 2);
        let (mut x, mut y) = (Tally::default(), Tally::default());
        floats::<Bf16>(a, 0, 0x3f80, &mut x);
        floats::<Bf16>(b, (a.len() / 2) as u64, 0x3f80, &mut y);
        x.last_nonzero(a, 0);
        y.last_nonzero(b, a.len() as u64);
        whole.last_nonzero(&bytes, 0);
        let mut yx = y.clone();
        yx.merge(&x);
        x.merge(&y);
        assert_eq!(x, whole);
        assert_eq!(yx, whole);
    }

    #[test]
    fn a_constant_tensor_does_not_vary_and_zero_tails_are_measured() {
        let mut t = Tally::default();
        let bytes: Vec<u8> = [2.5f32; 40].iter().flat_map(|x| x.to_le_bytes()).collect();
        floats::<F32>(&bytes, 0, 2.5f32.to_bits(), &mut t);
        assert!(!t.varies);
        let mut tail = vec![1u8; 10];
        tail.extend([0u8; 200]);
        t.last_nonzero(&tail, 1000);
        assert_eq!(t.nonzero_end, 1010);
        let mut zeros = Tally::default();
        zeros.last_nonzero(&[0; 300], 0);
        assert_eq!(zeros.nonzero_end, 0);
    }

    /// The AVX2 build (where the processor has it) counts what the portable one does, and
    /// both what a test of one element at a time finds.
    #[test]
    fn every_build_of_the_loop_counts_the_same() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let bytes: Vec<u8> = (0..3 * BLOCK + 77)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u8
            })
            .collect();
        fn both<F: Float>(bytes: &[u8]) {
            let first = F::U::read(bytes);
            let (mut a, mut b) = (Tally::default(), Tally::default());
            let whole = &bytes[..bytes.len() / F::U::BYTES * F::U::BYTES];
            floats::<F>(whole, 0, first, &mut a);
            floats_in::<F>(whole, 0, first, &mut b);
            assert_eq!(a, b);
            assert!(a.nan + a.inf > 0 && a.subnormal > 0, "{a:?}");
            // And what one element at a time finds.
            let classes: Vec<Class> = whole
                .chunks_exact(F::U::BYTES)
                .map(|e| class::<F>(F::U::read(e)))
                .collect();
            let count = |f: fn(&Class) -> bool| classes.iter().filter(|c| f(c)).count() as u64;
            let expected = (
                count(|c| c.nan),
                count(|c| c.inf),
                count(|c| c.zero),
                count(|c| c.subnormal),
                count(|c| c.extreme),
            );
            assert_eq!((a.nan, a.inf, a.zeros, a.subnormal, a.extreme), expected);
        }
        both::<crate::values::float::F16>(&bytes);
        both::<crate::values::float::Bf16>(&bytes);
        both::<crate::values::float::F8E4M3FN>(&bytes);
        both::<crate::values::float::F8E5M2FNUZ>(&bytes);
    }
}
