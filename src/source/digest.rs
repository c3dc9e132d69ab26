//! File digests, streamed: the mapped file is hashed in blocks, each given back to the kernel
//! once hashed, so memory stays a few blocks whatever the file's size. `--verify-checksums`
//! (SHA-1) and `--hash sha256` share it.

use super::{FileIdentity, ModelFile, OpenError};
use std::path::Path;

/// Bytes hashed between progress reports and page releases.
pub const BLOCK: usize = 8 << 20;

/// Lower-case hex digest of `file`'s bytes, calling `advance` with each block's size. A file
/// that shrinks or changes meanwhile is an error; a remote one is fetched block by block.
pub fn of_file<D: sha2::Digest>(
    file: &ModelFile,
    advance: impl Fn(u64),
) -> Result<String, OpenError> {
    let mut hasher = D::new();
    for block in file.bytes().chunks(BLOCK) {
        file.fetch_tensors(block)?;
        hasher.update(block);
        file.release(block);
        advance(block.len() as u64);
    }
    match file.changed() {
        Some(change) => Err(change),
        None if file.is_remote() && file.fetch_touched()? => Err(OpenError::Remote {
            url: file.path().display().to_string(),
            cause: "hashing it met bytes not fetched".to_owned(),
        }),
        None => Ok(hex(&hasher.finalize())),
    }
}

/// Like [`of_file`], for the data file at `path`, which a reader opened as `identity`:
/// another file there now is refused. A remote one is the one still open.
pub fn of_path<D: sha2::Digest>(
    path: &Path,
    identity: Option<FileIdentity>,
    advance: impl Fn(u64),
) -> Result<String, OpenError> {
    let file = match path.to_str().filter(|p| super::names_remote(p)) {
        Some(url) => ModelFile::reopen_remote(url)?,
        None => ModelFile::open_same(path, identity)?,
    };
    of_file::<D>(&file, advance)
}

/// The git blob id of `file`'s bytes, as git and the Hub's tree API name a file stored in
/// git: SHA-1 of `blob SIZE\0` and the content, in lower-case hex.
pub fn git_blob_id(file: &ModelFile) -> String {
    use sha1::Digest;
    let mut hasher = sha1::Sha1::new();
    hasher.update(format!("blob {}\0", file.bytes().len()));
    hasher.update(file.bytes());
    hex(&hasher.finalize())
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

/// `bytes` in lower-case hex: two digits a byte, looked up rather than formatted, since every
/// finding's fingerprint is one.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_match_known_values() {
        let file = ModelFile::in_memory("abc", b"abc".to_vec());
        assert_eq!(
            of_file::<sha2::Sha256>(&file, |_| ()).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            of_file::<sha1::Sha1>(&file, |_| ()).unwrap(),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        // `printf abc | git hash-object --stdin`
        assert_eq!(
            git_blob_id(&file),
            "f2ba8f84ab5c1bce84a7b441cb1959cfc7093b7f"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            of_file::<sha2::Sha256>(&file, |_| ()).unwrap()
        );
    }
}
