//! Value statistics of a tensor, computed on a background thread with progress.

use crate::inventory::DType;
use bytes::Bytes;
use std::sync::mpsc::{channel, Receiver, Sender};

/// Elements per progress report.
const CHUNK: usize = 1 << 20;

/// Summary statistics over a tensor's elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Elements read.
    pub count: u64,
    /// Figures over the finite values, if there are any.
    pub finite: Option<Finite>,
    /// Elements equal to zero.
    pub zeros: u64,
    /// NaN elements.
    pub nans: u64,
    /// Infinite elements.
    pub infs: u64,
}

/// Figures over a tensor's finite values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finite {
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// Population standard deviation.
    pub std: f64,
}

/// Messages from the worker.
pub enum Update {
    /// Elements done so far.
    Progress {
        /// Elements read.
        done: u64,
        /// Elements in all.
        total: u64,
    },
    /// The result.
    Done(Result<Stats, String>),
}

/// Starts computing statistics of `data` (little-endian elements of `dtype`) and returns the
/// channel its updates arrive on. Dropping the receiver stops the worker.
pub fn spawn(data: Bytes, dtype: DType) -> Receiver<Update> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let result = compute(&data, dtype, &tx);
        let _ = tx.send(Update::Done(result));
    });
    rx
}

/// Reads one element, given exactly its bytes, as f64.
type Decode = fn(&[u8]) -> f64;

/// The element size of `dtype` and how to decode one element.
fn decoder(dtype: DType) -> Option<(usize, Decode)> {
    fn le<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&b[..N]);
        a
    }
    Some(match dtype {
        DType::F32 => (4, |b| f64::from(f32::from_le_bytes(le(b)))),
        DType::F64 => (8, |b| f64::from_le_bytes(le(b))),
        DType::F16 => (2, |b| f64::from(f16_to_f32(u16::from_le_bytes(le(b))))),
        DType::BF16 => (2, |b| {
            f64::from(f32::from_bits(u32::from(u16::from_le_bytes(le(b))) << 16))
        }),
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

/// IEEE half precision to single precision.
fn f16_to_f32(h: u16) -> f32 {
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

/// Computes statistics, reporting progress on `tx`; stops early if nobody listens.
pub fn compute(data: &[u8], dtype: DType, tx: &Sender<Update>) -> Result<Stats, String> {
    let (size, decode) =
        decoder(dtype).ok_or_else(|| format!("statistics are not computed for {dtype}"))?;
    let total = (data.len() / size) as u64;
    let (mut n, mut mean, mut m2) = (0u64, 0.0f64, 0.0f64);
    let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut s = Stats {
        count: 0,
        finite: None,
        zeros: 0,
        nans: 0,
        infs: 0,
    };
    for chunk in data.chunks(CHUNK * size) {
        for element in chunk.chunks_exact(size) {
            let v = decode(element);
            s.count += 1;
            if v.is_nan() {
                s.nans += 1;
                continue;
            }
            if v.is_infinite() {
                s.infs += 1;
                continue;
            }
            if v == 0.0 {
                s.zeros += 1;
            }
            min = min.min(v);
            max = max.max(v);
            n += 1;
            let delta = v - mean;
            mean += delta / n as f64;
            m2 += delta * (v - mean);
        }
        if tx
            .send(Update::Progress {
                done: s.count,
                total,
            })
            .is_err()
        {
            return Err("cancelled".into());
        }
    }
    s.finite = (n > 0).then(|| Finite {
        min,
        max,
        mean,
        std: (m2 / n as f64).sqrt(),
    });
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_a_small_f32_tensor() {
        let values = [1.0f32, 0.0, -2.0, f32::NAN, f32::INFINITY, 3.0];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let (tx, _rx) = channel();
        let s = compute(&bytes, DType::F32, &tx).unwrap();
        assert_eq!((s.count, s.zeros, s.nans, s.infs), (6, 1, 1, 1));
        let f = s.finite.unwrap();
        assert_eq!((f.min, f.max, f.mean), (-2.0, 3.0, 0.5));
        // Finite values 1, 0, -2, 3: mean 0.5, squared deviations sum to 13, population std sqrt(13 / 4).
        assert!((f.std - 3.25f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn all_nan_data_has_no_finite_figures() {
        let bytes: Vec<u8> = [f32::NAN; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let (tx, _rx) = channel();
        let s = compute(&bytes, DType::F32, &tx).unwrap();
        assert_eq!((s.count, s.nans, s.finite), (3, 3, None));
    }

    #[test]
    fn half_precision_decodes_exactly() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert!(f16_to_f32(0x7e00).is_nan());
    }
}
