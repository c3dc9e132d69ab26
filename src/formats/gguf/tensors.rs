//! Tensor infos: name, dimensions, GGML type and offset, checked as llama.cpp checks them,
//! and placed in the data section.

use super::dtypes::{block_elements, ggml, Ggml};
use super::header::Header;
use super::rules::{
    not_utf8, COUNT_TOO_LARGE, DIM_INVALID, DUPLICATE_TENSOR, OFFSET_MISALIGNED, OFFSET_UNEXPECTED,
    REMOVED_TYPE, ROW_NOT_WHOLE_BLOCKS, STRING_NOT_UTF8, TENSOR_NAME_TOO_LONG, TOO_MANY_DIMS,
    TRUNCATED, UNKNOWN_TYPE,
};
use super::strings;
use super::wire::Wire;
use crate::check::{Item, Place};
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::bytes::{Short, Stop};
use crate::formats::shared::context::Context;
use crate::formats::shared::numbers::signed64;
use crate::inventory::hashing::HashMap;
use crate::inventory::{DType, DataRange, FileId, Name, Storage, Tensor};
use std::collections::hash_map::Entry;

/// Tensor names already read, in every part: where each was declared.
pub type Seen = HashMap<Name, (FileId, u64)>;

/// ggml's `GGML_MAX_NAME`: names are stored with a terminating zero in 64 bytes.
const MAX_NAME: usize = 64;
/// ggml's `GGML_MAX_DIMS`.
const MAX_DIMS: u32 = 4;

/// One tensor info, as read, with where each of its fields is.
struct Info<'a> {
    name: &'a [u8],
    at: u64,
    n_dims: u32,
    dims_at: u64,
    dims: Vec<u64>,
    ty: u32,
    type_at: u64,
    offset: u64,
    offset_at: u64,
}

/// How a file's tensor infos were read and placed.
pub struct Placed {
    /// Where the tensor infos end, if all could be read.
    pub infos_end: Option<u64>,
    /// Where the data section starts, if the infos end is known.
    pub data_start: Option<u64>,
    /// Whether every tensor's size is known, so its bytes are all accounted for.
    pub sized: bool,
}

