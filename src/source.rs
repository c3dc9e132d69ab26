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

impl ModelFile {
    /// Opens and maps `path`.
    pub fn open(path: &Path) -> Result<Self, OpenError> {
        Self::open_with(path, false)
    }

    /// Opens and maps `path` for one sequential pass over every byte (hashing): the pages
    /// are mapped up front and read ahead, instead of faulting in one by one.
    pub fn open_for_streaming(path: &Path) -> Result<Self, OpenError> {
        Self::open_with(path, true)
    }

    fn open_with(path: &Path, streaming: bool) -> Result<Self, OpenError> {
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
        let file = File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return Err(not_a_file());
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
