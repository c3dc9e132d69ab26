//! SHA-256 of a model and its data files, for `check --hash sha256` and `sbom`.

use rtenx::report::FileHash;
use rtenx::source::{digest, ModelFile, OpenError};
use sha2::Sha256;

/// SHA-256 of the opened model `file` and of each data file of `inv` that exists, streamed
/// block by block so that memory stays small whatever their size.
pub fn model_and_data(
    file: &ModelFile,
    inv: &rtenx::Inventory,
) -> Result<Vec<FileHash>, OpenError> {
    let mut hashes = vec![FileHash {
        path: file.path().to_owned(),
        sha256: digest::of_file::<Sha256>(file, |_| ())?,
    }];
    for data in inv.files.iter().skip(1).filter(|f| f.size.is_some()) {
        hashes.push(FileHash {
            path: data.path.clone(),
            sha256: digest::of_file::<Sha256>(&data.reopen()?, |_| ())?,
        });
    }
    Ok(hashes)
}
