//! Which Keras file an HDF5 file is, as far as the names near its start tell (no structure
//! is parsed: for detection, which must be cheap and look at the first bytes only).

use super::superblock::Superblock;
use crate::formats::shared::bytes::{self, head};

/// What an HDF5 file holds, as far as names near its start tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// A legacy Keras model (`model.save("x.h5")`): the root attribute `model_config`.
    KerasModel,
    /// Keras weights: the root attribute `layer_names` (`save_weights` to `.h5`), or the
    /// groups `layers` and `vars` (Keras 3 `.weights.h5`; names in a local heap end with a
    /// NUL, names in link messages do not).
    KerasWeights,
    /// Any other HDF5 file.
    Other,
}

/// Bytes after the superblock looked through for Keras' names: the root group's object
/// header and local heap, where h5py writes them, lie in the first few KiB.
const WINDOW: usize = 64 << 10;

/// A user block a format's detection looks past: the signature stays in the first page, so
/// that detecting any file (a remote one fetched by pages) reads no more of it.
pub const FIRST_PAGE: u64 = 2048;

/// What the HDF5 file `bytes` is, or `None` if it is not HDF5, looking for its signature after
/// a user block of at most `within` bytes.
pub fn hint(bytes: &[u8], within: u64) -> Option<Hint> {
    let start = Superblock::find_within(bytes, within)?;
    let window = head(bytes::from(bytes, start).unwrap_or_default(), WINDOW);
    let has = |name: &[u8]| window.windows(name.len()).any(|w| w == name);
    Some(if has(b"model_config") {
        Hint::KerasModel
    } else if has(b"layer_names") || (has(b"layers") && has(b"vars")) {
        Hint::KerasWeights
    } else {
        Hint::Other
    })
}
