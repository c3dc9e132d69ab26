//! Figures per tensor (how many values, zeros, NaN, infinities, subnormals; smallest, largest,
//! mean and standard deviation of the finite ones): what `dump --values` writes and the
//! browser shows.

use super::scan::{Kind, Read};
use super::tally::Tally;
use crate::inventory::DType;
use serde::Serialize;

/// What a tensor's figures count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Its elements.
    Elements,
    /// The real and imaginary parts of its complex elements.
    Parts,
    /// Its quantised blocks, whose scales are read (NaN, infinite: scales; zeros: blocks
    /// whose every scale is zero), not their elements.
    Blocks,
}

/// The figures of a tensor's values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stats {
    /// What is counted.
    pub unit: Unit,
    /// How many were read.
    pub count: u64,
    /// Zeros.
    pub zeros: u64,
    /// NaN values.
    pub nan: u64,
    /// Infinite values.
    pub inf: u64,
    /// Subnormal values.
    pub subnormal: u64,
    /// The smallest finite value, if there is one.
    pub min: Option<f64>,
    /// The largest finite value.
    pub max: Option<f64>,
    /// The mean of the finite values.
    pub mean: Option<f64>,
    /// Their population standard deviation.
    pub std: Option<f64>,
}

impl Stats {
    /// The figures of what `read` holds.
    pub fn of(read: &Read) -> Stats {
        Stats::from(read.kind, &read.tally)
    }

    fn from(kind: Kind, t: &Tally) -> Stats {
        let unit = match kind {
            Kind::Float(_, 2) => Unit::Parts,
            Kind::Float(..) | Kind::Other(..) => Unit::Elements,
            Kind::Blocks(_) => Unit::Blocks,
        };
        let m = t.moments;
        Stats {
            unit,
            count: t.count,
            zeros: t.zeros,
            nan: t.nan,
            inf: t.inf,
            subnormal: t.subnormal,
            min: m.map(|m| m.min),
            max: m.map(|m| m.max),
            mean: m.map(|m| m.mean),
            std: m.map(|m| m.std()),
        }
    }
}

/// The figures of `data`, whole little-endian values of `dtype`, counted a chunk at a time:
/// after each, `progress` is told the values done and in all, and stops the count by
/// returning false.
pub fn stats(
    data: &[u8],
    dtype: DType,
    mut progress: impl FnMut(u64, u64) -> bool,
) -> Result<Stats, String> {
    let kind = Kind::of(dtype, true).ok_or_else(|| format!("{dtype} values are not read"))?;
    let unit = kind.unit();
    let total = (data.len() / unit) as u64;
    let first = kind.first(data);
    let mut tally = Tally::default();
    let chunk = (super::CHUNK / unit * unit).max(unit);
    for (i, bytes) in data.chunks(chunk).enumerate() {
        let mut part = Tally::default();
        kind.count(bytes, (i * chunk) as u64, first, true, &mut part);
        tally.merge(&part);
        if !progress(tally.count, total) {
            return Err("cancelled".into());
        }
    }
    Ok(Stats::from(kind, &tally))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_of_a_small_f32_tensor() {
        let values = [1.0f32, 0.0, -2.0, f32::NAN, f32::INFINITY, 3.0];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let s = stats(&bytes, DType::F32, |_, _| true).unwrap();
        assert_eq!((s.count, s.zeros, s.nan, s.inf), (6, 1, 1, 1));
        assert_eq!((s.min, s.max, s.mean), (Some(-2.0), Some(3.0), Some(0.5)));
        assert!((s.std.unwrap() - 3.25f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn integers_have_figures_and_strings_none() {
        let bytes: Vec<u8> = [3i16, -1, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let s = stats(&bytes, DType::I16, |_, _| true).unwrap();
        assert_eq!(
            (s.count, s.zeros, s.min, s.max),
            (3, 1, Some(-1.0), Some(3.0))
        );
        assert!(stats(&bytes, DType::String, |_, _| true).is_err());
        assert!(stats(&bytes, DType::I16, |_, _| false).is_err());
    }
}
