//! Read-only, memory-mapped access to a model file.
//!
//! Every map is watched ([`guard`]), so a file that shrinks while it is read becomes an
//! error for that file instead of a SIGBUS for the whole process.

mod beside;
pub mod digest;
pub mod fetched;
mod guard;
#[cfg(all(unix, feature = "remote"))]
mod open;
mod provenance;
mod range;
#[cfg(all(unix, feature = "remote"))]
pub mod sparse;

pub use beside::Listing;
pub use guard::set_fatal_hook;
pub use provenance::{names_remote, Cost, Provenance};
pub use range::ByteRange;

use bytes::Bytes;
use memmap2::MmapOptions;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Errors opening a model file. These stop the analysis of that file (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The file could not be opened or mapped.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The path is a directory, device or other non-regular file.
    #[error("{path}: not a regular file")]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The path leads to another file than when it was checked: something replaced it, or
    /// one of its folders, in between.
    #[error("{path}: changed since it was checked; not read")]
    Changed {
        /// The path.
        path: PathBuf,
    },
    /// Another process changed the file (its size or modification time) while rtenx read
    /// it, so what was read cannot be trusted.
    #[error("{path}: changed while it was being read ({what}); check it again once nothing writes to it")]
    ChangedWhileRead {
        /// The path.
        path: PathBuf,
        /// What changed.
        what: String,
    },
    /// A remote file could not be fetched, or its server answered what cannot be trusted.
    #[error("{url}: {cause}")]
    Remote {
        /// The URL as given.
        url: String,
        /// What went wrong.
        cause: String,
    },
}

/// Which file a path led to when it was checked: its device and inode numbers, and when its
/// inode last changed, since a file deleted and replaced can get the same inode number back.
/// Opening the path again and comparing identities detects a file or folder swapped in
/// between. Hard links to one file share the whole identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    dev: u64,
    ino: u64,
    ctime: (i64, i64),
}

