//! What reports say of a remote file: where it is, what its server says of it, what it cost.

/// Whether `path` names a remote file (`hf://`, `https://`, `http://`) rather than a local one.
pub fn names_remote(path: &str) -> bool {
    ["hf://", "https://", "http://"].iter().any(|scheme| {
        path.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    })
}

/// Where a remote file is and what its server says of it, for reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Provenance {
    /// The URL its bytes were read from (before redirects).
    pub url: String,
    /// The commit a Hub revision resolved to (`X-Repo-Commit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// An LFS file's SHA-256, as the Hub records it (`X-Linked-Etag`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The `ETag` of the first answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// The file's size.
    pub size: u64,
    /// Bytes read from the network for it.
    pub fetched: u64,
    /// Requests made for it.
    pub requests: u64,
    /// What the data files read beside it cost (shards, split parts, external data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_files: Option<Cost>,
}

/// What a model's data files cost, all together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    /// How many were fetched.
    pub files: u64,
    /// Their size in bytes.
    pub size: u64,
    /// Bytes read from the network for them.
    pub fetched: u64,
    /// Requests made for them.
    pub requests: u64,
}

impl Cost {
    /// Adds what `file` cost.
    pub fn add(&mut self, file: &Provenance) {
        self.files += 1;
        self.size += file.size;
        self.fetched += file.fetched;
        self.requests += file.requests;
    }
}
