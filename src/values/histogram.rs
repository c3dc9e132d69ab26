//! How a tensor's finite values spread between its smallest and largest: the small histogram
//! of the browser's statistics pane. A second pass over the elements, once [`super::stats`]
//! has found the range.

use super::decode::decoder;
use crate::inventory::DType;

/// Bins of a histogram: one column each in the browser.
pub const BINS: usize = 32;

/// Counts of finite values in [`BINS`] equal bins from `low` to `high`, the last bin
/// closed; a tensor of one value has it all in the first bin.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// The smallest finite value.
    pub low: f64,
    /// The largest finite value.
    pub high: f64,
    /// Values per bin.
    pub bins: [u64; BINS],
}

impl Histogram {
    /// The histogram of the finite elements of `data` (little-endian elements of `dtype`)
    /// between `low` and `high`, with `progress` (elements done, in all) called between
    /// chunks, which stops the pass by returning false; `None` for types whose elements are not
    /// decoded one by one (quantised blocks, strings) or when stopped.
    pub fn of(
        data: &[u8],
        dtype: DType,
        (low, high): (f64, f64),
        mut progress: impl FnMut(u64, u64) -> bool,
    ) -> Option<Histogram> {
        let (size, decode) = decoder(dtype)?;
        let total = (data.len() / size) as u64;
        let scale = if high > low {
            BINS as f64 / (high - low)
        } else {
            0.0
        };
        let mut bins = [0u64; BINS];
        let chunk = (super::CHUNK / size * size).max(size);
        let mut done = 0;
        for bytes in data.chunks(chunk) {
            for element in bytes.chunks_exact(size) {
                let v = decode(element);
                if v.is_finite() {
                    // In range by construction; the cast saturates and the bound keeps the
                    // largest value in the last bin.
                    let bin = (((v - low) * scale) as usize).min(BINS - 1);
                    bins[bin] += 1;
                }
            }
            done += (bytes.len() / size) as u64;
            if !progress(done, total) {
                return None;
            }
        }
        Some(Histogram { low, high, bins })
    }

    /// The bins as one line of block characters, the fullest bin full height.
    pub fn bars(&self) -> String {
        const LEVELS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
        let most = self.bins.iter().copied().max().unwrap_or(0).max(1);
        (self.bins.iter())
            .map(|&n| {
                // Any value at all shows at least the lowest bar.
                let level = (n * 8).div_ceil(most) as usize;
                LEVELS[level.min(8)]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn values_fall_in_equal_bins_and_the_largest_in_the_last() {
        let data = f32s(&[0.0, 0.5, 1.0, 1.0, f32::NAN, f32::INFINITY]);
        let h = Histogram::of(&data, DType::F32, (0.0, 1.0), |_, _| true).unwrap();
        assert_eq!(h.bins.iter().sum::<u64>(), 4, "NaN and Inf are not binned");
        assert_eq!((h.bins[0], h.bins[BINS / 2], h.bins[BINS - 1]), (1, 1, 2));
        assert_eq!(h.bars().chars().count(), BINS);
        assert!(h.bars().starts_with('▄') && h.bars().ends_with('█'));
    }

    #[test]
    fn one_value_fills_the_first_bin_and_blocks_have_none() {
        let h = Histogram::of(&f32s(&[2.0; 5]), DType::F32, (2.0, 2.0), |_, _| true).unwrap();
        assert_eq!(h.bins[0], 5);
        assert!(Histogram::of(&[0; 18], DType::Opaque, (0.0, 1.0), |_, _| true).is_none());
        assert!(Histogram::of(&f32s(&[1.0]), DType::F32, (0.0, 1.0), |_, _| false).is_none());
    }
}
