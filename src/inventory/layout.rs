//! Files and byte ranges.

pub use crate::source::ByteRange;
use crate::source::{FileIdentity, ModelFile, OpenError};
use serde::{Serialize, Serializer};
use std::path::{Path, PathBuf};

/// Index into [`super::Inventory::files`]; 0 is the model file.
pub type FileId = usize;

/// A file the model consists of.
#[derive(Debug, Clone, Serialize)]
pub struct FileEntry {
    /// The path as given or as resolved from the model; JSON keeps it byte for byte.
    #[serde(serialize_with = "serialize_path")]
    pub path: PathBuf,
    /// Size in bytes, if the file could be examined.
    pub size: Option<u64>,
    /// What the file holds.
    pub role: FileRole,
    /// Which file it was when read, so that opening it again later (to show tensor bytes)
    /// refuses a file swapped in meanwhile.
    #[serde(skip)]
    pub identity: Option<FileIdentity>,
}

impl FileEntry {
    /// A model file known by its path and size alone, such as one built in memory.
    pub fn model(path: impl Into<PathBuf>, size: u64) -> Self {
        FileEntry {
            path: path.into(),
            size: Some(size),
            role: FileRole::Model,
            identity: None,
        }
    }

    /// Opens the file again, to read tensor bytes after the analysis: the same file that was
    /// read, or an error. A data file the model names is at its canonical path and opened
    /// without following a symlink; the model and a data file named on the command line
    /// (kept as given, perhaps relative) are opened as they were. A file swapped in since is
    /// refused either way. A remote file is the one still open ([`ModelFile::reopen_remote`]).
    pub fn reopen(&self) -> Result<ModelFile, OpenError> {
        if let Some(url) = self
            .path
            .to_str()
            .filter(|p| crate::source::names_remote(p))
        {
            return ModelFile::reopen_remote(url);
        }
        match self.role {
            FileRole::ExternalData if self.path.is_absolute() => {
                ModelFile::open_checked(&self.path, self.identity)
            }
            _ => ModelFile::open_same(&self.path, self.identity),
        }
    }
}

fn serialize_path<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    crate::escape::JsonPath(path).serialize(s)
}

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileRole {
    /// The model file itself.
    Model,
    /// Tensor data referred to by the model.
    ExternalData,
}

/// A labelled region of a file.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// The file the range is in.
    pub file: FileId,
    /// What the bytes are.
    pub kind: SectionKind,
    /// The range.
    pub range: ByteRange,
}

/// What a section holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    /// A fixed file header.
    Header,
    /// The serialized graph structure (FlatBuffer, protobuf, ...).
    ModelData,
    /// Tensor bytes stored after the model data.
    TensorData,
    /// A whole external data file.
    ExternalData,
    /// Opaque bytes that are not tensors, such as a compiled backend's blob.
    BlobData,
    /// Bytes shorter than the format's alignment between two sections or tensors.
    Padding,
    /// Unused bytes longer than alignment padding.
    Gap,
    /// Bytes after the last section.
    Trailing,
}

impl SectionKind {
    /// True for sections a reader declares from the file's own structure, as opposed to
    /// the padding, gaps and trailing bytes found between them.
    pub fn is_declared(self) -> bool {
        matches!(
            self,
            Self::Header | Self::ModelData | Self::TensorData | Self::ExternalData | Self::BlobData
        )
    }

    /// Human-readable label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Header => "header",
            Self::ModelData => "model data",
            Self::TensorData => "tensor data",
            Self::ExternalData => "external data",
            Self::BlobData => "blob data",
            Self::Padding => "padding",
            Self::Gap => "gap",
            Self::Trailing => "trailing bytes",
        }
    }
}
