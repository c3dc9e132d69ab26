//! Reading the model on a background thread, reported over a channel, so that the browser
//! shows its first frame at once whatever the model's size, and shows progress meanwhile.

use super::tabs::Tabs;
use crate::analysis::Analysis;
use crate::diff::Diff;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

/// What the background thread is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Reading and checking the model.
    Reading,
    /// Building the tabs' rows and indexes.
    Indexing,
}

impl Phase {
    /// What the status line says.
    pub fn label(self) -> &'static str {
        match self {
            Phase::Reading => "reading and checking the model",
            Phase::Indexing => "building the views",
        }
    }
}

/// A finished analysis with the tabs built over it.
pub struct Loaded {
    /// The analysis.
    pub analysis: Analysis,
    /// Its tabs.
    pub tabs: Tabs,
}

/// One report from the background thread.
enum Report {
    Phase(Phase),
    Done(Box<Loaded>),
    Failed(String),
}

/// News from [`Loader::poll`].
pub enum Update {
    /// Nothing for the screen.
    None,
    /// The phase changed or the load failed: redraw.
    Changed,
    /// The model is read: show it.
    Loaded(Box<Loaded>),
}

/// The background load of one model.
pub struct Loader {
    rx: Receiver<Report>,
    phase: Phase,
    started: Instant,
    error: Option<String>,
}

impl Loader {
    /// Runs `analyze` on a new thread, then builds the tabs over its result there too.
    /// An `Err` is shown as the reason the model could not be read.
    pub fn spawn<F>(analyze: F) -> Self
    where
        F: FnOnce() -> Result<Analysis, String> + Send + 'static,
    {
        Loader::spawn_compared(|| analyze().map(|analysis| (analysis, None)))
    }

    /// As [`Loader::spawn`], for a model that `analyze` may also compare with another: the
    /// tabs mark what the [`Diff`] (the other model as A, this one as B) found.
    pub fn spawn_compared<F>(analyze: F) -> Self
    where
        F: FnOnce() -> Result<(Analysis, Option<Diff>), String> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let report = match analyze() {
                Ok((analysis, diff)) => {
                    // The browser may have quit meanwhile; then no one listens.
                    let _ = tx.send(Report::Phase(Phase::Indexing));
                    let tabs = Tabs::compared(&analysis, diff.as_ref());
                    Report::Done(Box::new(Loaded { analysis, tabs }))
                }
                Err(message) => Report::Failed(message),
            };
            let _ = tx.send(report);
        });
        Loader {
            rx,
            phase: Phase::Reading,
            started: Instant::now(),
            error: None,
        }
    }

    /// Takes the thread's reports so far.
    pub fn poll(&mut self) -> Update {
        let mut update = Update::None;
        loop {
            match self.rx.try_recv() {
                Ok(Report::Phase(phase)) => {
                    self.phase = phase;
                    update = Update::Changed;
                }
                Ok(Report::Done(loaded)) => return Update::Loaded(loaded),
                Ok(Report::Failed(message)) => {
                    self.error = Some(message);
                    return Update::Changed;
                }
                Err(TryRecvError::Empty) => return update,
                Err(TryRecvError::Disconnected) => {
                    if self.error.is_none() {
                        self.error = Some("the reading thread stopped unexpectedly".to_owned());
                        update = Update::Changed;
                    }
                    return update;
                }
            }
        }
    }

    /// What the thread is doing now.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// How long the load has taken so far.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Why the model could not be read, once that is known.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}
