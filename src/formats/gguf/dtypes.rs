//! GGML tensor types: id, name, block size and bytes per block, as in ggml 0.25.3's
//! `type_traits` (ggml.c), and the ids ggml removed. `tests/fixtures/gguf/ggml_types.tsv`
//! holds ggml's table beside gguf-py's (`GGML_QUANT_SIZES`, gguf 0.19.0), which sizes a Q8_1
//! block at 40 bytes where ggml's is 36 and does not know Q2_0; ggml is the reference.
//! Each block type's scales are where `ggml-common.h` lays them out, and are those
//! `ggml_validate_row_data` (ggml-quants.c) checks: the half-precision `d` (and `m` or `dmin`)
//! of most types, Q8_K's single-precision `d`, MXFP4's exponent `e`, IQ1_M's scale packed in
//! the top nibbles of its sub-block scales, and nothing of NVFP4's, whose every byte is valid.
//! Q8_1 (`d`, `s`), a type ggml computes with and never stores, that function refuses
//! whatever its content.

use crate::inventory::{BlockType, DType, Scales};

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

/// A block type of ggml's, as a constant the type table refers to.
macro_rules! blocks {
    ($name:literal, $elements:expr, $bytes:expr, $scales:expr) => {
        Ggml::Known(DType::Blocks(
            const {
                &BlockType {
                    name: $name,
                    elements: $elements,
                    bytes: $bytes,
                    scales: $scales,
                }
            },
        ))
    };
}

/// A half-precision scale `d` at the start of the block.
const D: Scales = Scales::F16(&[(0, "d")]);
/// Half-precision `d` and `m` at the start of the block.
const DM: Scales = Scales::F16(&[(0, "d"), (2, "m")]);
/// Half-precision `d` and `dmin` at the start of the block (K-quants).
const D_DMIN: Scales = Scales::F16(&[(0, "d"), (2, "dmin")]);

/// A half-precision scale `d` after the block's quants, at this byte offset.
macro_rules! d_at {
    ($at:literal) => {
        Scales::F16(&[($at, "d")])
    };
}

/// The type with GGML id `id`.
pub fn ggml(id: u32) -> Ggml {
    use DType::*;
    match id {
        0 => Ggml::Known(F32),
        1 => Ggml::Known(F16),
        2 => blocks!("q4_0", 32, 2 + 16, D),
        3 => blocks!("q4_1", 32, 2 + 2 + 16, DM),
        4 => Ggml::Removed("Q4_2"),
        5 => Ggml::Removed("Q4_3"),
        6 => blocks!("q5_0", 32, 2 + 4 + 16, D),
        7 => blocks!("q5_1", 32, 2 + 2 + 4 + 16, DM),
        8 => blocks!("q8_0", 32, 2 + 32, D),
        9 => blocks!("q8_1", 32, 2 + 2 + 32, Scales::F16(&[(0, "d"), (2, "s")])),
        // The scales of K-quants and ternary types follow their quants: Q2_K's after 16 bytes
        // of sub-block scales and 64 of quants, Q3_K's after 32 + 64 + 12, Q6_K's after
        // 128 + 64 + 16, TQ1_0's after 48 + 4, TQ2_0's after 64; IQ1_M's after 32 + 16.
        10 => blocks!(
            "q2_k",
            QK_K,
            2 + 2 + QK_K / 16 + QK_K / 4,
            Scales::F16(&[(80, "d"), (82, "dmin")])
        ),
        11 => blocks!("q3_k", QK_K, 2 + QK_K / 4 + QK_K / 8 + 12, d_at!(108)),
        12 => blocks!("q4_k", QK_K, 2 + 2 + QK_K / 2 + 12, D_DMIN),
        13 => blocks!("q5_k", QK_K, 2 + 2 + QK_K / 2 + QK_K / 8 + 12, D_DMIN),
        14 => blocks!(
            "q6_k",
            QK_K,
            2 + QK_K / 2 + QK_K / 4 + QK_K / 16,
            d_at!(208)
        ),
        15 => blocks!("q8_k", QK_K, 4 + QK_K + QK_K / 8, Scales::F32(0)),
        16 => blocks!("iq2_xxs", QK_K, 2 + QK_K / 4, D),
        17 => blocks!("iq2_xs", QK_K, 2 + QK_K / 4 + QK_K / 32, D),
        18 => blocks!("iq3_xxs", QK_K, 2 + QK_K / 4 + QK_K / 8, D),
        19 => blocks!("iq1_s", QK_K, 2 + QK_K / 8 + QK_K / 16, D),
        20 => blocks!("iq4_nl", 32, 2 + 16, D),
        21 => blocks!("iq3_s", QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4, D),
        22 => blocks!("iq2_s", QK_K, 2 + QK_K / 4 + QK_K / 16, D),
        23 => blocks!("iq4_xs", QK_K, 2 + 2 + QK_K / 2 + QK_K / 64, D),
        24 => Ggml::Known(I8),
        25 => Ggml::Known(I16),
        26 => Ggml::Known(I32),
        27 => Ggml::Known(I64),
        28 => Ggml::Known(F64),
        29 => blocks!(
            "iq1_m",
            QK_K,
            QK_K / 8 + QK_K / 16 + QK_K / 32,
            Scales::F16Nibbles(48)
        ),
        30 => Ggml::Known(BF16),
        31 => Ggml::Removed("Q4_0_4_4"),
        32 => Ggml::Removed("Q4_0_4_8"),
        33 => Ggml::Removed("Q4_0_8_8"),
        34 => blocks!("tq1_0", QK_K, 2 + 4 * 13, d_at!(52)),
        35 => blocks!("tq2_0", QK_K, 2 + 64, d_at!(64)),
        36 => Ggml::Removed("IQ4_NL_4_4"),
        37 => Ggml::Removed("IQ4_NL_4_8"),
        38 => Ggml::Removed("IQ4_NL_8_8"),
        39 => blocks!("mxfp4", 32, 1 + 16, Scales::E8M0(0)),
        40 => blocks!("nvfp4", 64, 4 + 32, Scales::None),
        41 => blocks!("q1_0", 128, 2 + 16, D),
        42 => blocks!("q2_0", 64, 2 + 16, D),
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

    /// The table agrees with ggml's own, as `gguf_llama_verdict --types` printed it.
    #[test]
    fn the_table_is_ggmls() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/gguf/ggml_types.tsv"
        );
        let table = std::fs::read_to_string(path).unwrap();
        let rows: Vec<Vec<&str>> = (table.lines().skip(1))
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('\t').collect())
            .collect();
        assert!(rows.len() > 40);
        for row in &rows {
            let id: u32 = row[0].parse().unwrap();
            let (block, bytes): (u64, u64) = (row[2].parse().unwrap(), row[3].parse().unwrap());
            match ggml(id) {
                Ggml::Known(DType::Blocks(b)) => {
                    assert_eq!(
                        (b.name, b.elements, b.bytes),
                        (&*row[1].to_lowercase(), block, bytes)
                    )
                }
                Ggml::Known(d) => {
                    assert_eq!((d.name(), 1, d.bits().unwrap() / 8), (row[1], block, bytes))
                }
                Ggml::Removed(_) => assert_eq!((block, bytes), (0, 0), "{id}"),
                Ggml::Unknown => panic!("{id} is in ggml's table"),
            }
        }
        assert_eq!(ggml(rows.len() as u32), Ggml::Unknown);
    }
}
