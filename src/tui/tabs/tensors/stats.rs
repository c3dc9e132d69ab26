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

/// Computes statistics, reporting progress on `tx`; stops early if nobody listens.
pub fn compute(data: &[u8], dtype: DType, tx: &Sender<Update>) -> Result<Stats, String> {
    let (size, decode) = dtype
        .decoder()
        .ok_or_else(|| format!("statistics are not computed for {dtype}"))?;
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
}
