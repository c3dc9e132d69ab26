//! One tensor of a subgraph: its node (a constant with its bytes, or a value), and the
//! checks on what it declares: element type, shape, buffer index, string table,
//! quantisation. Numeric buffers are held to elements × element size by the format-neutral
//! size rule (RX007), as the verifier holds them.

use super::reader::Reader;
use super::rules::{BUFFER_INDEX, NEGATIVE_DIMENSION, QUANTIZATION, STRING_TABLE, TENSOR_TYPE};
use super::{dtypes, schema, sparsity};
use crate::check::{Item, Place};
use crate::formats::shared::bytes::{le_u32, range};
use crate::formats::shared::numbers::id32;
use crate::inventory::{DType, DataRange, Dim, NewKind, NewNode, Storage, Tensor, Value};

/// The node of tensor `index` of subgraph `g` (its node id is its index), and its role in
/// the data flow.
pub fn node(
    r: &mut Reader<'_, '_>,
    g: usize,
    index: usize,
    t: schema::Tensor<'_>,
) -> (NewNode, Role) {
    let at = r.table(t._tab.loc());
    let place = Place::at(at).item(Item::Node {
        graph: g,
        node: id32(index),
    });
    let name = match t.name() {
        Some(name) => {
            r.seen(name.as_bytes());
            r.cx.name(name.as_bytes())
        }
        None => Default::default(),
    };
    let ty = t.type_().0;
    let dtype = dtypes::dtype(ty);
    if dtype.is_none() {
        r.cx.report(
            &TENSOR_TYPE,
            place,
            format!("tensor {index} has type {ty}, which the schema does not define (0..=20)"),
        );
    }
    // A shape is paid for as it is read: many tensors can share one shape vector.
    let rank = t.shape().map_or(0, |s| s.len()) + t.shape_signature().map_or(0, |s| s.len());
    let dims: Vec<i32> = match t.shape() {
        Some(shape) if r.cx.spend(rank as u64, place) => {
            r.seen(shape.bytes());
            shape.iter().collect()
        }
        _ => Vec::new(),
    };
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        r.cx.report(
            &NEGATIVE_DIMENSION,
            place,
            format!("tensor {index} has dimension {d} in its shape {dims:?}"),
        );
    }
    if let Some(q) = t.quantization() {
        quantization(r, index, q, &dims, place);
    }
    let buffer_index = t.buffer();
    let buffer = r.buffers.get(buffer_index as usize).copied();
    if buffer.is_none() && !(r.buffers.is_empty() && buffer_index == 0) {
        r.cx.report(
            &BUFFER_INDEX,
            place,
            format!(
                "tensor {index} has buffer {buffer_index}, but the model has {} buffers",
                r.buffers.len()
            ),
        );
    }
    let shape: Vec<u64> = (dims.iter())
        .map(|&d| u64::try_from(d).unwrap_or(Tensor::NOT_A_SIZE))
        .collect();
    let sparse = t.sparsity();
    let data = buffer.filter(|b| b.has_data()).and_then(|b| b.range);
    let offset = at.into();
    let Some(data) = data else {
        let role = if buffer.is_none() && !r.buffers.is_empty() {
            Role::Invalid
        } else if t.is_variable() {
            Role::Variable
        } else {
            Role::Unproduced
        };
        let value = value(r, dtype, &dims, t.shape_signature());
        return (
            NewNode {
                name,
                kind: NewKind::Value(value),
                offset,
            },
            role,
        );
    };
    let external = buffer.is_some_and(|b| b.external);
    let bytes = range(r.cx.bytes, data.start, data.len);
    let mut tensor = Tensor::declared(name.clone(), dtype, shape, at);
    if let Some(sparsity) = sparse {
        r.sparse += 1;
        sparsity::check(r, index, sparsity, &dims, dtype, data.len, place);
        // The buffer holds the non-zero values only.
        tensor.byte_size = Some(data.len);
    }
    if dtype == Some(DType::String) {
        if let Some(bytes) = bytes.filter(|b| r.scan(b.len() as u64)) {
            string_table(r, index, bytes, tensor.elements, place);
        }
    }
    // A range outside the file is the offset rule's (TF016): the tensor has no bytes.
    if bytes.is_some() {
        let storage = if external {
            Storage::External
        } else {
            Storage::Inline
        };
        tensor = tensor.stored(
            storage,
            DataRange {
                file: 0,
                offset: data.start,
                len: data.len,
            },
        );
    }
    let id = r.cx.inv.tensors.len();
    r.cx.inv.tensors.push(Tensor {
        graph: g,
        node: Some(id32(index)),
        ..tensor
    });
    r.constants.push((buffer_index, id));
    (
        NewNode {
            name,
            kind: NewKind::Constant { tensor: id },
            offset,
        },
        Role::Constant,
    )
}

