//! GGML tensor types: id, name, block size and bytes per block, as in ggml's `type_traits`
//! (ggml.c) and gguf-py's `GGML_QUANT_SIZES` (gguf 0.19.0), and the ids ggml removed.

use crate::inventory::{BlockType, DType};

/// Elements in a K-quant super-block (`QK_K`).
const QK_K: u64 = 256;

/// What a GGML type id means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ggml {
    /// A type ggml reads, as an element type.
    Known(DType),
    /// An id ggml once had and removed; loaders refuse it.
    Removed(&'static str),
    /// An id ggml never had.
    Unknown,
}

const fn blocks(name: &'static str, elements: u64, bytes: u64) -> Ggml {
    Ggml::Known(DType::Blocks(BlockType {
        name,
        elements,
        bytes,
    }))
}

/// The type with GGML id `id`.
pub fn ggml(id: u32) -> Ggml {
    use DType::*;
    match id {
        0 => Ggml::Known(F32),
        1 => Ggml::Known(F16),
        2 => blocks("q4_0", 32, 2 + 16),
        3 => blocks("q4_1", 32, 2 + 2 + 16),
        4 => Ggml::Removed("Q4_2"),
        5 => Ggml::Removed("Q4_3"),
        6 => blocks("q5_0", 32, 2 + 4 + 16),
        7 => blocks("q5_1", 32, 2 + 2 + 4 + 16),
        8 => blocks("q8_0", 32, 2 + 32),
        9 => blocks("q8_1", 32, 4 + 4 + 32),
        10 => blocks("q2_k", QK_K, 2 + 2 + QK_K / 16 + QK_K / 4),
        11 => blocks("q3_k", QK_K, 2 + QK_K / 4 + QK_K / 8 + 12),
        12 => blocks("q4_k", QK_K, 2 + 2 + QK_K / 2 + 12),
        13 => blocks("q5_k", QK_K, 2 + 2 + QK_K / 2 + QK_K / 8 + 12),
        14 => blocks("q6_k", QK_K, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16),
        15 => blocks("q8_k", QK_K, 4 + QK_K + QK_K / 8),
        16 => blocks("iq2_xxs", QK_K, 2 + QK_K / 4),
        17 => blocks("iq2_xs", QK_K, 2 + QK_K / 4 + QK_K / 32),
        18 => blocks("iq3_xxs", QK_K, 2 + QK_K / 4 + QK_K / 8),
        19 => blocks("iq1_s", QK_K, 2 + QK_K / 8 + QK_K / 16),
        20 => blocks("iq4_nl", 32, 2 + 16),
        21 => blocks("iq3_s", QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4),
        22 => blocks("iq2_s", QK_K, 2 + QK_K / 4 + QK_K / 16),
        23 => blocks("iq4_xs", QK_K, 2 + 2 + QK_K / 2 + QK_K / 64),
        24 => Ggml::Known(I8),
        25 => Ggml::Known(I16),
        26 => Ggml::Known(I32),
        27 => Ggml::Known(I64),
        28 => Ggml::Known(F64),
        29 => blocks("iq1_m", QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32),
        30 => Ggml::Known(BF16),
        31 => Ggml::Removed("Q4_0_4_4"),
        32 => Ggml::Removed("Q4_0_4_8"),
        33 => Ggml::Removed("Q4_0_8_8"),
        34 => blocks("tq1_0", QK_K, 2 + 4 * 13),
        35 => blocks("tq2_0", QK_K, 2 + 64),
        36 => Ggml::Removed("IQ4_NL_4_4"),
        37 => Ggml::Removed("IQ4_NL_4_8"),
        38 => Ggml::Removed("IQ4_NL_8_8"),
        39 => blocks("mxfp4", 32, 1 + 16),
        40 => blocks("nvfp4", 64, 4 + 32),
        41 => blocks("q1_0", 128, 2 + 16),
        _ => Ggml::Unknown,
    }
}

/// Elements per block of `dtype` (1 for plain element types).
pub fn block_elements(dtype: DType) -> u64 {
    match dtype {
        DType::Blocks(block) => block.elements,
        _ => 1,
    }
}

/// Whether `dtype` is one of the quantized block types.
pub fn is_quantized(dtype: DType) -> bool {
    matches!(dtype, DType::Blocks(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_ggml() {
        let size = |id| match ggml(id) {
            Ggml::Known(DType::Blocks(b)) => (b.elements, b.bytes),
            Ggml::Known(d) => (1, d.bits().unwrap() / 8),
            other => panic!("{id}: {other:?}"),
        };
        // From the reference table (GGML_QUANT_SIZES).
        assert_eq!(size(2), (32, 18));
        assert_eq!(size(10), (256, 84));
        assert_eq!(size(11), (256, 110));
        assert_eq!(size(12), (256, 144));
        assert_eq!(size(13), (256, 176));
        assert_eq!(size(14), (256, 210));
        assert_eq!(size(15), (256, 292));
        assert_eq!(size(29), (256, 56));
        assert_eq!(size(30), (1, 2));
        assert_eq!(size(39), (32, 17));
        assert_eq!(ggml(4), Ggml::Removed("Q4_2"));
        assert_eq!(ggml(42), Ggml::Unknown);
    }
}
