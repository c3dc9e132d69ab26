//! Surviving a mapped file that shrinks while it is read.
//!
//! Reading a page of a memory map past the end of a file that another process truncated
//! raises SIGBUS, which would kill rtenx with no report. Every map rtenx makes is registered
//! here, and a SIGBUS handler replaces the missing page of a registered map with a page of
//! zeros and marks the map as changed; the read then goes on. The reader's results for that
//! file are worthless, so the analysis checks [`changed`] when it is done and reports the
//! file as changed while it was read. A fault outside every registered map is not ours: the
//! previous handler is put back and the fault repeats, so real crashes stay crashes.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Once;

/// Maps watched at once; a map beyond this is not watched (and a shrinking file then ends
/// the process, as any mmap reader would).
const SLOTS: usize = 1024;

struct Slot {
    start: AtomicUsize,
    len: AtomicUsize,
    /// Nonzero while a map holds the slot: claiming it is one compare-and-swap.
    generation: AtomicU64,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)] // Only as the array initialiser.
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    generation: AtomicU64::new(0),
    faulted: AtomicBool::new(false),
};

static WATCHED: [Slot; SLOTS] = [FREE; SLOTS];
/// Called, if set, before a fault that is not ours takes its course (see [`set_fatal_hook`]).
static FATAL_HOOK: AtomicUsize = AtomicUsize::new(0);
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);
static INSTALL: Once = Once::new();

/// The registration of one map. Dropping it unregisters the map; it must be dropped before
/// the map is unmapped.
#[derive(Debug)]
pub struct Watch {
    slot: usize,
}

/// Watches the map of `len` bytes at `start`, or returns `None` when every slot is taken.
pub fn watch(start: *const u8, len: usize) -> Option<Watch> {
    INSTALL.call_once(install);
    let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
    let (slot, s) = WATCHED.iter().enumerate().find(|(_, s)| {
        s.generation
            .compare_exchange(0, generation, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })?;
    s.faulted.store(false, Ordering::Relaxed);
    s.len.store(len, Ordering::Relaxed);
    // The start is published last: the handler matches a slot only by its range.
    s.start.store(start as usize, Ordering::Release);
    Some(Watch { slot })
}

impl Drop for Watch {
    fn drop(&mut self) {
        let s = &WATCHED[self.slot];
        s.start.store(0, Ordering::Release);
        s.len.store(0, Ordering::Release);
        s.generation.store(0, Ordering::Release);
    }
}

/// Sets `hook` to run, from the signal handler, before a SIGBUS that is not a shrinking
/// watched file ends the process: the browser uses it to restore the terminal. It must make
/// only async-signal-safe calls.
pub fn set_fatal_hook(hook: extern "C" fn()) {
    FATAL_HOOK.store(hook as *const () as usize, Ordering::SeqCst);
}

/// Whether a page of the watched map holding `bytes` was missing, so that some of what was
/// read from it is zeros rather than the file.
pub fn changed(bytes: &[u8]) -> bool {
    let at = bytes.as_ptr() as usize;
    WATCHED.iter().any(|s| {
        let start = s.start.load(Ordering::Acquire);
        start != 0
            && at >= start
            && at - start < s.len.load(Ordering::Acquire)
            && s.faulted.load(Ordering::Acquire)
    })
}

#[cfg(unix)]
mod unix {
    use super::WATCHED;
    use std::sync::atomic::Ordering;

    /// The action SIGSEGV had before ours (Rust's stack overflow report), put back for
    /// faults that are not a tracked hole.
    #[cfg(feature = "remote")]
    static mut PREVIOUS_SEGV: std::mem::MaybeUninit<libc::sigaction> =
        std::mem::MaybeUninit::zeroed();

    /// Installs the SIGSEGV handler of tracked sparse maps, on the signal stack so that a
    /// stack overflow still reaches Rust's own report.
    #[cfg(feature = "remote")]
    pub(super) fn install_tracking() {
        // SAFETY: as in `install`.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = tracking_handler as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(
                libc::SIGSEGV,
                &action,
                std::ptr::addr_of_mut!(PREVIOUS_SEGV).cast(),
            );
        }
    }

    /// Only async-signal-safe work: atomics, `mprotect` and `sigaction`.
    #[cfg(feature = "remote")]
    extern "C" fn tracking_handler(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        // SAFETY: sysconf is async-signal-safe.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        for s in &super::TRACKED {
            let start = s.start.load(Ordering::Acquire);
            if start == 0 || addr < start || addr - start >= s.len.load(Ordering::Acquire) {
                continue;
            }
            let base = addr & !(page - 1);
            // SAFETY: the page lies inside a live map of ours (its slot is cleared before the
            // map is unmapped), of a file opened for reading and writing; read access shows
            // what the file holds there, zeros for a hole.
            let opened =
                unsafe { libc::mprotect(base as *mut libc::c_void, page, libc::PROT_READ) };
            if opened == 0 {
                let n = s.count.fetch_add(1, Ordering::AcqRel);
                if let Some(slot) = s.pages.get(n) {
                    slot.store(base - start, Ordering::Release);
                }
                return;
            }
        }
        // Not ours: the previous action handles the fault when it repeats.
        // SAFETY: `PREVIOUS_SEGV` was filled by `install_tracking` before this handler was set.
        unsafe {
            libc::sigaction(
                signal,
                std::ptr::addr_of!(PREVIOUS_SEGV).cast(),
                std::ptr::null_mut(),
            );
        }
    }

    /// The action SIGBUS had before ours, put back for faults that are not ours.
    static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::zeroed();

    pub(super) fn install() {
        // SAFETY: `action` is fully initialised before use; `PREVIOUS` is written once, here,
        // before the handler that reads it can run.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(
                libc::SIGBUS,
                &action,
                std::ptr::addr_of_mut!(PREVIOUS).cast(),
            );
        }
    }

    /// Only async-signal-safe work: atomics, `mmap` and `sigaction`.
    extern "C" fn handler(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        // SAFETY: sysconf is async-signal-safe.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        for s in &WATCHED {
            let start = s.start.load(Ordering::Acquire);
            if start == 0 || addr < start || addr - start >= s.len.load(Ordering::Acquire) {
                continue;
            }
            let base = addr & !(page - 1);
            // SAFETY: the page lies inside a live read-only map of ours (its slot is cleared
            // before the map is unmapped); replacing it with zeros changes no Rust object.
            let zero = unsafe {
                libc::mmap(
                    base as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if zero != libc::MAP_FAILED {
                s.faulted.store(true, Ordering::Release);
                return;
            }
        }
        // Not ours: the previous action handles the fault when it repeats.
        let hook = super::FATAL_HOOK.load(Ordering::SeqCst);
        if hook != 0 {
            // SAFETY: only `set_fatal_hook` stores here, from an `extern "C" fn()`.
            let hook: extern "C" fn() = unsafe { std::mem::transmute(hook) };
            hook();
        }
        // SAFETY: `PREVIOUS` was filled by `install` before this handler was set.
        unsafe {
            libc::sigaction(
                signal,
                std::ptr::addr_of!(PREVIOUS).cast(),
                std::ptr::null_mut(),
            );
        }
    }
}

