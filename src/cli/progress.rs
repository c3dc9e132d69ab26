//! The progress bars of hashing and reading values (bytes) and of checking remote files
//! (files), on standard error, drawn by indicatif: only on a terminal, fitted to its width, at
//! most 20 times a second, and cleared when done.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The bar's line after what it does; `wide_bar` takes the width the rest leaves.
const TEMPLATE: &str = " [{wide_bar}] {binary_bytes}/{binary_total_bytes}  {binary_bytes_per_sec}";

/// The bar's line of a job that counts files.
const FILES: &str = " [{wide_bar}] {pos}/{len} files  {elapsed}";

/// Progress of a long byte-counting job; clones draw the same bar.
#[derive(Clone)]
pub struct Progress(ProgressBar);

impl Progress {
    /// A bar that draws only when standard error is a terminal, saying `what` it does.
    pub fn new(what: &str) -> Self {
        Progress::drawn(what, TEMPLATE, None)
    }

    /// A bar like [`Progress::new`]'s that counts `total` files, one [`Progress::done`] each.
    pub fn files(what: &str, total: u64) -> Self {
        Progress::drawn(what, FILES, Some(total))
    }

    fn drawn(what: &str, template: &str, total: Option<u64>) -> Self {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
        // The templates parse (a test below holds them to that); were one not to, the bar
        // would keep indicatif's default style.
        if let Ok(style) = ProgressStyle::with_template(&format!("{what}{template}")) {
            bar.set_style(style.progress_chars("#-"));
        }
        Progress(bar)
    }

    /// Counts one more file done.
    pub fn done(&self) {
        self.0.inc(1);
    }

    /// Shows `done` of `total` bytes, with throughput.
    pub fn show(&self, done: u64, total: u64) {
        self.0.set_length(total);
        self.0.set_position(done);
    }

    /// Clears the bar if one was drawn.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_template_parses() {
        for template in [super::TEMPLATE, super::FILES] {
            let template = format!("hashing{template}");
            assert!(indicatif::ProgressStyle::with_template(&template).is_ok());
        }
    }
}