/// A value's type: its shape from `shape_signature` where the converter wrote one (-1 for
/// a dimension known only at run time), else from `shape`.
fn value(
    r: &mut Reader<'_, '_>,
    dtype: Option<DType>,
    dims: &[i32],
    signature: Option<flatbuffers::Vector<'_, i32>>,
) -> Value {
    let signature: Option<Vec<i32>> = signature.map(|s| {
        r.seen(s.bytes());
        s.iter().collect()
    });
    let dims = signature.as_deref().unwrap_or(dims);
    let dims = (dims.iter())
        .map(|&d| match u64::try_from(d) {
            Ok(d) => Dim::Fixed(d),
            Err(_) => Dim::Symbolic("?".into()),
        })
        .collect();
    Value {
        dtype,
        shape: Some(r.cx.names.shape(dims)),
        composite: None,
    }
}

/// Checks a string tensor's table: a count N, N + 1 offsets from just past the table to
/// the buffer's end, never decreasing; N the shape's element count.
fn string_table(
    r: &mut Reader<'_, '_>,
    index: usize,
    bytes: &[u8],
    elements: Option<u64>,
    place: Place,
) {
    let len = bytes.len() as u64;
    let problem = (|| {
        let count = u64::from(le_u32(bytes, 0).ok_or("it is shorter than its 4-byte count")?);
        let header = count.saturating_add(2).saturating_mul(4);
        if header > len {
            return Err(format!(
                "its {count} strings need a {header}-byte offset table, but the buffer has {len} bytes"
            ));
        }
        if elements.is_some_and(|n| n != count) {
            return Err(format!(
                "it holds {count} strings, but its shape has {} elements",
                elements.unwrap_or(0)
            ));
        }
        let mut previous = header;
        for i in 0..=count {
            let offset = u64::from(le_u32(bytes, 4 + 4 * i).unwrap_or(0));
            let first = i == 0 && offset != header;
            if first || offset < previous || offset > len {
                return Err(format!(
                    "offset {i} is {offset}, outside {previous}..={len}"
                ));
            }
            previous = offset;
        }
        if previous != len {
            return Err(format!(
                "its last offset is {previous}, but the buffer ends at {len}"
            ));
        }
        Ok(())
    })();
    if let Err(problem) = problem {
        r.cx.report(
            &STRING_TABLE,
            place,
            format!("string tensor {index}'s buffer is not a string table: {problem}"),
        );
    }
}

/// Checks the lengths of a tensor's quantisation arrays against its shape, as the
/// interpreter does when it reads them.
fn quantization(
    r: &mut Reader<'_, '_>,
    index: usize,
    q: schema::QuantizationParameters<'_>,
    dims: &[i32],
    place: Place,
) {
    for v in [q.min().map(|v| v.bytes()), q.max().map(|v| v.bytes())]
        .into_iter()
        .flatten()
    {
        r.seen(v);
    }
    let (Some(scales), Some(zeros)) = (q.scale(), q.zero_point()) else {
        return;
    };
    r.seen(scales.bytes());
    r.seen(zeros.bytes());
    let (scales, zeros) = (scales.len(), zeros.len());
    if scales == 0 {
        return;
    }
    r.quantized.0 += 1;
    if scales > 1 {
        r.quantized.1 += 1;
    }
    let axis = q.quantized_dimension();
    let dim = usize::try_from(axis).ok().and_then(|a| dims.get(a));
    let problem = if scales != zeros {
        Some(format!(
            "it has {scales} scales and {zeros} zero points; they must be as many"
        ))
    } else if dim.is_none() && !dims.is_empty() || axis < 0 {
        Some(format!(
            "quantized_dimension {axis} is not a dimension of its shape {dims:?}"
        ))
    } else {
        dim.filter(|&&d| scales > 1 && usize::try_from(d) != Ok(scales))
            .map(|d| format!(
                "it has {scales} scales, but dimension {axis} (quantized_dimension) has {d} elements"
            ))
    };
    if let Some(problem) = problem {
        r.cx.report(
            &QUANTIZATION,
            place,
            format!("tensor {index}'s quantisation does not fit: {problem}"),
        );
    }
}

/// What a tensor is to the data flow, as the walk meets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Nothing has produced it yet.
    Unproduced,
    /// A constant: its buffer holds bytes.
    Constant,
    /// A variable (`is_variable`).
    Variable,
    /// A subgraph input.
    Input,
    /// An earlier operator's output.
    Produced,
    /// A tensor whose buffer index is out of range (reported): neither checked nor
    /// reported again.
    Invalid,
}

impl Role {
    pub fn what(self) -> &'static str {
        match self {
            Role::Constant => "a constant",
            Role::Variable => "a variable",
            Role::Input => "a subgraph input",
            Role::Produced => "already produced by an earlier operator",
            Role::Unproduced | Role::Invalid => "not produced",
        }
    }
}
