//! Runs the `rtenx` binary as a child process and measures it from its own resource usage
//! (`wait4`): peak resident memory and wall time, for the tests that hold hostile files to a
//! bound. A child that outlives its time limit is killed, so a hang fails the test instead of
//! stalling it.
#![cfg(target_os = "linux")]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Peak memory a hostile file of a few megabytes may take.
pub const MAX_RSS_MB: u64 = 300;

/// Wall time a hostile file of a few megabytes may take, in a release build; unoptimised test
/// builds get ten times as long, which still tells a linear pass from a quadratic one at the
/// sizes these tests use.
pub fn max_seconds() -> f64 {
    if cfg!(debug_assertions) {
        50.0
    } else {
        5.0
    }
}

/// What a bounded run of `rtenx` did.
#[derive(Debug)]
pub struct Run {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit code; `None` if a signal ended it (or the time limit killed it).
    pub code: Option<i32>,
    /// Peak resident memory, in MB.
    pub rss_mb: u64,
    /// Wall time.
    pub seconds: f64,
}

impl Run {
    /// Asserts the run ended by itself within [`MAX_RSS_MB`] and [`max_seconds`], naming
    /// `what` in the message.
    pub fn assert_bounded(&self, what: &str) {
        assert!(
            self.code.is_some(),
            "{what}: killed or crashed after {:.1} s\n{}",
            self.seconds,
            self.stderr
        );
        assert!(
            self.rss_mb < MAX_RSS_MB,
            "{what}: peak RSS {} MB (limit {MAX_RSS_MB} MB)",
            self.rss_mb
        );
        assert!(
            self.seconds < max_seconds(),
            "{what}: {:.1} s (limit {} s)",
            self.seconds,
            max_seconds()
        );
    }
}

/// Runs `rtenx args` from `dir`, killing it after twice [`max_seconds`].
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rtenx"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtenx starts");
    let pid = child.id() as libc::pid_t;
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            pipe.read_to_end(&mut text).ok();
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let start = Instant::now();
    let limit = Duration::from_secs_f64(2.0 * max_seconds());
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if done_rx.recv_timeout(limit).is_err() {
            // SAFETY: `pid` is our child, not yet reaped (wait4 below reaps it), so the id
            // cannot have been reused.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid pointers to `status` and `usage`.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let seconds = start.elapsed().as_secs_f64();
    done_tx.send(()).ok();
    watchdog.join().ok();
    assert_eq!(reaped, pid, "wait4 reaps the child");
    // The child was reaped here; dropping `child` neither waits nor kills.
    drop(child);
    Run {
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        rss_mb: (usage.ru_maxrss as u64) / 1024,
        seconds,
    }
}

/// Runs `rtenx args` from the package root.
pub fn run(args: &[&str]) -> Run {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}