impl FileIdentity {
    /// The identity in `meta`; `None` where the platform has no inode numbers.
    pub fn of(meta: &std::fs::Metadata) -> Option<Self> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileIdentity {
                dev: meta.dev(),
                ino: meta.ino(),
                ctime: (meta.ctime(), meta.ctime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// A model file mapped into memory, read-only.
///
/// The file is opened for reading only and never locked. Every reader treats the bytes as
/// hostile, so a change made by another process while the map is alive can produce wrong
/// findings but never undefined behaviour in rtenx's own code; [`ModelFile::changed`] says
/// afterwards whether that happened.
pub struct ModelFile {
    path: PathBuf,
    /// The content: a memory map, or owned bytes for empty and in-memory files. `Bytes`
    /// lets decoders hand out slices of the map without copying.
    bytes: Bytes,
    /// The open file and what it was when mapped, to tell a change afterwards.
    opened: Option<(File, Snapshot)>,
    /// A remote file: the sparse file its fetched bytes are in.
    #[cfg(all(unix, feature = "remote"))]
    sparse: Option<std::sync::Arc<sparse::Sparse>>,
    /// A remote model's repository, where its readers look beside it.
    listing: Option<std::sync::Arc<dyn Listing>>,
}

/// A file's size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Snapshot {
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Snapshot {
    fn of(meta: &std::fs::Metadata) -> Self {
        Snapshot {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// A memory map with its watch, dropped in that order: the watch ends before the unmap.
struct Watched {
    _watch: Option<guard::Watch>,
    map: memmap2::Mmap,
}

impl AsRef<[u8]> for Watched {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}

/// The map of a remote file's sparse file, shared with the [`ModelFile`] that fetches into it.
#[cfg(all(unix, feature = "remote"))]
struct SparseBytes(std::sync::Arc<sparse::Sparse>);

#[cfg(all(unix, feature = "remote"))]
impl AsRef<[u8]> for SparseBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}

/// How much of a message [`prefetch`] asks for: enough for a node with its metadata, and
/// little enough that a node holding a large inline tensor costs nothing extra.
const PREFETCH_LIMIT: usize = 4096;

/// Asks the processor to bring the first 4 KiB of `bytes` into its cache.
///
/// Protobuf is read key by key, and each key's position depends on the length before it, so
/// reading a message whose bytes are not cached waits for one memory access after another.
/// Prefetching the next message while the current one is read overlaps those waits: on
/// exported models whose nodes carry long metadata this makes `check` about a third faster.
/// A prefetch is only a hint. It never faults, even on an unmapped page, and changes no
/// result; on other processors this does nothing.
pub fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes[..bytes.len().min(PREFETCH_LIMIT)].chunks(64) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has. It reads
        // nothing that the program can observe and cannot fault; the address is inside
        // `bytes` in any case.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

impl ModelFile {
    /// Opens and maps `path`.
    pub fn open(path: &Path) -> Result<Self, OpenError> {
        let (file, meta) = open_regular(path, false, None)?;
        Self::map(path, file, &meta)
    }

    /// Opens and maps the model at `path` again, refusing a file other than `identity`.
    pub fn open_same(path: &Path, identity: Option<FileIdentity>) -> Result<Self, OpenError> {
        let (file, meta) = open_regular(path, false, identity)?;
        Self::map(path, file, &meta)
    }

    /// Opens and maps a data file that was checked to be `identity`, from its canonical
    /// path. No symlink is followed on the way, and a file other than the one checked is
    /// refused.
    pub fn open_checked(path: &Path, identity: Option<FileIdentity>) -> Result<Self, OpenError> {
        let (file, meta) = open_regular(path, true, identity)?;
        Self::map(path, file, &meta)
    }

    /// Opens and maps the file at `path`, which a scan of `root` found as `identity`: no
    /// symlink below `root` is followed, and a file swapped in since the scan saw it is
    /// refused as [`OpenError::Changed`].
    pub fn open_in(
        root: &ScanRoot,
        path: &Path,
        identity: Option<FileIdentity>,
    ) -> Result<Self, OpenError> {
        let (file, meta) = root.open_file(path, identity).map_err(|source| {
            if is_replaced(&source) {
                OpenError::Changed {
                    path: path.to_owned(),
                }
            } else {
                OpenError::Io {
                    path: path.to_owned(),
                    source,
                }
            }
        })?;
        Self::map(path, file, &meta)
    }

    fn map(path: &Path, file: File, meta: &std::fs::Metadata) -> Result<Self, OpenError> {
        let bytes = if meta.len() == 0 {
            // Mapping an empty file fails on some systems; there is nothing to map.
            Bytes::new()
        } else {
            // SAFETY: the map is read-only and private to this process. The bytes are only
            // read through bounds-checked slices and never trusted, so concurrent writes by
            // another process cannot violate memory safety here. Truncation by another
            // process while mapped raises SIGBUS, which the watch turns into zero pages and
            // a mark that `changed` reports.
            let map = unsafe { MmapOptions::new().map(&file) }.map_err(|source| OpenError::Io {
                path: path.to_owned(),
                source,
            })?;
            // Only a hint: readers go from the start to the end. Windows has no such hint.
            #[cfg(unix)]
            let _ = map.advise(memmap2::Advice::Sequential);
            let watch = guard::watch(map.as_ptr(), map.len());
            Bytes::from_owner(Watched { _watch: watch, map })
        };
        Ok(ModelFile {
            path: path.to_owned(),
            bytes,
            opened: Some((file, Snapshot::of(meta))),
            #[cfg(all(unix, feature = "remote"))]
            sparse: None,
            listing: None,
        })
    }

    /// A remote file named `url`, whose bytes are fetched into `sparse`.
    #[cfg(all(unix, feature = "remote"))]
    pub fn remote(url: &str, sparse: sparse::Sparse) -> Self {
        let sparse = std::sync::Arc::new(sparse);
        let path = PathBuf::from(url);
        open::insert(&path, &sparse);
        ModelFile::of_sparse(path, sparse)
    }

    #[cfg(all(unix, feature = "remote"))]
    fn of_sparse(path: PathBuf, sparse: std::sync::Arc<sparse::Sparse>) -> Self {
        ModelFile {
            path,
            bytes: Bytes::from_owner(SparseBytes(sparse.clone())),
            opened: None,
            sparse: Some(sparse),
            listing: None,
        }
    }

    /// The remote file shown as `url`, while it is open (for its tensor bytes after the
    /// analysis: the same file, with what was fetched of it); an error once it is not.
    pub fn reopen_remote(url: &str) -> Result<Self, OpenError> {
        #[cfg(all(unix, feature = "remote"))]
        if let Some(sparse) = open::get(Path::new(url)) {
            return Ok(ModelFile::of_sparse(PathBuf::from(url), sparse));
        }
        Err(OpenError::Remote {
            url: url.to_owned(),
            cause: "it is no longer open, and a remote file is not fetched again by its path"
                .to_owned(),
        })
    }

    /// Fetches the tensor bytes of `block`, a part of this file's map, if the file is remote;
    /// they are let go of again by [`ModelFile::release`]. Nothing for a local file. A
    /// failure is an error here and of [`ModelFile::fetch_touched`], so that the file is not
    /// reported as read.
    pub fn fetch_tensors(&self, block: &[u8]) -> Result<(), OpenError> {
        #[cfg(all(unix, feature = "remote"))]
        if let (Some(sparse), Some(range)) = (&self.sparse, self.range_of(block)) {
            sparse
                .fetch_tensors(&[range])
                .map_err(|cause| self.remote_error(cause))?;
        }
        #[cfg(not(all(unix, feature = "remote")))]
        let _ = block;
        Ok(())
    }

    /// Where `block` is in this file's map, if it is a part of it.
    #[cfg(all(unix, feature = "remote"))]
    fn range_of(&self, block: &[u8]) -> Option<ByteRange> {
        let start = (block.as_ptr() as usize).checked_sub(self.bytes.as_ptr() as usize)?;
        (start <= self.bytes.len() && block.len() <= self.bytes.len() - start).then_some(
            ByteRange {
                start: start as u64,
                len: block.len() as u64,
            },
        )
    }

    /// The same remote file again, sharing what is fetched of it: for a data file that a
    /// reader opens once per reading of its model.
    #[cfg(all(unix, feature = "remote"))]
    pub fn again(&self) -> Self {
        ModelFile {
            path: self.path.clone(),
            bytes: self.bytes.clone(),
            opened: None,
            sparse: self.sparse.clone(),
            listing: self.listing.clone(),
        }
    }

    /// This remote file, with `listing` to look beside it.
    pub fn with_listing(mut self, listing: std::sync::Arc<dyn Listing>) -> Self {
        self.listing = Some(listing);
        self
    }

    /// What is beside a remote model that was listed; `None` for a local file or a URL
    /// whose server lists nothing.
    pub fn listing(&self) -> Option<&std::sync::Arc<dyn Listing>> {
        self.listing.as_ref()
    }

    /// What was fetched of a remote file; `None` for a local one.
    #[cfg(all(unix, feature = "remote"))]
    pub fn fetched(&self) -> Option<fetched::Fetched> {
        Some(self.sparse.as_ref()?.fetched())
    }

    /// Fetches the parts of `wanted` a remote file lacks (its fetch plan); returns the bytes
    /// fetched, 0 for a local file.
    #[cfg(all(unix, feature = "remote"))]
    pub fn fetch(&self, wanted: &[ByteRange]) -> Result<u64, OpenError> {
        let Some(sparse) = &self.sparse else {
            return Ok(0);
        };
        sparse
            .fetch(wanted)
            .map_err(|cause| self.remote_error(cause))
    }

    /// Where a remote file is and what it cost; `None` for a local one.
    pub fn provenance(&self) -> Option<Provenance> {
        #[cfg(all(unix, feature = "remote"))]
        {
            let mut provenance = self.sparse.as_ref()?.provenance();
            let data = self.listing.as_ref().map(|l| l.cost());
            provenance.data_files = data.filter(|c| c.files > 0);
            Some(provenance)
        }
        #[cfg(not(all(unix, feature = "remote")))]
        None
    }

    #[cfg(all(unix, feature = "remote"))]
    fn remote_error(&self, cause: String) -> OpenError {
        OpenError::Remote {
            url: self.path.display().to_string(),
            cause,
        }
    }

    /// Whether the file is remote: nothing beside it is on this machine.
    pub fn is_remote(&self) -> bool {
        #[cfg(all(unix, feature = "remote"))]
        return self.sparse.is_some();
        #[cfg(not(all(unix, feature = "remote")))]
        false
    }

    /// For a remote file, fetches the holes read since the last call: `Ok(true)` if there
    /// were any, so what was read from them must be read again. Always `Ok(false)` for a
    /// local file.
    pub fn fetch_touched(&self) -> Result<bool, OpenError> {
        let beside = match &self.listing {
            Some(listing) => listing.fetch_touched()?,
            None => false,
        };
        #[cfg(all(unix, feature = "remote"))]
        if let Some(sparse) = &self.sparse {
            if let Some(cause) = sparse.failure() {
                return Err(self.remote_error(cause));
            }
            let (touched, more) = sparse.take_touched();
            if touched.is_empty() {
                return Ok(more || beside);
            }
            sparse
                .fetch(&touched)
                .map_err(|cause| self.remote_error(cause))?;
            return Ok(true);
        }
        Ok(beside)
    }

    /// Tells the kernel that `block`, a page-aligned part of this file's map that has been
    /// read, is not needed again: a pass over every byte (hashing) then keeps only the pages
    /// it is reading in memory, not the whole file. The bytes stay readable; a later read
    /// pages them in again. A block outside the map, or not page-aligned, is left alone.
    /// A remote file lets go of the tensor bytes fetched in `block` ([`ModelFile::fetch_tensors`]).
    pub fn release(&self, block: &[u8]) {
        #[cfg(all(unix, feature = "remote"))]
        if let Some(sparse) = &self.sparse {
            if let Some(r) = self.range_of(block) {
                sparse.forget(r.start, r.end());
            }
            return;
        }
        #[cfg(unix)]
        self.advise(block, libc::MADV_DONTNEED);
        #[cfg(not(unix))]
        let _ = block;
    }

    /// Tells the kernel that `block`, a page-aligned part of this file's map, will be read
    /// soon, so that it starts reading it from the disk: a read-ahead hint for a pass that
    /// reads the map in order. A block outside the map, or not page-aligned, is left alone.
    pub fn will_need(&self, block: &[u8]) {
        #[cfg(unix)]
        self.advise(block, libc::MADV_WILLNEED);
        #[cfg(not(unix))]
        let _ = block;
    }

    /// Gives the kernel `advice` about `block`, if it is a page-aligned part of this file's map.
    #[cfg(unix)]
    fn advise(&self, block: &[u8], advice: libc::c_int) {
        let (start, end) = (self.bytes.as_ptr() as usize, self.bytes.len());
        let at = block.as_ptr() as usize;
        let inside = at >= start && at - start + block.len() <= end;
        if inside && at % 4096 == 0 && !block.is_empty() && self.opened.is_some() {
            // SAFETY: the range lies inside this file's private, read-only map, and neither
            // advice changes a byte a reader sees: MADV_DONTNEED drops pages, which are read
            // from the file again, and MADV_WILLNEED reads them in ahead of time.
            unsafe { libc::madvise(at as *mut libc::c_void, block.len(), advice) };
        }
    }

    /// Releases the whole map (see [`ModelFile::release`]): a reader that has walked a large
    /// structure keeps only the pages it reads next in memory, not every page it has read.
    pub fn release_all(&self) {
        self.release(&self.bytes);
    }

    /// Up to `len` bytes from `offset`, fewer at the end of the file. They are read from the
    /// open file rather than the map: a reader that looks at a few bytes every megabyte
    /// (Paddle's record headers) would otherwise map the pages around each of them. A file
    /// that cannot be read this way, or an in-memory one, is copied from the map.
    pub fn read_at(&self, offset: u64, len: usize) -> Vec<u8> {
        let size = self.bytes.len() as u64;
        let len = usize::try_from(size.saturating_sub(offset)).map_or(len, |left| left.min(len));
        let mut buf = vec![0; len];
        #[cfg(unix)]
        if let Some((file, _)) = &self.opened {
            use std::os::unix::fs::FileExt;
            if file.read_exact_at(&mut buf, offset).is_ok() {
                return buf;
            }
        }
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        if let Some(part) = self.bytes.get(start..).and_then(|b| b.get(..len)) {
            buf.copy_from_slice(part);
        }
        buf
    }

    /// Which file this is (device and inode), if it was opened from the file system.
    pub fn identity(&self) -> Option<FileIdentity> {
        let (file, _) = self.opened.as_ref()?;
        FileIdentity::of(&file.metadata().ok()?)
    }

    /// Whether another process changed the file while it was mapped: a page went missing
    /// (the file shrank), or its size or modification time is no longer what it was.
    pub fn changed(&self) -> Option<OpenError> {
        let (file, before) = self.opened.as_ref()?;
        let now = file.metadata().ok().map(|m| Snapshot::of(&m));
        let what = if guard::changed(&self.bytes) {
            "it shrank under the map".to_owned()
        } else if now.map(|n| n.len) != Some(before.len) {
            let now = now.map_or("unknown".to_owned(), |n| n.len.to_string());
            format!("its size went from {} to {now} bytes", before.len)
        } else if now.map(|n| n.modified) != Some(before.modified) {
            "it was written to".to_owned()
        } else {
            return None;
        };
        Some(OpenError::ChangedWhileRead {
            path: self.path.clone(),
            what,
        })
    }

    /// A model held in memory, named `path` in reports (for tests and fuzzing).
    pub fn in_memory(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Self {
        ModelFile {
            path: path.into(),
            bytes: Bytes::from(bytes),
            opened: None,
            #[cfg(all(unix, feature = "remote"))]
            sparse: None,
            listing: None,
        }
    }

    /// The file's path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The whole file content.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The content as a shared, reference-counted buffer (no copy).
    pub fn shared(&self) -> Bytes {
        self.bytes.clone()
    }
}

/// Opens the regular file at `path` for reading; with `no_follow`, without following any
/// symlink (`path` must be canonical). A file that is not `expected`, when that is known, is
/// refused. Nothing but a regular file is ever opened.
fn open_regular(
    path: &Path,
    no_follow: bool,
    expected: Option<FileIdentity>,
) -> Result<(File, std::fs::Metadata), OpenError> {
    let io_err = |source| OpenError::Io {
        path: path.to_owned(),
        source,
    };
    let not_a_file = || OpenError::NotAFile {
        path: path.to_owned(),
    };
    // Look before opening: opening a FIFO would block until a writer appears.
    if !std::fs::metadata(path).map_err(io_err)?.is_file() {
        return Err(not_a_file());
    }
    let file = open_read_only(path, no_follow).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(not_a_file());
    }
    if expected.is_some() && FileIdentity::of(&meta) != expected {
        return Err(OpenError::Changed {
            path: path.to_owned(),
        });
    }
    Ok((file, meta))
}

/// A folder named on the command line, opened once for a scan. A symlink naming it is
/// followed, since the user named it; below it none is. The files the scan finds are opened
/// from this descriptor one folder at a time with `O_NOFOLLOW`, and only if each is still
/// the file the scan saw. Where there is no `openat` (Windows) they are opened by path.
#[derive(Debug)]
pub struct ScanRoot {
    path: PathBuf,
    #[cfg(unix)]
    dir: File,
}

impl ScanRoot {
    /// Opens the folder at `path`.
    pub fn open(path: &Path) -> io::Result<Self> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let flags = (OPEN_FLAGS & !libc::O_RDONLY) | libc::O_DIRECTORY;
            let dir = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(flags)
                .open(path)?;
            Ok(ScanRoot {
                path: path.to_owned(),
                dir,
            })
        }
        #[cfg(not(unix))]
        {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::other("not a folder"));
            }
            Ok(ScanRoot {
                path: path.to_owned(),
            })
        }
    }

    /// Opens the regular file at `path` below this folder, refusing a symlink on the way and
    /// a file other than `expected`, both as a [`Replaced`] error.
    fn open_file(
        &self,
        path: &Path,
        expected: Option<FileIdentity>,
    ) -> io::Result<(File, std::fs::Metadata)> {
        #[cfg(unix)]
        let file = {
            use std::os::fd::AsFd;
            let below = path.strip_prefix(&self.path).map_err(|_| invalid_path())?;
            open_below(self.dir.as_fd(), &normal_names(below.components())?)?
        };
        #[cfg(not(unix))]
        let file = open_read_only(path, false)?;
        let meta = file.metadata()?;
        if !meta.is_file() || FileIdentity::of(&meta) != expected {
            return Err(replaced());
        }
        Ok((file, meta))
    }
}

/// Up to `limit` bytes from the start of the regular file at `path`, which a scan of `root`
/// found as `expected`, for deciding what it is without mapping it. It is opened as
/// [`ModelFile::open_in`] opens it.
pub fn read_head(
    root: &ScanRoot,
    path: &Path,
    expected: Option<FileIdentity>,
    limit: usize,
) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let (file, _) = root.open_file(path, expected)?;
    let mut head = Vec::with_capacity(limit.min(1 << 16));
    file.take(limit as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Why an open was refused: what is at the path is not the file that was checked.
#[derive(Debug, thiserror::Error)]
#[error("a folder or the file was replaced since it was checked; not followed")]
struct Replaced;

fn replaced() -> io::Error {
    io::Error::other(Replaced)
}

fn is_replaced(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Replaced>())
}

fn invalid_path() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a canonical path")
}

