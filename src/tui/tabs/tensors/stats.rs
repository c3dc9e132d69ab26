//! Value statistics of a tensor and the histogram of its values, computed on a background
//! thread with progress.

use crate::inventory::DType;
use crate::values::Histogram;
pub use crate::values::Stats;
use bytes::Bytes;
use std::sync::mpsc::{channel, Receiver};

/// What the statistics pane shows of a tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// The figures.
    pub stats: Stats,
    /// How the finite values spread, where elements are decoded one by one.
    pub histogram: Option<Box<Histogram>>,
}

/// Messages from the worker.
pub enum Update {
    /// How far the work is: the statistics' pass, then the histogram's, each over every
    /// element.
    Progress {
        /// Elements read, over both passes.
        done: u64,
        /// Elements to read in both passes.
        total: u64,
    },
    /// The result.
    Done(Result<Figures, String>),
}

/// Starts computing statistics of `data` (little-endian elements of `dtype`) and returns the
/// channel its updates arrive on. Dropping the receiver stops the worker.
pub fn spawn(data: Bytes, dtype: DType) -> Receiver<Update> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let send = |done, total| tx.send(Update::Progress { done, total }).is_ok();
        let result = crate::values::stats(&data, dtype, |done, n| send(done, 2 * n));
        let figures = result.map(|stats| {
            let range = stats.min.zip(stats.max);
            let histogram = range.and_then(|range| {
                let second = |done, n| send(n + done, 2 * n);
                Histogram::of(&data, dtype, range, second).map(Box::new)
            });
            Figures { stats, histogram }
        });
        let _ = tx.send(Update::Done(figures));
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_reports_progress_then_the_figures() {
        let bytes: Vec<u8> = [1.0f32, 0.0, f32::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let rx = spawn(Bytes::from(bytes), DType::F32);
        let updates: Vec<Update> = rx.iter().collect();
        assert!(matches!(updates[0], Update::Progress { done: 3, total: 6 }));
        assert!(matches!(updates[1], Update::Progress { done: 6, total: 6 }));
        let Update::Done(Ok(f)) = &updates[2] else {
            panic!("no figures")
        };
        let s = &f.stats;
        assert_eq!((s.count, s.zeros, s.nan, s.max), (3, 1, 1, Some(1.0)));
        let bins = f.histogram.as_ref().map(|h| h.bins);
        assert_eq!(bins.map(|b| (b[0], b[31])), Some((1, 1)), "0 and 1, not NaN");
    }
}
