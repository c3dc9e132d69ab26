//! NumPy arrays: dtype strings (`<f4`, `|b1`, `<U3`) as `.npy` headers and pickled dtypes
//! write them, and the four shapes an array takes in a pickle: `_reconstruct` with a `BUILD`
//! state (protocols 0 to 4), `_frombuffer` (protocol 5), a scalar, and joblib's wrapper.

use super::tree::Tree;
use super::value::{Id, Span, Value};
use super::Source;
use crate::inventory::{DType, DataRange, Name, Storage, Tensor};

/// A NumPy dtype string: byte order, kind and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descr {
    /// `<`, `>`, `|` or `=`.
    pub order: u8,
    /// The kind: `f`, `i`, `u`, `b`, `c`, `U`, `S`, `V`, `O`, `M`, `m`.
    pub kind: u8,
    /// Bytes per element.
    pub itemsize: u64,
}

impl Descr {
    /// Parses `<f4`, `f4`, `|b1`, `<U3` (3 UCS-4 characters), `|O`, `<M8[s]`.
    pub fn parse(text: &[u8]) -> Option<Descr> {
        let (order, rest) = match text.split_first()? {
            (&o @ (b'<' | b'>' | b'|' | b'='), rest) => (o, rest),
            _ => (b'=', text),
        };
        let (&kind, rest) = rest.split_first()?;
        let digits_end = rest
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        let (digits, unit) = rest.split_at(digits_end);
        if !(unit.is_empty() || unit.starts_with(b"[") && unit.ends_with(b"]")) {
            return None;
        }
        let size: u64 = match std::str::from_utf8(digits).ok()? {
            "" if kind == b'O' => 8,
            "" if kind == b'b' => 1,
            "" => return None,
            d => d.parse().ok()?,
        };
        let itemsize = match kind {
            b'U' => size.checked_mul(4)?,
            b'f' | b'i' | b'u' | b'b' | b'c' | b'S' | b'V' | b'O' | b'M' | b'm' | b'a' => size,
            _ => return None,
        };
        Some(Descr {
            order,
            kind,
            itemsize,
        })
    }

    /// The element type rtenx names it by, for numeric and bool kinds.
    pub fn dtype(&self) -> Option<DType> {
        Some(match (self.kind, self.itemsize) {
            (b'f', 2) => DType::F16,
            (b'f', 4) => DType::F32,
            (b'f', 8) => DType::F64,
            (b'i', 1) => DType::I8,
            (b'i', 2) => DType::I16,
            (b'i', 4) => DType::I32,
            (b'i', 8) => DType::I64,
            (b'u', 1) => DType::U8,
            (b'u', 2) => DType::U16,
            (b'u', 4) => DType::U32,
            (b'u', 8) => DType::U64,
            (b'b', 1) => DType::Bool,
            (b'c', 8) => DType::Complex64,
            (b'c', 16) => DType::Complex128,
            _ => return None,
        })
    }

    /// Whether elements are Python objects: the data is a pickle.
    pub fn is_object(&self) -> bool {
        self.kind == b'O'
    }
}

/// Where an array's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Data {
    /// Raw bytes at this span of the buffer.
    Raw(Span),
    /// Text that `_codecs.encode(text, 'latin1')` turns into the bytes (protocols 0 to 2):
    /// not the raw bytes.
    Encoded,
    /// Python objects, pickled (an object array).
    Objects,
    /// A protocol 5 buffer passed outside the file.
    OutOfBand,
    /// Nowhere rtenx can tell.
    Unknown,
}

/// A NumPy array found in a pickle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Array {
    /// Its dtype, if readable.
    pub descr: Option<Descr>,
    /// Its shape; `None` if unreadable or negative.
    pub shape: Option<Vec<u64>>,
    /// Where its bytes are.
    pub data: Data,
    /// Position of the call that makes it.
    pub at: u64,
}

impl Array {
    /// The inventory's tensor for the array, named `name`, read from `src`: its data is
    /// inline, with a byte range when its raw bytes lie in the file as they are.
    pub fn tensor(&self, name: Name, src: &Source<'_>) -> Tensor {
        let dtype = self.descr.as_ref().and_then(Descr::dtype);
        let decl = src.place(self.at).offset.unwrap_or(0);
        let mut tensor =
            Tensor::declared(name, dtype, self.shape.clone().unwrap_or_default(), decl);
        if self.shape.is_none() {
            (tensor.elements, tensor.byte_size) = (None, None);
        }
        let range = match self.data {
            Data::Raw(span) => src.offset(span.start).map(|offset| DataRange {
                file: 0,
                offset,
                len: span.len,
            }),
            _ => None,
        };
        match range {
            Some(range) => tensor.stored(Storage::Inline, range),
            None => Tensor {
                storage: Storage::Inline,
                ..tensor
            },
        }
    }
}