/// Flags for every open: never block (a FIFO swapped in after the metadata check opens at
/// once rather than waiting for a writer) and never become the controlling terminal.
#[cfg(unix)]
const OPEN_FLAGS: libc::c_int =
    libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY;

/// Opens `path` for reading. With `no_follow`, `path` must be canonical and is opened one
/// folder at a time without following any symlink (see [`open_no_symlinks`]).
fn open_read_only(path: &Path, no_follow: bool) -> io::Result<File> {
    #[cfg(unix)]
    if no_follow {
        return open_no_symlinks(path);
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(OPEN_FLAGS & !libc::O_RDONLY);
    }
    #[cfg(not(unix))]
    let _ = no_follow;
    options.open(path)
}

/// Opens the canonical absolute `path` from the root down (see [`open_below`]). A canonical
/// path has no symlinks, so meeting one means a folder or the file was swapped after it was
/// checked: the open fails instead of following it out of the model's folder.
#[cfg(unix)]
fn open_no_symlinks(path: &Path) -> io::Result<File> {
    use std::os::fd::AsFd;
    let mut parts = path.components();
    if parts.next() != Some(std::path::Component::RootDir) {
        return Err(invalid_path());
    }
    let root = File::open("/")?;
    open_below(root.as_fd(), &normal_names(parts)?)
}