/// Reads the tensor infos `header` declares from `start` of `bytes` (file `file`), adds
/// them to the inventory with their data placed after the infos at `alignment`, and reports
/// what llama.cpp would refuse. `seen` holds the names of every file's tensors read so far.
pub fn read(
    cx: &mut Context<'_>,
    bytes: &[u8],
    file: FileId,
    header: &Header,
    start: u64,
    alignment: u64,
    seen: &mut Seen,
) -> Placed {
    let mut wire = Wire::new(bytes, start, header.big_endian);
    let mut infos = Vec::new();
    let mut whole = true;
    for index in 0..header.tensors {
        if !cx.spend(1, Place::at(wire.pos()).in_file(file)) {
            whole = false;
            break;
        }
        match info(cx, &mut wire, file, index) {
            Some(info) => infos.push(info),
            None => {
                whole = false;
                break;
            }
        }
    }
    let infos_end = whole.then(|| wire.pos());
    let data_start = infos_end.and_then(|end| end.checked_next_multiple_of(alignment));
    let mut sized = data_start.is_some();
    // The end of the tensors before, padded, while they are where llama.cpp expects them.
    let mut expected = Some(0u64);
    for info in infos {
        let item = Item::Tensor {
            tensor: cx.inv.tensors.len(),
        };
        let place = Place::at(info.at).in_file(file).item(item);
        let name = cx.name(info.name);
        let shown = excerpt(info.name, EXCERPT).into_owned();
        match seen.entry(name.clone()) {
            Entry::Occupied(first) => {
                let (first_file, first) = first.get();
                let message = format!("tensor \"{shown}\" is already declared at offset {first} of file {first_file}; llama.cpp refuses duplicate tensor names");
                cx.report(&DUPLICATE_TENSOR, place, message);
            }
            Entry::Vacant(slot) => {
                slot.insert((file, info.at));
            }
        }
        if let Some(byte) = strings::not_utf8_at(info.name, info.at) {
            let message = not_utf8(format!("tensor name \"{shown}\""), byte);
            cx.report(&STRING_NOT_UTF8, place.offset(byte), message);
        }
        if info.name.len() >= MAX_NAME {
            let message = format!("tensor name \"{shown}\" is {} bytes; ggml stores at most {} (GGML_MAX_NAME {MAX_NAME} with its terminating zero)", info.name.len(), MAX_NAME - 1);
            cx.report(&TENSOR_NAME_TOO_LONG, place, message);
        }
        let dtype = dtype(cx, &info, &shown, place);
        let shape = shape(cx, &info, dtype, &shown, place);
        let mut tensor = Tensor::declared(name, dtype, shape, info.at);
        if !whole_rows(&tensor) {
            tensor.byte_size = None;
        }
        sized &= tensor.byte_size.is_some();
        let place = place.offset(info.offset_at);
        if info.offset % alignment != 0 {
            let message = format!(
                "tensor \"{shown}\" has offset {}, not a multiple of the alignment {alignment}",
                info.offset
            );
            cx.report(&OFFSET_MISALIGNED, place, message);
        } else if let Some(end) = expected.filter(|&end| end != info.offset) {
            let message = format!("tensor \"{shown}\" has offset {}, but the tensors before it end at {end}; llama.cpp refuses any other offset", info.offset);
            cx.report(&OFFSET_UNEXPECTED, place, message);
            // llama.cpp stops at the first; later tensors are not compared with a wrong sum.
            expected = None;
        }
        expected = expected.zip(tensor.byte_size).and_then(|(_, len)| {
            info.offset
                .checked_add(len)?
                .checked_next_multiple_of(alignment)
        });
        let tensor = match data_start {
            Some(data_start) => {
                let data = DataRange {
                    file,
                    offset: data_start.saturating_add(info.offset),
                    len: tensor.byte_size.unwrap_or(0),
                };
                tensor.stored(Storage::External, data)
            }
            None => tensor,
        };
        if header.big_endian {
            cx.inv.big_endian.push(cx.inv.tensors.len());
        }
        cx.inv.tensors.push(tensor);
    }
    Placed {
        infos_end,
        data_start,
        sized,
    }
}

/// Reads the tensor info at the wire's position, reporting a field that does not fit.
fn info<'a>(
    cx: &mut Context<'_>,
    wire: &mut Wire<'a>,
    file: FileId,
    index: u64,
) -> Option<Info<'a>> {
    let short_read = |cx: &mut Context<'_>, field: &str, short: Short| {
        let what = format!("the {field} of tensor info {index}");
        cx.report(
            &TRUNCATED,
            Place::at(short.at).in_file(file),
            short.message(what),
        );
    };
    let at = wire.pos();
    let name = match strings::read(cx, wire, file, || {
        format!("the name of tensor info {index}")
    }) {
        Ok(name) => name,
        Err(Stop::Short(short)) => {
            short_read(cx, "name", short);
            return None;
        }
        Err(Stop::Problem(never)) => match never {},
        Err(Stop::Reported) => return None,
    };
    let n_dims_at = wire.pos();
    let n_dims = wire.u32().map_err(|s| short_read(cx, "n_dims", s)).ok()?;
    let dims_at = wire.pos();
    if n_dims > MAX_DIMS && u64::from(n_dims) * 8 > wire.left() {
        let message = format!(
            "tensor \"{}\" claims {n_dims} dimensions of 8 bytes; the file has {} bytes left",
            excerpt(name, EXCERPT),
            wire.left()
        );
        cx.report(
            &COUNT_TOO_LARGE,
            Place::at(n_dims_at).in_file(file),
            message,
        );
        return None;
    }
    if !cx.spend(u64::from(n_dims), Place::at(n_dims_at).in_file(file)) {
        return None;
    }
    let dims = (0..n_dims)
        .map(|_| wire.u64())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|s| short_read(cx, "dimensions", s))
        .ok()?;
    let type_at = wire.pos();
    let ty = wire.u32().map_err(|s| short_read(cx, "type", s)).ok()?;
    let offset_at = wire.pos();
    let offset = wire.u64().map_err(|s| short_read(cx, "offset", s)).ok()?;
    Some(Info {
        name,
        at,
        n_dims,
        dims_at,
        dims,
        ty,
        type_at,
        offset,
        offset_at,
    })
}

