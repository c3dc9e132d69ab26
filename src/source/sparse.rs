//! A file known in parts: a remote model, held as an anonymous sparse temporary file.
//!
//! The file has the remote file's length; each byte range fetched is written at its offset
//! and the rest are holes, which cost nothing. It is memory-mapped, so that every reader
//! reads it as it reads a local file. Pages not fetched are mapped without access: a reader
//! that reads one faults, the fault handler ([`super::guard::Tracking`]) lets the read go on
//! (a hole reads as zeros) and records the page, and the analysis then fetches the pages
//! recorded and reads the file again (`analysis::analyze_opened`). So no finding rests on
//! bytes that were not fetched: what a format's fetch plan (`Format::fetch_plan`) did not
//! foresee costs another round, never a wrong answer.

use super::fetched::Fetched;
use super::guard::Tracking;
use super::ByteRange;
use super::Provenance;
use memmap2::{Mmap, MmapOptions};
use std::fs::File;
use std::io;
use std::sync::Mutex;

/// What bytes are fetched for, which decides what pays for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// What a reader reads to check the file: paid from the per-file and per-run budgets.
    Structure,
    /// Tensor bytes an option asks for (`--values`, `--verify-checksums`, a value view):
    /// no more than the ranges asked, each answer held to its range, and let go of once
    /// read ([`Sparse::forget`]).
    Tensors,
}

/// Where a sparse file's bytes come from: a server, in tests anything.
pub trait Origin: Send + Sync {
    /// Fetches `wanted` (sorted, disjoint, within the file) for `purpose`, handing each
    /// part read to `put` at its offset. An error says what went wrong, for a message that
    /// names the origin.
    fn fetch(
        &self,
        wanted: &[ByteRange],
        purpose: Purpose,
        put: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), String>;
    /// What reports say of the file: where it is, what its server says of it, what it cost.
    fn provenance(&self) -> Provenance;
}

impl<T: Origin> Origin for std::sync::Arc<T> {
    fn fetch(
        &self,
        wanted: &[ByteRange],
        purpose: Purpose,
        put: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), String> {
        T::fetch(self, wanted, purpose, put)
    }

    fn provenance(&self) -> Provenance {
        T::provenance(self)
    }
}

/// A sparse temporary file, its map, and what of it was fetched.
pub struct Sparse {
    file: File,
    map: Option<Mmap>,
    /// Ends before the map is unmapped (see `Drop`).
    tracking: Option<Tracking>,
    len: u64,
    page: u64,
    fetched: Mutex<Fetched>,
    /// The pages fetched for their tensor bytes, which [`Sparse::forget`] lets go of.
    transient: Mutex<Fetched>,
    /// Why fetching tensor bytes failed, for [`Sparse::failure`]: what was read from the
    /// hole instead judges nothing.
    failed: Mutex<Option<String>>,
    origin: Box<dyn Origin>,
}

impl std::fmt::Debug for Sparse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sparse").field("len", &self.len).finish()
    }
}

impl Sparse {
    /// A file of `len` bytes, all holes, whose bytes come from `origin`.
    pub fn new(len: u64, origin: Box<dyn Origin>) -> io::Result<Self> {
        let file = tempfile::tempfile()?;
        file.set_len(len)?;
        // SAFETY: sysconf has no preconditions.
        let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let (map, tracking) = if len == 0 {
            (None, None)
        } else {
            let size = usize::try_from(len).map_err(io::Error::other)?;
            // SAFETY: the file is ours alone (anonymous, never linked into a folder); it is
            // written only through `write_all_at`, and shared mapping shows those writes.
            let map = unsafe { MmapOptions::new().len(size).map(&file)? };
            let tracking = Tracking::new(map.as_ptr(), map.len())
                .ok_or_else(|| io::Error::other("too many remote files open at once"))?;
            (Some(map), Some(tracking))
        };
        let sparse = Sparse {
            file,
            map,
            tracking,
            len,
            page,
            fetched: Mutex::new(Fetched::default()),
            transient: Mutex::new(Fetched::default()),
            failed: Mutex::new(None),
            origin,
        };
        sparse.protect(0, len, false);
        Ok(sparse)
    }

