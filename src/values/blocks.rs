//! Quantised blocks: each block's scales, where its [`Scales`] says they are, checked as
//! llama.cpp's `ggml_validate_row_data` checks them (NaN or infinite half- and
//! single-precision scales, an E8M0 exponent of 0xff).

use super::float::{class, Bits, Class, Float, F16, F32, F8E8M0};
use super::tally::Tally;
use crate::inventory::{BlockType, Scales};

/// Bytes of a page of memory.
const PAGE: usize = 4096;

/// One scale of a block: its name, its offset in the block and its value's class.
pub struct Scale {
    /// The field's name, such as `dmin`.
    pub name: &'static str,
    /// Its byte offset in the block.
    pub offset: u16,
    /// Its value.
    pub value: f64,
    /// What the value is.
    pub class: Class,
}

/// The scales of `block`, a block of `kind`'s bytes (shorter only if the table is wrong).
pub fn scales(kind: &BlockType, block: &[u8]) -> Vec<Scale> {
    let mut all = Vec::new();
    each_scale(kind, block, |s| all.push(s));
    all
}

/// Calls `f` with each scale of `block`, allocating nothing: the per-block loop of a scan.
#[inline(always)]
fn each_scale(kind: &BlockType, block: &[u8], mut f: impl FnMut(Scale)) {
    let at = |offset: u16, n: usize| block.get(usize::from(offset)..).and_then(|b| b.get(..n));
    let f16 = |name, offset, bits: u16| Scale {
        name,
        offset,
        value: F16::to_f64(bits),
        class: class::<F16>(bits),
    };
    match kind.scales {
        Scales::None => {}
        Scales::F16(fields) => {
            for &(offset, name) in fields {
                if let Some(b) = at(offset, 2) {
                    f(f16(name, offset, u16::read(b)));
                }
            }
        }
        Scales::F32(offset) => {
            if let Some(b) = at(offset, 4) {
                let bits = u32::read(b);
                let (value, class) = (F32::to_f64(bits), class::<F32>(bits));
                f(Scale {
                    name: "d",
                    offset,
                    value,
                    class,
                });
            }
        }
        Scales::E8M0(offset) => {
            if let Some(b) = at(offset, 1) {
                let bits = u8::read(b);
                let (value, class) = (F8E8M0::to_f64(bits), class::<F8E8M0>(bits));
                f(Scale {
                    name: "e",
                    offset,
                    value,
                    class,
                });
            }
        }
        Scales::F16Nibbles(offset) => {
            if let Some(b) = at(offset, 8) {
                let word = |i: usize| b.get(i * 2..i * 2 + 2).map_or(0, u16::read);
                let bits = (word(0) >> 12)
                    | ((word(1) >> 8) & 0x00f0)
                    | ((word(2) >> 4) & 0x0f00)
                    | (word(3) & 0xf000);
                f(f16("scale", offset, bits));
            }
        }
    }
}

/// Counts the blocks of `bytes` (whole blocks of `kind`) into `t`: the first of them is block
/// `base` of the tensor.
pub fn count(kind: &BlockType, bytes: &[u8], base: u64, t: &mut Tally) {
    let size = usize::try_from(kind.bytes).unwrap_or(usize::MAX).max(1);
    t.varies = true;
    // A page's worth of blocks at a time, the page after next asked for first (see
    // `tally::floats`).
    let group = (PAGE / size).max(1) * size;
    for (g, blocks) in bytes.chunks(group).enumerate() {
        if let Some(ahead) = bytes.get((g + 2) * group..) {
            crate::source::prefetch(ahead);
        }
        let first = (g * group / size) as u64;
        count_blocks(kind, blocks, size, base + first, t);
    }
}

/// [`count`] over `bytes`, whole blocks of `size` bytes, without prefetching.
fn count_blocks(kind: &BlockType, bytes: &[u8], size: usize, base: u64, t: &mut Tally) {
    for (i, block) in bytes.chunks_exact(size).enumerate() {
        let (mut bad, mut zero, mut any) = (false, true, false);
        each_scale(kind, block, |s| {
            t.nan += u64::from(s.class.nan);
            t.inf += u64::from(s.class.inf);
            bad |= s.class.nan || s.class.inf;
            zero &= s.class.zero;
            any = true;
        });
        t.count += 1;
        t.zeros += u64::from(zero && any);
        if bad && t.first_nonfinite.is_none() {
            t.first_nonfinite = Some(base + i as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static Q4_K: BlockType = BlockType {
        name: "q4_k",
        elements: 256,
        bytes: 144,
        scales: Scales::F16(&[(0, "d"), (2, "dmin")]),
    };

    #[test]
    fn a_nan_min_and_zero_blocks_are_counted() {
        let mut bytes = vec![0u8; 144 * 4];
        bytes[0..2].copy_from_slice(&0x3c00u16.to_le_bytes()); // block 0: d 1.0
        bytes[144 * 2 + 2..144 * 2 + 4].copy_from_slice(&0x7e00u16.to_le_bytes()); // block 2: dmin NaN
        let mut t = Tally::default();
        count(&Q4_K, &bytes, 7, &mut t);
        assert_eq!((t.count, t.nan, t.inf, t.zeros), (4, 1, 0, 2));
        assert_eq!(t.first_nonfinite, Some(9));
        let s = scales(&Q4_K, &bytes[144 * 2..144 * 3]);
        assert_eq!((s[1].name, s[1].offset, s[1].class.nan), ("dmin", 2, true));
    }

    #[test]
    fn the_packed_iq1_m_scale_is_put_together_as_llama_cpp_does() {
        static IQ1_M: BlockType = BlockType {
            name: "iq1_m",
            elements: 256,
            bytes: 56,
            scales: Scales::F16Nibbles(48),
        };
        // 0x7c00 (infinity) spread over the top nibbles: 0x0, 0x0, 0xc, 0x7, lowest first.
        let mut block = vec![0u8; 56];
        for (i, nibble) in [0x0u16, 0x0, 0xc, 0x7].into_iter().enumerate() {
            block[48 + 2 * i..50 + 2 * i].copy_from_slice(&(nibble << 12 | 0x0123).to_le_bytes());
        }
        let s = scales(&IQ1_M, &block);
        assert!(s[0].class.inf, "{}", s[0].value);
    }
}
