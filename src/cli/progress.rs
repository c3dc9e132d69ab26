//! A one-line progress bar on standard error, shown only on a terminal.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Redraws at most this often.
const INTERVAL: Duration = Duration::from_millis(100);

/// Progress of a long byte-counting job.
pub struct Progress {
    enabled: bool,
    state: Mutex<(Instant, bool)>,
    started: Instant,
}

impl Progress {
    /// A bar that draws only when standard error is a terminal.
    pub fn new() -> Self {
        let now = Instant::now();
        Progress {
            enabled: std::io::stderr().is_terminal(),
            state: Mutex::new((now, false)),
            started: now,
        }
    }

    /// Shows `done` of `total` bytes, with throughput.
    pub fn show(&self, done: u64, total: u64) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if !self.enabled || state.0.elapsed() < INTERVAL {
            return;
        }
        *state = (Instant::now(), true);
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let width = 30u64;
        let filled = done.saturating_mul(width) / total.max(1);
        let bar: String = (0..width)
            .map(|i| if i < filled { '#' } else { '-' })
            .collect();
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        eprint!(
            "\rhashing [{bar}] {:.0}/{:.0} MiB  {:.0} MiB/s ",
            mib(done),
            mib(total),
            mib(done) / secs
        );
        let _ = std::io::stderr().flush();
    }

    /// Clears the bar if one was drawn.
    pub fn finish(&self) {
        if self.state.lock().is_ok_and(|s| s.1) {
            eprint!("\r\x1b[2K");
        }
    }
}