    /// The file's length.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The whole content; holes read as zeros, and a read of one is recorded.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or_default()
    }

    /// What reports say of the file.
    pub fn provenance(&self) -> Provenance {
        self.origin.provenance()
    }

    /// Writes `bytes`, already fetched, at `at` (the first answer's).
    pub fn seed(&self, at: u64, bytes: &[u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let end = at.saturating_add(bytes.len() as u64).min(self.len);
        let part = bytes
            .get(..usize::try_from(end.saturating_sub(at)).unwrap_or(0))
            .unwrap_or_default();
        self.file.write_all_at(part, at)?;
        let mut written = Fetched::default();
        written.insert(at, end);
        self.store(&written);
        Ok(())
    }

    /// What has been fetched.
    pub fn fetched(&self) -> Fetched {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Fetched> {
        lock(&self.fetched)
    }

    /// Fetches the parts of `wanted` not fetched yet, widened to whole pages, for what the
    /// readers read; returns the bytes fetched.
    pub fn fetch(&self, wanted: &[ByteRange]) -> Result<u64, String> {
        self.get(wanted, Purpose::Structure)
    }

    /// Fetches tensor bytes as [`Sparse::fetch`] does, to be let go of once read
    /// ([`Sparse::forget`]). A failure is also kept ([`Sparse::failure`]), so that a pass
    /// that goes on past it cannot be reported as having read the file.
    pub fn fetch_tensors(&self, wanted: &[ByteRange]) -> Result<u64, String> {
        let fetched = self.get(wanted, Purpose::Tensors);
        if let Err(e) = &fetched {
            lock(&self.failed).get_or_insert_with(|| e.clone());
        }
        fetched
    }

    /// The first failure to fetch tensor bytes, if any.
    pub fn failure(&self) -> Option<String> {
        lock(&self.failed).clone()
    }

    /// Lets go of the tensor bytes fetched in the whole pages of `start..end`: they become
    /// holes again, without access (a read of one is recorded, as of any hole), and cost
    /// neither memory nor disk. What the readers read stays.
    pub fn forget(&self, start: u64, end: u64) {
        let start = start.div_ceil(self.page) * self.page;
        let end = match end >= self.len {
            true => self.len,
            false => end / self.page * self.page,
        };
        if start >= end {
            return;
        }
        let gone = {
            let mut transient = lock(&self.transient);
            let gone = transient.inside(start, end);
            transient.remove(start, end);
            gone
        };
        for r in gone {
            // Unknown first, then without access, then a hole: a read meanwhile is recorded
            // rather than given zeros.
            self.lock().remove(r.start, r.end());
            self.protect(r.start, r.end(), false);
            self.punch(r);
        }
    }

    /// Gives the disk blocks (and cached pages) of `r` back.
    fn punch(&self, r: ByteRange) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let (Ok(offset), Ok(len)) =
                (libc::off_t::try_from(r.start), libc::off_t::try_from(r.len))
            else {
                return;
            };
            let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
            // SAFETY: the descriptor is our own open temporary file; punching a hole changes
            // no Rust object (its pages have no access now, see `forget`).
            unsafe { libc::fallocate(self.file.as_raw_fd(), mode, offset, len) };
        }
        #[cfg(not(target_os = "linux"))]
        let _ = r;
    }

    /// Fetches the parts of `wanted` not fetched yet, widened to whole pages, for `purpose`;
    /// returns the bytes fetched.
    fn get(&self, wanted: &[ByteRange], purpose: Purpose) -> Result<u64, String> {
        let mut pages = Fetched::default();
        for r in wanted {
            let start = r.start / self.page * self.page;
            let end = r.end().min(self.len).div_ceil(self.page) * self.page;
            pages.insert(start, end.min(self.len));
        }
        let known = self.fetched();
        let missing: Vec<ByteRange> = (pages.ranges())
            .flat_map(|r| known.missing(r.start, r.end()))
            .collect();
        if missing.is_empty() {
            return Ok(0);
        }
        let mut written = Fetched::default();
        let mut failed = None;
        self.origin.fetch(&missing, purpose, &mut |at, part| {
            use std::os::unix::fs::FileExt;
            let end = at.saturating_add(part.len() as u64);
            if failed.is_some() || end > self.len {
                return;
            }
            match self.file.write_all_at(part, at) {
                Ok(()) => written.insert(at, end),
                Err(e) => failed = Some(format!("cannot write to the temporary file: {e}")),
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        if purpose == Purpose::Tensors {
            let mut transient = lock(&self.transient);
            for r in written.ranges() {
                transient.insert(r.start, r.end());
            }
        }
        self.store(&written);
        Ok(written.bytes())
    }

    /// Records `written` as fetched and gives its whole pages read access: a page that
    /// still holds a hole stays without.
    fn store(&self, written: &Fetched) {
        let mut known = self.lock();
        for r in written.ranges() {
            known.insert(r.start, r.end());
        }
        drop(known);
        for r in written.ranges() {
            let start = r.start.div_ceil(self.page) * self.page;
            let end = if r.end() == self.len {
                r.end()
            } else {
                r.end() / self.page * self.page
            };
            self.protect(start, end, true);
        }
    }

    /// The pages read since the last call that were holes, and whether more were read than
    /// listed; each such page is made a hole without access again.
    pub fn take_touched(&self) -> (Vec<ByteRange>, bool) {
        let Some(tracking) = &self.tracking else {
            return (Vec::new(), false);
        };
        let (pages, more) = tracking.take();
        let known = self.fetched();
        let mut touched: Vec<ByteRange> = (pages.into_iter())
            .filter(|&p| !known.covers(p, self.page.min(self.len - p)))
            .map(|p| ByteRange {
                start: p,
                len: self.page,
            })
            .collect();
        touched.sort_by_key(|r| r.start);
        touched.dedup();
        // Every page not fetched loses its access again, including those past the list.
        for gap in known.missing(0, self.len) {
            self.protect(gap.start, gap.end(), false);
        }
        (touched, more)
    }

    /// Gives the pages of `start..end` read access, or none.
    fn protect(&self, start: u64, end: u64, readable: bool) {
        let Some(map) = &self.map else { return };
        let start = start / self.page * self.page;
        let end = end.min(self.len);
        let (Ok(offset), Ok(len)) = (
            usize::try_from(start),
            usize::try_from(end - start.min(end)),
        ) else {
            return;
        };
        if len == 0 {
            return;
        }
        let prot = if readable {
            libc::PROT_READ
        } else {
            libc::PROT_NONE
        };
        // SAFETY: the range lies inside our own live map; changing its access changes no
        // Rust object, and a read of a page without access is handled by `Tracking`.
        unsafe { libc::mprotect(map.as_ptr().add(offset) as *mut libc::c_void, len, prot) };
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for Sparse {
    fn drop(&mut self) {
        // The tracking ends before the map goes.
        self.tracking = None;
        self.map = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// Serves `i as u8` at offset `i`, counting the bytes served.
    struct Counting(Arc<AtomicU64>);

    impl Origin for Counting {
        fn fetch(
            &self,
            wanted: &[ByteRange],
            _: Purpose,
            put: &mut dyn FnMut(u64, &[u8]),
        ) -> Result<(), String> {
            for r in wanted {
                let bytes: Vec<u8> = (r.start..r.end()).map(|i| i as u8).collect();
                self.0.fetch_add(r.len, Ordering::Relaxed);
                put(r.start, &bytes);
            }
            Ok(())
        }

        fn provenance(&self) -> Provenance {
            Provenance::default()
        }
    }

    #[test]
    fn holes_read_as_zeros_and_are_recorded_until_fetched() {
        let served = Arc::new(AtomicU64::new(0));
        let len = 10 << 20;
        let sparse = Sparse::new(len, Box::new(Counting(served.clone()))).unwrap();
        sparse.fetch(&[ByteRange { start: 0, len: 10 }]).unwrap();
        assert_eq!(served.load(Ordering::Relaxed), 4096);
        let bytes = sparse.bytes();
        assert_eq!(bytes[5], 5);
        // A hole far away: zeros, and recorded.
        let far = 5 << 20;
        assert_eq!(std::hint::black_box(bytes)[far + 1], 0);
        let (touched, more) = sparse.take_touched();
        assert_eq!(
            touched,
            [ByteRange {
                start: far as u64,
                len: 4096
            }]
        );
        assert!(!more);
        sparse.fetch(&touched).unwrap();
        assert_eq!(std::hint::black_box(bytes)[far + 1], (far + 1) as u8);
        assert_eq!(sparse.take_touched().0, []);
        // The last page, short of a whole page, and many pages at once.
        let tail = (len - 1) as usize;
        assert_eq!(std::hint::black_box(bytes)[tail], 0);
        for page in 0..300 {
            assert_eq!(std::hint::black_box(bytes)[(1 << 20) + page * 4096], 0);
        }
        let (touched, more) = sparse.take_touched();
        assert_eq!(touched.len(), 128);
        assert!(more);
        // All of them lost their access again: a second pass records them again.
        assert_eq!(std::hint::black_box(bytes)[tail], 0);
        assert_eq!(sparse.take_touched().0.len(), 1);
        assert_eq!(sparse.fetched().bytes(), 8192);
    }

    #[test]
    fn tensor_bytes_are_let_go_of_and_what_the_readers_read_stays() {
        let served = Arc::new(AtomicU64::new(0));
        let sparse = Sparse::new(1 << 20, Box::new(Counting(served.clone()))).unwrap();
        sparse.fetch(&[ByteRange { start: 0, len: 100 }]).unwrap();
        let tensor = ByteRange {
            start: 100,
            len: 300_000,
        };
        sparse.fetch_tensors(&[tensor]).unwrap();
        let bytes = sparse.bytes();
        assert_eq!(std::hint::black_box(bytes)[200_000], 200_000u32 as u8);
        // Forgotten: its whole pages past the readers' first one, which stays.
        sparse.forget(tensor.start, tensor.end());
        let held = sparse.fetched();
        assert!(held.covers(0, 4096) && !held.covers(4096, 1), "{held:?}");
        assert_eq!(held.bytes(), 4096 + (303_104 - 299_008));
        assert_eq!(std::hint::black_box(bytes)[50], 50);
        // A read of a page let go of is recorded, as of any hole, and fetched again.
        assert_eq!(std::hint::black_box(bytes)[200_000], 0);
        assert_eq!(sparse.take_touched().0.len(), 1);
        assert!(sparse.failure().is_none());
    }
}