#[cfg(unix)]
use unix::install;

#[cfg(not(unix))]
fn install() {}

/// Sparse maps tracked at once: one per remote file being read, a model's data files included
/// (a 405B checkpoint has 191 shards), for the files of a repository checked side by side.
#[cfg(all(unix, feature = "remote"))]
const TRACKED_SLOTS: usize = 1024;
/// Pages a tracked map records between two [`Tracking::take`]s; more are counted only.
#[cfg(all(unix, feature = "remote"))]
const TOUCHED: usize = 128;

/// A map whose pages without access are holes not yet fetched (`sparse.rs`).
#[cfg(all(unix, feature = "remote"))]
struct TrackedSlot {
    start: AtomicUsize,
    len: AtomicUsize,
    generation: AtomicU64,
    /// Pages touched since the last take; the first [`TOUCHED`] are in `pages`.
    count: AtomicUsize,
    pages: [AtomicUsize; TOUCHED],
}

#[cfg(all(unix, feature = "remote"))]
#[allow(clippy::declare_interior_mutable_const)] // Only as the array initialisers.
const UNSET: AtomicUsize = AtomicUsize::new(0);

#[cfg(all(unix, feature = "remote"))]
#[allow(clippy::declare_interior_mutable_const)]
const FREE_TRACKED: TrackedSlot = TrackedSlot {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    generation: AtomicU64::new(0),
    count: AtomicUsize::new(0),
    pages: [UNSET; TOUCHED],
};

#[cfg(all(unix, feature = "remote"))]
static TRACKED: [TrackedSlot; TRACKED_SLOTS] = [FREE_TRACKED; TRACKED_SLOTS];
#[cfg(all(unix, feature = "remote"))]
static INSTALL_TRACKING: Once = Once::new();

/// The registration of a sparse map whose pages without access are holes: a read of one
/// faults, and the SIGSEGV handler gives the page read access (the hole reads as zeros) and
/// records its offset, so that the reader goes on and the caller learns which holes it read.
/// Dropping it unregisters the map; it must be dropped before the map is unmapped.
#[cfg(all(unix, feature = "remote"))]
#[derive(Debug)]
pub struct Tracking {
    slot: usize,
}

#[cfg(all(unix, feature = "remote"))]
impl Tracking {
    /// Tracks the map of `len` bytes at `start`, or `None` when every slot is taken.
    pub fn new(start: *const u8, len: usize) -> Option<Self> {
        INSTALL_TRACKING.call_once(unix::install_tracking);
        let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        let (slot, s) = TRACKED.iter().enumerate().find(|(_, s)| {
            s.generation
                .compare_exchange(0, generation, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        s.count.store(0, Ordering::Relaxed);
        s.len.store(len, Ordering::Relaxed);
        s.start.store(start as usize, Ordering::Release);
        Some(Tracking { slot })
    }

    /// The offsets of the pages touched since the last take (at most [`TOUCHED`] of them),
    /// and whether more were touched than that.
    pub fn take(&self) -> (Vec<u64>, bool) {
        let s = &TRACKED[self.slot];
        let count = s.count.swap(0, Ordering::AcqRel);
        let pages = (s.pages.iter().take(count.min(TOUCHED)))
            .map(|p| p.load(Ordering::Acquire) as u64)
            .collect();
        (pages, count > TOUCHED)
    }
}

#[cfg(all(unix, feature = "remote"))]
impl Drop for Tracking {
    fn drop(&mut self) {
        let s = &TRACKED[self.slot];
        s.start.store(0, Ordering::Release);
        s.len.store(0, Ordering::Release);
        s.generation.store(0, Ordering::Release);
    }
}
