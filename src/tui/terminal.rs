//! Putting the terminal back on every way out, signals included.
//!
//! The browser switches the terminal to raw mode and the alternate screen. A normal return
//! and a panic restore it through ratatui; a signal would not, and would leave the shell
//! without echo. While the browser runs, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV and
//! SIGABRT first restore the terminal (the saved terminal modes, the main screen, the
//! cursor, mouse reporting off) and then take their default action; a SIGBUS that is not a
//! shrinking model file (`source` handles those) does the same through its fatal hook.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Leaves the alternate screen, shows the cursor and turns mouse reporting off.
const RESTORE: &[u8] = b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1049l\x1b[?25h";

const SIGNALS: [libc::c_int; 6] = [
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGSEGV,
    libc::SIGABRT,
];

/// The terminal's modes before the browser changed them.
static SAVED: OnceLock<libc::termios> = OnceLock::new();
/// Whether the terminal still needs restoring.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Saves the terminal's modes and arms the handlers. Call before entering raw mode.
pub fn arm() {
    // SAFETY: an all-zero termios is valid for tcgetattr to overwrite; fd 0 is stdin.
    let mut modes: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor and writable termios.
    if unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut modes) } == 0 {
        let _ = SAVED.set(modes);
    }
    ACTIVE.store(true, Ordering::SeqCst);
    for signal in SIGNALS {
        // SAFETY: `on_signal` only makes async-signal-safe calls.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
    crate::source::set_fatal_hook(restore);
}

/// Disarms the handlers once the terminal has been restored the normal way.
pub fn disarm() {
    ACTIVE.store(false, Ordering::SeqCst);
    for signal in SIGNALS {
        // SAFETY: putting back the default action is always valid.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
}

/// Restores the terminal if the browser still holds it. Only async-signal-safe calls.
extern "C" fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    // SAFETY: write and tcsetattr are async-signal-safe; the buffers are static.
    unsafe {
        libc::write(libc::STDOUT_FILENO, RESTORE.as_ptr().cast(), RESTORE.len());
        if let Some(modes) = SAVED.get() {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, modes);
        }
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    restore();
    // SAFETY: signal and raise are async-signal-safe; the default action then ends the
    // process as the signal would have.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}
