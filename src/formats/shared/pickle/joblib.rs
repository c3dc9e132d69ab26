//! joblib's `NumpyArrayWrapper`: `joblib.dump` writes each array's bytes into the stream right
//! after the wrapper's `BUILD` (after a padding length byte and that much padding, when the
//! state has `numpy_array_alignment_bytes`), or a whole pickle there for an object array, and
//! `joblib.load` reads them from there. The machine must step over them to read on.

use super::ndarray::{dtype_of, WRAPPER};
use super::tree::Tree;
use super::value::{Id, Value};

/// What follows a wrapper's `BUILD`.
pub enum Layout {
    /// This many bytes of array data, after padding if `aligned`.
    Raw {
        /// Bytes of data.
        bytes: u64,
        /// Whether a padding length byte and padding come first.
        aligned: bool,
    },
    /// A pickle of the objects.
    Pickled,
}

/// Whether `id` is a joblib array wrapper.
pub fn is_wrapper(tree: &impl Tree, id: Id) -> bool {
    tree.call_of(id, &[WRAPPER]).is_some()
}

/// What follows the `BUILD` of the wrapper `id`; `None` if its state does not say.
pub fn layout(tree: &impl Tree, id: Id) -> Option<Layout> {
    let Some(Value::Call(call)) = tree.value(id) else {
        return None;
    };
    let state = call.state?;
    let descr = dtype_of(tree, tree.get(state, b"dtype")?)?;
    if descr.is_object() {
        return Some(Layout::Pickled);
    }
    let shape = tree.ints(tree.get(state, b"shape")?)?;
    let count = shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))?;
    Some(Layout::Raw {
        bytes: count.checked_mul(descr.itemsize)?,
        aligned: tree.get(state, b"numpy_array_alignment_bytes").is_some(),
    })
}
