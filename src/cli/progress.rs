//! The progress bar of hashing and reading values, on standard error, drawn by indicatif: only
//! on a terminal, fitted to its width, at most 20 times a second, and cleared when done.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The bar's line after what it does; `wide_bar` takes the width the rest leaves.
const TEMPLATE: &str = " [{wide_bar}] {binary_bytes}/{binary_total_bytes}  {binary_bytes_per_sec}";

/// Progress of a long byte-counting job; clones draw the same bar.
#[derive(Clone)]
pub struct Progress(ProgressBar);

impl Progress {
    /// A bar that draws only when standard error is a terminal, saying `what` it does.
    pub fn new(what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        // TEMPLATE parses (a test below holds it to that); were it not to, the bar would
        // keep indicatif's default style.
        if let Ok(style) = ProgressStyle::with_template(&format!("{what}{TEMPLATE}")) {
            bar.set_style(style.progress_chars("#-"));
        }
        Progress(bar)
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
        let template = format!("hashing{}", super::TEMPLATE);
        assert!(indicatif::ProgressStyle::with_template(&template).is_ok());
    }
}