/// The globals that rebuild arrays, by the form of their arguments.
const RECONSTRUCT: [&str; 2] = [
    "numpy._core.multiarray._reconstruct",
    "numpy.core.multiarray._reconstruct",
];
const FROMBUFFER: [&str; 2] = [
    "numpy._core.numeric._frombuffer",
    "numpy.core.numeric._frombuffer",
];
const SCALAR: [&str; 2] = [
    "numpy._core.multiarray.scalar",
    "numpy.core.multiarray.scalar",
];
/// joblib's wrapper, whose array bytes follow its `BUILD` in the stream.
pub const WRAPPER: &str = "joblib.numpy_pickle.NumpyArrayWrapper";
/// Every global that makes an array.
const MAKERS: &[&str] = &[
    RECONSTRUCT[0],
    RECONSTRUCT[1],
    FROMBUFFER[0],
    FROMBUFFER[1],
    SCALAR[0],
    SCALAR[1],
    WRAPPER,
];

/// The array value `id` is, if it is one.
pub fn array(tree: &impl Tree, id: Id) -> Option<Array> {
    let (call, path) = tree.call_of(id, MAKERS)?;
    let at = call.at;
    let args = tree.items(call.args).unwrap_or_default();
    let (descr, shape, data) = if RECONSTRUCT.contains(&path.as_str()) {
        // BUILD state: (version, shape, dtype, is_fortran, rawdata).
        let state = tree.items(call.state?)?;
        let [_, shape, dtype, _, raw] = state else {
            return None;
        };
        (
            dtype_of(tree, *dtype),
            shape_of(tree, *shape),
            data_of(tree, *raw),
        )
    } else if FROMBUFFER.contains(&path.as_str()) {
        let [buffer, dtype, shape, ..] = args else {
            return None;
        };
        (
            dtype_of(tree, *dtype),
            shape_of(tree, *shape),
            data_of(tree, *buffer),
        )
    } else if SCALAR.contains(&path.as_str()) {
        let [dtype, raw] = args else { return None };
        (
            dtype_of(tree, *dtype),
            Some(Vec::new()),
            data_of(tree, *raw),
        )
    } else {
        let state = call.state?;
        let descr = tree.get(state, b"dtype").and_then(|d| dtype_of(tree, d));
        let shape = tree.get(state, b"shape").and_then(|s| shape_of(tree, s));
        let data = match (&descr, call.trailing) {
            (Some(d), _) if d.is_object() => Data::Objects,
            (_, Some(span)) => Data::Raw(span),
            _ => Data::Unknown,
        };
        (descr, shape, data)
    };
    Some(Array {
        descr,
        shape,
        data,
        at,
    })
}

/// A pickled `numpy.dtype`: `dtype('f4', False, True)` with a `BUILD` state whose second item
/// is the byte order and whose sixth, when positive, the element size.
pub fn dtype_of(tree: &impl Tree, id: Id) -> Option<Descr> {
    let (call, _) = tree.call_of(id, &["numpy.dtype"])?;
    let args = tree.items(call.args)?;
    let text = tree.str(*args.first()?)?;
    let state = call.state.and_then(|s| tree.items(s));
    let order = state
        .and_then(|s| tree.str(*s.get(1)?))
        .and_then(|o| o.first().copied());
    let mut descr = Descr::parse(text)?;
    if let Some(order) = order {
        descr.order = order;
    }
    let size = state.and_then(|s| u64::try_from(tree.int(*s.get(5)?)?).ok());
    if let Some(size) = size.filter(|&n| n > 0) {
        descr.itemsize = size;
    }
    Some(descr)
}

fn shape_of(tree: &impl Tree, id: Id) -> Option<Vec<u64>> {
    let dims = tree.ints(id)?;
    dims.into_iter().map(|d| u64::try_from(d).ok()).collect()
}

fn data_of(tree: &impl Tree, id: Id) -> Data {
    match tree.value(id) {
        Some(Value::Bytes(span)) => Data::Raw(*span),
        Some(Value::Buffer) => Data::OutOfBand,
        Some(Value::List(_)) => Data::Objects,
        Some(Value::Call(_)) if tree.call_of(id, &["_codecs.encode"]).is_some() => Data::Encoded,
        _ => Data::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_strings_parse_as_numpy_writes_them() {
        let d = |t: &[u8]| Descr::parse(t).map(|d| (d.order, d.kind, d.itemsize, d.dtype()));
        assert_eq!(d(b"<f4"), Some((b'<', b'f', 4, Some(DType::F32))));
        assert_eq!(d(b">f8"), Some((b'>', b'f', 8, Some(DType::F64))));
        assert_eq!(d(b"|b1"), Some((b'|', b'b', 1, Some(DType::Bool))));
        assert_eq!(d(b"<U3"), Some((b'<', b'U', 12, None)));
        assert_eq!(d(b"|O"), Some((b'|', b'O', 8, None)));
        assert_eq!(d(b"<M8[s]"), Some((b'<', b'M', 8, None)));
        assert_eq!(d(b"f4"), Some((b'=', b'f', 4, Some(DType::F32))));
        assert_eq!(d(b"<q9"), None);
        assert_eq!(d(b"<f"), None);
        assert_eq!(d(b""), None);
        assert_eq!(d(b"<U99999999999999999999"), None);
    }
}
