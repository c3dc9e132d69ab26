//! Read-only, memory-mapped access to a model file.

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
}

/// Which file a path led to when it was checked: its device and inode numbers. Opening the
/// path again and comparing identities detects a file or folder swapped in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    dev: u64,
    ino: u64,
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
/// findings but never undefined behaviour in rtenx's own code.
pub struct ModelFile {
    path: PathBuf,
    /// The content: a memory map, or owned bytes for empty and in-memory files. `Bytes`
    /// lets decoders hand out slices of the map without copying.
    bytes: Bytes,
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
        Self::open_with(path, false, None)
    }

    /// Opens and maps a data file that was checked to be `identity`, for one sequential
    /// pass over every byte (hashing): the pages are mapped up front and read ahead. A final
    /// symlink is not followed, and a file other than the one checked is refused.
    pub fn open_checked_for_streaming(
        path: &Path,
        identity: Option<FileIdentity>,
    ) -> Result<Self, OpenError> {
        Self::open_with(path, true, Some(identity))
    }

    fn open_with(
        path: &Path,
        streaming: bool,
        checked: Option<Option<FileIdentity>>,
    ) -> Result<Self, OpenError> {
        let io_err = |source| OpenError::Io {
            path: path.to_owned(),
            source,
        };
        // Look before opening: opening a FIFO would block until a writer appears.
        let not_a_file = || OpenError::NotAFile {
            path: path.to_owned(),
        };
        if !std::fs::metadata(path).map_err(io_err)?.is_file() {
            return Err(not_a_file());
        }
        let file = open_read_only(path, checked.is_some()).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return Err(not_a_file());
        }
        if let Some(Some(expected)) = checked {
            if FileIdentity::of(&meta) != Some(expected) {
                return Err(OpenError::Changed {
                    path: path.to_owned(),
                });
            }
        }
        let bytes = if meta.len() == 0 {
            // Mapping an empty file fails on some systems; there is nothing to map.
            Bytes::new()
        } else {
            // SAFETY: the map is read-only and private to this process. The bytes are only
            // read through bounds-checked slices and never trusted, so concurrent writes by
            // another process cannot violate memory safety here; truncation by another process
            // while mapped can still raise SIGBUS, which no mmap-based reader can prevent.
            let mut options = MmapOptions::new();
            if streaming {
                options.populate();
            }
            let map = unsafe { options.map(&file) }.map_err(io_err)?;
            if streaming {
                // Only a hint: reading works the same if the kernel ignores it.
                let _ = map.advise(memmap2::Advice::Sequential);
            }
            Bytes::from_owner(map)
        };
        Ok(ModelFile {
            path: path.to_owned(),
            bytes,
        })
    }

    /// A model held in memory, named `path` in reports (for tests and fuzzing).
    pub fn in_memory(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Self {
        ModelFile {
            path: path.into(),
            bytes: Bytes::from(bytes),
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

/// Up to `limit` bytes from the start of the regular file at `path`, for deciding what it is
/// without mapping it. A FIFO or device swapped in is refused without blocking.
pub fn read_head(path: &Path, limit: usize) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_read_only(path, false)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    let mut head = Vec::with_capacity(limit.min(1 << 16));
    file.take(limit as u64).read_to_end(&mut head)?;
    Ok(head)
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

/// Opens the canonical absolute `path` from the root down, one component at a time with
/// `openat(O_NOFOLLOW)`. A canonical path has no symlinks, so meeting one means a folder or
/// the file was swapped after it was checked: the open fails instead of following it out of
/// the model's folder. The last component must be a regular file before it is opened, so no
/// device is ever opened.
#[cfg(unix)]
fn open_no_symlinks(path: &Path) -> io::Result<File> {
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Component;

    let invalid = || io::Error::new(io::ErrorKind::InvalidInput, "not a canonical path");
    let mut parts = path.components();
    if parts.next() != Some(Component::RootDir) {
        return Err(invalid());
    }
    let names: Vec<&std::ffi::OsStr> = parts
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(invalid()),
        })
        .collect::<io::Result<_>>()?;
    let Some((file_name, folders)) = names.split_last() else {
        return Err(invalid());
    };
    let replaced =
        || io::Error::other("a folder or the file was replaced since it was checked; not followed");
    let at = |dir: &OwnedFd, name: &std::ffi::OsStr, flags: libc::c_int| -> io::Result<OwnedFd> {
        let name = CString::new(name.as_bytes()).map_err(|_| invalid())?;
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
    let root = File::open("/")?;
    let mut dir = OwnedFd::from(root);
    for name in folders {
        dir = at(
            &dir,
            name,
            OPEN_FLAGS | libc::O_DIRECTORY | libc::O_NOFOLLOW,
        )?;
    }
    let dir = File::from(dir);
    let name = CString::new(file_name.as_bytes()).map_err(|_| invalid())?;
    // SAFETY: an all-zero `stat` is a valid value for fstatat to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, NUL-terminated name and a writable `stat`.
    let rc = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
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
    let file = at(
        &OwnedFd::from(dir),
        file_name,
        OPEN_FLAGS | libc::O_NOFOLLOW,
    )?;
    Ok(File::from(file))
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
        let same = ModelFile::open_checked_for_streaming(&a, identity(&a)).unwrap();
        assert_eq!(same.bytes(), b"aaaa");
        // b was swapped in for the a that was checked.
        let swapped = ModelFile::open_checked_for_streaming(&b, identity(&a));
        assert!(matches!(swapped, Err(OpenError::Changed { .. })));
        // A symlink put in place of the checked file is not followed.
        let link = dir.path().join("link.data");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let followed = ModelFile::open_checked_for_streaming(&link, identity(&a));
        assert!(matches!(followed, Err(OpenError::Io { .. })));
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
        assert!(ModelFile::open_checked_for_streaming(&checked, identity).is_ok());
        // The same inode outside the folder, then `sub` swapped for a symlink to it: the
        // identity still matches, so only refusing the symlink keeps the read inside.
        std::fs::hard_link(&checked, outside.join("w.data")).unwrap();
        std::fs::remove_file(&checked).unwrap();
        std::fs::remove_dir(model.join("sub")).unwrap();
        std::os::unix::fs::symlink(&outside, model.join("sub")).unwrap();
        let swapped = ModelFile::open_checked_for_streaming(&checked, identity);
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
