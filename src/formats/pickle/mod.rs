//! Pickle files: plain pickles (`.pkl`, `.pickle`, joblib's `.joblib`) and PaddlePaddle's
//! pickled checkpoints (`.pdparams`, `.pdopt`, `.pdtensor`), read and judged without running
//! them.
//!
//! The whole file is one pickle: the shared machine (`formats/shared/pickle`) reads it, the
//! bytes after its `STOP` are read as the second pickle a second `load` would see, and every
//! import is judged. NumPy arrays found by key path (a Paddle state dict of names to arrays,
//! Paddle's `(name, array)` tuples and its bare-tensor `eval` form, joblib's wrapped arrays)
//! become tensors with the byte range of their raw bytes inside the pickle. Detection is by
//! reading: bytes are a pickle when the unpickler reads their first opcodes without an error,
//! whatever the first one is ([`pickle::sniff`]).

mod load;
mod paddle;
pub mod rules;

use crate::check::Findings;
use crate::formats::shared::context::Context;
use crate::formats::shared::{compressed, pickle};
use crate::formats::{About, Detection, Format, ReadOptions};
use crate::inventory::Inventory;
use crate::source::ModelFile;

/// Opcodes that must read cleanly for bytes to be a pickle: enough to tell one from text.
const SNIFFED: u64 = 2;

/// Bytes of a compressed file inflated to tell whether it holds a pickle.
const HEAD: usize = 4096;

/// Whether `bytes` are a pickle that joblib compressed.
fn compressed_pickle(bytes: &[u8]) -> bool {
    let head = compressed::wrapper(bytes).and_then(|w| compressed::inflate(bytes, w, HEAD));
    head.is_some_and(|(head, _)| pickle::sniff(&head, SNIFFED))
}

/// Pickle files.
pub struct Pickles;

static ABOUT: About = About {
    name: "pickle",
    extensions: &["pkl", "pickle", "joblib", "pdparams", "pdopt", "pdtensor"],
    rules: &rules::GROUP,
};

impl Format for Pickles {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if pickle::sniff(bytes, SNIFFED) {
            Detection::Plausible
        } else if compressed_pickle(bytes) {
            // A compressed stream that decompresses to a pickle: both say what it is.
            Detection::Magic
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        // Pickles align nothing; their loaders copy every array.
        cx.inv.preferred_alignment = Some(1);
        load::read(&mut cx);
        cx.inv
    }
}