/// The names of `parts`, which must all be plain names (no `.`, `..` or root).
#[cfg(unix)]
fn normal_names(parts: std::path::Components<'_>) -> io::Result<Vec<&std::ffi::OsStr>> {
    parts
        .map(|c| match c {
            std::path::Component::Normal(name) => Ok(name),
            _ => Err(invalid_path()),
        })
        .collect()
}

/// Opens the regular file `names` below the folder `dir`, one component at a time with
/// `openat(O_NOFOLLOW)`: a symlink anywhere on the way, or a last component that is not a
/// regular file, is a [`Replaced`] error. The last component is looked at before it is
/// opened, so no device is ever opened.
#[cfg(unix)]
fn open_below(dir: std::os::fd::BorrowedFd<'_>, names: &[&std::ffi::OsStr]) -> io::Result<File> {
    use std::ffi::CString;
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;

    let Some((file_name, folders)) = names.split_last() else {
        return Err(invalid_path());
    };
    let c_name = |name: &std::ffi::OsStr| CString::new(name.as_bytes()).map_err(|_| invalid_path());
    let at = |dir: BorrowedFd<'_>, name: &std::ffi::OsStr, flags: libc::c_int| {
        let name = c_name(name)?;
        // SAFETY: `dir` is an open descriptor and `name` a NUL-terminated string; on
        // success the new descriptor is owned by nobody else.
        let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags) };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ELOOP | libc::ENOTDIR) => replaced(),
                _ => e,
            });
        }
        // SAFETY: `fd` was just opened and is owned here only.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    };
    let mut folder: Option<OwnedFd> = None;
    for name in folders {
        let parent = folder.as_ref().map_or(dir, |f| f.as_fd());
        let flags = OPEN_FLAGS | libc::O_DIRECTORY | libc::O_NOFOLLOW;
        folder = Some(at(parent, name, flags)?);
    }
    let parent = folder.as_ref().map_or(dir, |f| f.as_fd());
    let name = c_name(file_name)?;
    // SAFETY: an all-zero `stat` is a valid value for fstatat to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, NUL-terminated name and a writable `stat`.
    let rc = unsafe {
        libc::fstatat(
            parent.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(replaced());
    }
    Ok(File::from(at(
        parent,
        file_name,
        OPEN_FLAGS | libc::O_NOFOLLOW,
    )?))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_checked_file_must_still_be_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.data"), dir.path().join("b.data"));
        std::fs::write(&a, b"aaaa").unwrap();
        std::fs::write(&b, b"bbbb").unwrap();
        let identity = |p: &Path| FileIdentity::of(&std::fs::metadata(p).unwrap());
        let same = ModelFile::open_checked(&a, identity(&a)).unwrap();
        assert_eq!(same.bytes(), b"aaaa");
        // b was swapped in for the a that was checked.
        let swapped = ModelFile::open_checked(&b, identity(&a));
        assert!(matches!(swapped, Err(OpenError::Changed { .. })));
        // A symlink put in place of the checked file is not followed.
        let link = dir.path().join("link.data");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let followed = ModelFile::open_checked(&link, identity(&a));
        assert!(matches!(followed, Err(OpenError::Io { .. })));
    }

    #[test]
    fn a_scanned_file_is_opened_from_its_folder_following_no_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let (scanned, outside) = (dir.path().join("scanned"), dir.path().join("outside"));
        std::fs::create_dir_all(scanned.join("sub")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let file = scanned.join("sub/m.onnx");
        std::fs::write(&file, b"mmmm").unwrap();
        let identity = FileIdentity::of(&std::fs::symlink_metadata(&file).unwrap());
        let root = ScanRoot::open(&scanned).unwrap();
        assert_eq!(
            ModelFile::open_in(&root, &file, identity).unwrap().bytes(),
            b"mmmm"
        );
        assert_eq!(read_head(&root, &file, identity, 2).unwrap(), b"mm");
        let changed = |r: Result<ModelFile, OpenError>| matches!(r, Err(OpenError::Changed { .. }));
        // Another file in its place.
        let other = scanned.join("sub/other.onnx");
        std::fs::write(&other, b"oooo").unwrap();
        assert!(changed(ModelFile::open_in(&root, &other, identity)));
        // The same inode reached through a folder swapped for a symlink.
        std::fs::rename(scanned.join("sub"), outside.join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.join("sub"), scanned.join("sub")).unwrap();
        assert!(changed(ModelFile::open_in(&root, &file, identity)));
        let head = read_head(&root, &file, identity, 2)
            .err()
            .map(|e| e.to_string());
        assert!(head.unwrap_or_default().contains("replaced"));
        // The file itself swapped for a symlink to it.
        std::fs::remove_file(scanned.join("sub")).unwrap();
        std::fs::create_dir(scanned.join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.join("sub/m.onnx"), &file).unwrap();
        assert!(changed(ModelFile::open_in(&root, &file, identity)));
        // A path that is not below the folder is refused.
        let elsewhere = ModelFile::open_in(&root, &outside.join("sub/m.onnx"), identity);
        assert!(matches!(elsewhere, Err(OpenError::Io { .. })));
    }

    #[test]
    fn a_file_that_shrinks_under_the_map_is_a_change_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.rten");
        std::fs::write(&path, vec![7u8; 3 * 4096]).unwrap();
        let file = ModelFile::open(&path).unwrap();
        assert!(file.changed().is_none());
        let last = file.bytes().len() - 1;
        assert_eq!(file.bytes()[last], 7);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        // Without the watch, this read would end the process with SIGBUS.
        assert_eq!(std::hint::black_box(file.bytes())[last], 0);
        let message = file.changed().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("shrank"), "{message}");
        // Another file's map is not marked.
        let other = dir.path().join("o.rten");
        std::fs::write(&other, vec![1u8; 4096]).unwrap();
        assert!(ModelFile::open(&other).unwrap().changed().is_none());
    }

    #[test]
    fn a_file_written_to_while_mapped_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.onnx");
        std::fs::write(&path, b"abcd").unwrap();
        let file = ModelFile::open(&path).unwrap();
        std::fs::write(&path, b"abcdef").unwrap();
        let message = file.changed().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("from 4 to 6 bytes"), "{message}");
    }

    #[test]
    fn a_folder_swapped_for_a_symlink_is_not_followed() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let (model, outside) = (root.join("model"), root.join("outside"));
        std::fs::create_dir_all(model.join("sub")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let checked = model.join("sub/w.data");
        std::fs::write(&checked, b"wwww").unwrap();
        let identity = FileIdentity::of(&std::fs::metadata(&checked).unwrap());
        assert!(ModelFile::open_checked(&checked, identity).is_ok());
        // The same inode outside the folder, then `sub` swapped for a symlink to it: the
        // identity still matches, so only refusing the symlink keeps the read inside.
        std::fs::hard_link(&checked, outside.join("w.data")).unwrap();
        std::fs::remove_file(&checked).unwrap();
        std::fs::remove_dir(model.join("sub")).unwrap();
        std::os::unix::fs::symlink(&outside, model.join("sub")).unwrap();
        let swapped = ModelFile::open_checked(&checked, identity);
        let message = swapped.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("replaced since it was checked"),
            "{message}"
        );
        // A FIFO in place of the file is not opened either.
        std::fs::remove_file(model.join("sub")).unwrap();
        std::fs::create_dir(model.join("sub")).unwrap();
        let status = std::process::Command::new("mkfifo").arg(&checked).status();
        assert!(status.unwrap().success());
        let fifo = open_no_symlinks(&checked).err().map(|e| e.to_string());
        assert!(fifo.unwrap_or_default().contains("replaced"));
        assert!(open_no_symlinks(Path::new("relative/w.data")).is_err());
    }
}
