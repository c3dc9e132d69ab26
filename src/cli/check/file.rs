//! Checking one file within its budgets: `max-size` is compared with the file's size before
//! anything is read, and with a `timeout` the file is read on a thread of its own that the
//! run stops waiting for at the deadline. A reader cannot be stopped half-way, so a file past
//! its time goes on reading in the background while the other files are checked, and is
//! dropped with the process at the end.

use super::Target;
use crate::cli::config::settings::Settings;
use crate::cli::progress::Progress;
use rtenx::check::generic::{FILE_TOO_LARGE, TIMED_OUT};
use rtenx::formats::ReadOptions;
use rtenx::report::FileResult;
use rtenx::source::{ModelFile, OpenError};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

/// What every file of a run is checked with.
#[derive(Clone)]
pub struct Run {
    /// `--verify-checksums`.
    pub verify_checksums: bool,
    /// `--hash sha256`.
    pub hash: bool,
    /// `--expect-hub`: hashes also carry git blob ids.
    pub git_blobs: bool,
    /// The hashing progress bar.
    pub progress: Progress,
    /// Whether this is the run's only file, whose inventory is left to the OS at exit.
    pub lone: bool,
}

/// A file's report, and whether it was past a budget (which makes the exit code 2).
pub struct Outcome {
    /// The report.
    pub result: FileResult,
    /// Past `max-size` or `timeout`.
    pub over_budget: bool,
}

/// Opens and checks `target` with its `settings`.
pub fn check(target: Target, settings: Settings, run: &Run) -> Outcome {
    let (path, file) = target.open();
    let file = match file {
        Ok(file) => Arc::new(file),
        Err(e) => return within_budget(FileResult::new(path, Err(e)).0),
    };
    let size = file.bytes().len() as u64;
    if let Some(limit) = settings.max_size.filter(|&limit| size > limit) {
        let message = format!(
            "the file is {size} bytes, over the max-size budget of {limit} bytes: not read"
        );
        return over_budget(path, &file, &FILE_TOO_LARGE, message);
    }
    let Some(limit) = settings.timeout else {
        return within_budget(analyze(&file, path, &settings, run, None));
    };
    let (send, receive) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let job = (
        Arc::clone(&file),
        path.clone(),
        run.clone(),
        Arc::clone(&stop),
    );
    let spawned = std::thread::Builder::new().spawn(move || {
        let (file, path, run, stop) = job;
        let _ = send.send(analyze(&file, path, &settings, &run, Some(&stop)));
    });
    if let Err(e) = spawned {
        let error = OpenError::Io {
            path: path.clone(),
            source: e,
        };
        return within_budget(FileResult::new(path, Err(error)).0);
    }
    match receive.recv_timeout(limit) {
        Ok(result) => within_budget(result),
        Err(_) => {
            // Reading values stops at once; a reader goes on to its end.
            stop.store(true, Ordering::Relaxed);
            let ms = limit.as_millis();
            let message =
                format!("checking the file took longer than the timeout of {ms} ms: given up");
            over_budget(path, &file, &TIMED_OUT, message)
        }
    }
}

fn within_budget(result: FileResult) -> Outcome {
    Outcome {
        result,
        over_budget: false,
    }
}

fn over_budget(
    path: PathBuf,
    file: &ModelFile,
    rule: &'static rtenx::check::Rule,
    message: String,
) -> Outcome {
    let analysis = rtenx::not_read(file, rule, message);
    let (mut result, _) = FileResult::new(path, Ok(analysis));
    if let Ok(checked) = &mut result.outcome {
        checked.read = false;
    }
    Outcome {
        result,
        over_budget: true,
    }
}

/// Reads and checks the opened `file`, applies the severity overrides, and with `--hash`
/// hashes it and its data files. Reading values stops when `stop` is set.
fn analyze(
    file: &ModelFile,
    path: PathBuf,
    settings: &Settings,
    run: &Run,
    stop: Option<&AtomicBool>,
) -> FileResult {
    let report = |done, total| run.progress.show(done, total);
    let values = settings.values.then(|| rtenx::formats::ValueCheck {
        zero_tail: settings.zero_tail.unwrap_or(rtenx::formats::ZERO_TAIL),
        cancel: stop,
    });
    let options = ReadOptions {
        verify_checksums: run.verify_checksums,
        progress: Some(&report),
        data: &settings.data,
        views: false,
        target: settings.target,
        values,
        ..ReadOptions::default()
    };
    let mut outcome = rtenx::analyze_opened(file, &options);
    let mut hashes = Ok(Vec::new());
    if let Ok(a) = &mut outcome {
        settings.overrides.apply(&mut a.findings);
        if run.hash {
            hashes = crate::cli::hashing::model_and_data(file, &a.inventory, run.git_blobs);
        }
    }
    let (mut result, inventory) = FileResult::new(path, outcome);
    result.remote = file.provenance();
    match hashes {
        Ok(hashes) => result.hashes = hashes,
        Err(e) => result.outcome = Err(e),
    }
    // Each inventory is freed once its findings are placed, so that checking many models
    // holds one per thread; a lone model's is left to the OS at exit, which is faster.
    if run.lone {
        crate::cli::release_at_exit(inventory);
    }
    result
}
