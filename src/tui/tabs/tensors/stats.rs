//! Value statistics of a tensor, computed on a background thread with progress.

use crate::inventory::DType;
pub use crate::values::Stats;
use bytes::Bytes;
use std::sync::mpsc::{channel, Receiver};

/// Messages from the worker.
pub enum Update {
    /// Values done so far.
    Progress {
        /// Values read.
        done: u64,
        /// Values in all.
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
        let progress = |done, total| tx.send(Update::Progress { done, total }).is_ok();
        let result = crate::values::stats(&data, dtype, progress);
        let _ = tx.send(Update::Done(result));
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
        assert!(matches!(updates[0], Update::Progress { done: 3, total: 3 }));
        let Update::Done(Ok(s)) = &updates[1] else {
            panic!("no figures")
        };
        assert_eq!((s.count, s.zeros, s.nan, s.max), (3, 1, 1, Some(1.0)));
    }
}