/// The element type of `info`, reporting a GGML type ggml does not have.
fn dtype(cx: &mut Context<'_>, info: &Info<'_>, shown: &str, place: Place) -> Option<DType> {
    let place = place.offset(info.type_at);
    match ggml(info.ty) {
        Ggml::Known(dtype) => Some(dtype),
        Ggml::Removed(name) => {
            let message = format!(
                "tensor \"{shown}\" has GGML type {} ({name}), which ggml removed",
                info.ty
            );
            cx.report(&REMOVED_TYPE, place, message);
            None
        }
        Ggml::Unknown => {
            let message = format!(
                "tensor \"{shown}\" has GGML type {}, which ggml does not define",
                info.ty
            );
            cx.report(&UNKNOWN_TYPE, place, message);
            None
        }
    }
}

/// The shape of `info` in file order (`ne[0]` first), reporting dimensions ggml cannot
/// hold. A negative dimension is [`Tensor::NOT_A_SIZE`].
fn shape(
    cx: &mut Context<'_>,
    info: &Info<'_>,
    dtype: Option<DType>,
    shown: &str,
    place: Place,
) -> Vec<u64> {
    if info.n_dims > MAX_DIMS {
        let message = format!(
            "tensor \"{shown}\" has {} dimensions; ggml allows at most {MAX_DIMS}",
            info.n_dims
        );
        cx.report(&TOO_MANY_DIMS, place.offset(info.dims_at - 4), message);
    }
    // ggml reads dimensions as int64_t: the top bit makes one negative.
    let negative = (0u64..).zip(&info.dims).find(|(_, &d)| d > i64::MAX as u64);
    let shape: Vec<u64> = (info.dims.iter())
        .map(|&d| {
            if d > i64::MAX as u64 {
                Tensor::NOT_A_SIZE
            } else {
                d
            }
        })
        .collect();
    if let Some((i, &d)) = negative {
        let message = format!(
            "dimension {i} of tensor \"{shown}\" is {} as ggml's int64_t: negative",
            signed64(d)
        );
        cx.report(&DIM_INVALID, place.offset(info.dims_at + 8 * i), message);
        return shape;
    }
    let elements = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    // A count past u64 is the generic rule's (RX008); ggml's limit is int64_t's.
    if elements.is_some_and(|n| n > i64::MAX as u64) {
        let message = format!(
            "the dimensions {:?} of tensor \"{shown}\" multiply to more than ggml's int64_t holds",
            info.dims
        );
        cx.report(&DIM_INVALID, place.offset(info.dims_at), message);
    }
    if let (Some(dtype), Some(&row)) = (dtype, shape.first()) {
        let block = block_elements(dtype);
        if row % block != 0 {
            let message = format!("tensor \"{shown}\" of type {dtype} has rows of {row} elements, not a multiple of its block size {block}");
            cx.report(&ROW_NOT_WHOLE_BLOCKS, place.offset(info.dims_at), message);
        }
    }
    shape
}

/// Whether the tensor's rows are whole blocks of its type, so that its size is defined.
fn whole_rows(t: &Tensor) -> bool {
    let block = t.dtype.map_or(1, block_elements);
    t.shape.first().is_none_or(|&row| row % block == 0)
}
