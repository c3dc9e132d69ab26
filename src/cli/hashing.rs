//! SHA-256 of a model and its data files, for `check --hash sha256`, `--expect-hub` and
//! `sbom`.

use rtenx::report::FileHash;
use rtenx::source::{digest, ModelFile, OpenError};
use sha2::Sha256;

/// SHA-256 of the opened model `file` and of each data file of `inv` that exists, streamed
/// block by block so that memory stays small whatever their size. A remote file is not
/// downloaded to be hashed: its SHA-256 is the one the Hub records for it (an LFS file's),
/// and a data file's the one its repository's listing records; one the server does not give
/// is an error. With `git_blobs`, a local file the Hub could store in git also gets its git
/// blob id, from the same open file.
pub fn model_and_data(
    file: &ModelFile,
    inv: &rtenx::Inventory,
    git_blobs: bool,
) -> Result<Vec<FileHash>, OpenError> {
    if let Some(remote) = file.provenance() {
        let unrecorded = |path: &std::path::Path| {
            OpenError::Remote {
            url: path.display().to_string(),
            cause: "its server records no SHA-256 of it (X-Linked-Etag, or the listing's LFS oid), and a remote file is not downloaded to be hashed".to_owned(),
        }
        };
        let sha256 = remote.sha256.ok_or_else(|| unrecorded(file.path()))?;
        let path = file.path().to_owned();
        let mut hashes = vec![FileHash {
            path,
            sha256,
            size: remote.size,
            git_blob: None,
        }];
        for data in inv.files.iter().skip(1).filter(|f| f.size.is_some()) {
            let recorded = file.listing().and_then(|l| l.sha256(&data.path));
            hashes.push(FileHash {
                path: data.path.clone(),
                sha256: recorded.ok_or_else(|| unrecorded(&data.path))?,
                size: data.size.unwrap_or_default(),
                git_blob: None,
            });
        }
        return Ok(hashes);
    }
    let mut hashes = vec![local(file, file.path(), git_blobs)?];
    for data in inv.files.iter().skip(1).filter(|f| f.size.is_some()) {
        hashes.push(local(&data.reopen()?, &data.path, git_blobs)?);
    }
    Ok(hashes)
}

/// The Hub keeps a file larger than this in LFS, never in git.
const GIT_STORED: u64 = 10 << 20;

/// What is hashed of the local `file`, shown as `path`.
fn local(file: &ModelFile, path: &std::path::Path, git_blobs: bool) -> Result<FileHash, OpenError> {
    let size = file.bytes().len() as u64;
    Ok(FileHash {
        path: path.to_owned(),
        sha256: digest::of_file::<Sha256>(file, |_| ())?,
        size,
        git_blob: (git_blobs && size <= GIT_STORED).then(|| digest::git_blob_id(file)),
    })
}
