//! The `.npy` header: `\x93NUMPY`, a version, a header length (`u16` in 1.0, `u32` in 2.0 and
//! 3.0) and a Python dict literal with `descr`, `fortran_order` and `shape`, checked as
//! `numpy.lib.format.read_array_header_*` checks it.

use super::literal::{self, Lit};
use crate::formats::shared::bytes::Cursor;
use crate::formats::shared::pickle::ndarray::Descr;
use crate::inventory::DType;

/// The magic every `.npy` file starts with.
pub const MAGIC: &[u8] = b"\x93NUMPY";
/// numpy.load refuses longer headers unless `allow_pickle` (`max_header_size`, numpy 1.24+).
pub const MAX_HEADER: u64 = 10_000;
/// Nesting of structured dtypes followed at most.
const MAX_FIELDS_DEPTH: usize = 16;

/// An element type: a dtype string, or a structured type of this many bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dtype {
    /// `<f4`, `|O`, ...
    Simple(Descr),
    /// A list of fields, of this many bytes.
    Structured {
        /// Bytes per element.
        itemsize: u64,
        /// Whether a field, at any depth, holds objects (numpy's `hasobject`).
        object: bool,
    },
}

/// What a header says.
#[derive(Debug, Clone)]
pub struct Header {
    /// `major.minor`.
    pub version: String,
    /// The element type.
    pub dtype: Dtype,
    /// The element type as the header writes it.
    pub descr: String,
    /// Whether elements are in column order.
    pub fortran: bool,
    /// The shape.
    pub shape: Vec<u64>,
    /// Where the data starts in the buffer.
    pub data: u64,
}

impl Header {
    /// The element type rtenx names it by.
    pub fn element(&self) -> Option<DType> {
        match &self.dtype {
            Dtype::Simple(d) => d.dtype(),
            Dtype::Structured { .. } => None,
        }
    }

    /// Whether the data is a pickle of objects: numpy pickles any array whose dtype holds an
    /// object anywhere (`hasobject`), a field of a structured dtype included.
    pub fn is_object(&self) -> bool {
        match &self.dtype {
            Dtype::Simple(d) => d.is_object(),
            Dtype::Structured { object, .. } => *object,
        }
    }

    /// Bytes of data the shape and dtype need; `None` on overflow.
    pub fn data_len(&self) -> Option<u64> {
        let itemsize = match &self.dtype {
            Dtype::Simple(d) => d.itemsize,
            Dtype::Structured { itemsize, .. } => *itemsize,
        };
        self.shape
            .iter()
            .try_fold(itemsize, |n, &d| n.checked_mul(d))
    }
}

/// Reads the header at `start` of `bytes`; `Err` says what numpy refuses, and at which
/// position.
pub fn read(bytes: &[u8], start: u64) -> Result<Header, (u64, String)> {
    let mut cursor = Cursor::new(bytes, start);
    let magic = cursor.take(MAGIC.len() as u64);
    if magic != Some(MAGIC) {
        return Err((start, "the file does not start with \\x93NUMPY".into()));
    }
    let version_at = cursor.pos();
    let (Some(major), Some(minor)) = (cursor.u8(), cursor.u8()) else {
        return Err((version_at, "the header ends before its version".into()));
    };
    let len_at = cursor.pos();
    let len = match major {
        1 => cursor.le_u16().map(u64::from),
        2 | 3 => cursor.le_u32().map(u64::from),
        _ => {
            return Err((
                version_at,
                format!("format version {major}.{minor}; numpy reads 1.0, 2.0 and 3.0"),
            ))
        }
    };
    let Some(len) = len else {
        return Err((len_at, "the header ends before its length".into()));
    };
    if len > MAX_HEADER {
        return Err((len_at, format!("the header is {len} bytes, over the {MAX_HEADER} it reads without allow_pickle=True")));
    }
    let text_at = cursor.pos();
    let Some(text) = cursor.take(len) else {
        return Err((
            len_at,
            format!(
                "the header declares {len} bytes; {} are left",
                cursor.remaining()
            ),
        ));
    };
    // 1.0 and 2.0 headers are Latin-1, 3.0 UTF-8.
    let text: String = if major == 3 {
        String::from_utf8_lossy(text).into_owned()
    } else {
        text.iter().map(|&b| char::from(b)).collect()
    };
    let bad = |what: String| Err((text_at, what));
    let Some(Lit::Dict(items)) = literal::parse(&text) else {
        return bad("the header is not a Python dict literal".into());
    };
    let get = |key: &str| {
        items
            .iter()
            .find(|(k, _)| *k == Lit::Str(key.into()))
            .map(|(_, v)| v)
    };
    let (Some(descr), Some(fortran), Some(shape)) =
        (get("descr"), get("fortran_order"), get("shape"))
    else {
        return bad("the header lacks descr, fortran_order or shape".into());
    };
    if items.len() != 3 {
        return bad(format!(
            "the header has {} keys; numpy wants exactly descr, fortran_order and shape",
            items.len()
        ));
    }
    let Lit::Bool(fortran) = *fortran else {
        return bad("fortran_order is not True or False".into());
    };
    let Lit::Seq(dims) = shape else {
        return bad("shape is not a tuple".into());
    };
    let shape: Option<Vec<u64>> = dims
        .iter()
        .map(|d| match d {
            Lit::Int(n) => u64::try_from(*n).ok(),
            _ => None,
        })
        .collect();
    let Some(shape) = shape else {
        return bad("shape is not a tuple of non-negative integers".into());
    };
    let dtype = match descr {
        Lit::Str(s) => Descr::parse(s.as_bytes()).map(Dtype::Simple),
        Lit::Seq(_) => {
            itemsize(descr, 0).map(|(itemsize, object)| Dtype::Structured { itemsize, object })
        }
        _ => None,
    };
    let Some(dtype) = dtype else {
        return bad("descr is not a dtype numpy knows".into());
    };
    let descr = match descr {
        Lit::Str(s) => s.clone(),
        _ => list_text(&text),
    };
    Ok(Header {
        version: format!("{major}.{minor}"),
        dtype,
        descr,
        fortran,
        shape,
        data: cursor.pos(),
    })
}

/// The size of a structured dtype, each field `(name, type)` or `(name, type, shape)`, and
/// whether a field at any depth holds objects.
fn itemsize(lit: &Lit, depth: usize) -> Option<(u64, bool)> {
    match lit {
        Lit::Str(s) => Descr::parse(s.as_bytes()).map(|d| (d.itemsize, d.is_object())),
        Lit::Seq(fields) if depth < MAX_FIELDS_DEPTH => {
            fields
                .iter()
                .try_fold((0u64, false), |(total, object), field| {
                    let Lit::Seq(parts) = field else { return None };
                    let (size, holds) = itemsize(parts.get(1)?, depth + 1)?;
                    let count = match parts.get(2) {
                        None => 1,
                        Some(Lit::Seq(dims)) => dims.iter().try_fold(1u64, |n, d| match d {
                            Lit::Int(d) => n.checked_mul(u64::try_from(*d).ok()?),
                            _ => None,
                        })?,
                        Some(Lit::Int(n)) => u64::try_from(*n).ok()?,
                        Some(_) => return None,
                    };
                    Some((
                        total.checked_add(size.checked_mul(count)?)?,
                        object || holds,
                    ))
                })
        }
        _ => None,
    }
}

/// The `descr` list as the header writes it.
fn list_text(header: &str) -> String {
    let start = header.find('[').unwrap_or(0);
    let end = header.rfind(']').map_or(header.len(), |e| e + 1);
    header.get(start..end).unwrap_or_default().to_owned()
}
