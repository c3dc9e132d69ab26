//! Tensor infos: name, dimensions, GGML type and offset, checked as llama.cpp checks them,
//! and placed in the data section.

use super::dtypes::{block_elements, ggml, Ggml};
use super::header::Header;
use super::model::Seen;
use super::rules::{
    COUNT_TOO_LARGE, DIM_INVALID, DUPLICATE_TENSOR, OFFSET_MISALIGNED, OFFSET_UNEXPECTED,
    REMOVED_TYPE, ROW_NOT_WHOLE_BLOCKS, TENSOR_NAME_TOO_LONG, TOO_MANY_DIMS, TRUNCATED,
    UNKNOWN_TYPE,
};
use super::wire::Wire;
use crate::check::{Item, Place};
use crate::escape::excerpt;
use crate::formats::shared::context::Context;
use crate::inventory::{DataRange, FileId, Name, Storage, Tensor};
use std::collections::hash_map::Entry;

/// ggml's `GGML_MAX_NAME`: names are stored with a terminating zero in 64 bytes.
const MAX_NAME: usize = 64;
/// ggml's `GGML_MAX_DIMS`.
const MAX_DIMS: u32 = 4;

/// One tensor info, as read.
struct Info<'a> {
    name: &'a [u8],
    at: u64,
    dims: Vec<u64>,
    ty: u32,
    offset: u64,
    offset_at: u64,
}

/// Where a file's tensor infos end and how they were placed.
pub struct Placed {
    /// Where the tensor infos end.
    pub infos_end: u64,
    /// Where the data section starts.
    pub data_start: u64,
}

/// Reads the tensor infos `header` declares from `start` of `bytes` (file `file`), adds them to the
/// inventory with their data placed after the infos at `alignment`, and reports what
/// llama.cpp would refuse. `seen` holds the names of every file's tensors read so far.
pub fn read(
    cx: &mut Context<'_>,
    bytes: &[u8],
    file: FileId,
    header: &Header,
    start: u64,
    alignment: u64,
    seen: &mut Seen,
) -> Option<Placed> {
    let mut wire = Wire::new(bytes, start, header.big_endian);
    let mut infos = Vec::new();
    for index in 0..header.tensors {
        if !cx.spend(1, Place::at(wire.pos()).in_file(file)) {
            return None;
        }
        infos.push(info(cx, &mut wire, file, index)?);
    }
    let infos_end = wire.pos();
    let data_start = infos_end.checked_next_multiple_of(alignment)?;
    let mut expected = 0u64;
    for info in infos {
        let shown = excerpt(info.name, 200).into_owned();
        let item = Item::Tensor {
            tensor: cx.inv.tensors.len(),
        };
        let place = Place::at(info.at).in_file(file).item(item);
        if info.name.len() >= MAX_NAME {
            let message = format!("tensor name \"{shown}\" is {} bytes; ggml stores at most {} (GGML_MAX_NAME {MAX_NAME} with its terminating zero)", info.name.len(), MAX_NAME - 1);
            cx.report(&TENSOR_NAME_TOO_LONG, place, message);
        }
        let name = cx.name(info.name);
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
        let tensor = tensor(cx, &info, name, &shown, place, data_start);
        if let Some(len) = tensor.byte_size {
            let place = place.offset(info.offset_at);
            if info.offset % alignment != 0 {
                let message = format!(
                    "tensor \"{shown}\" has offset {}, not a multiple of the alignment {alignment}",
                    info.offset
                );
                cx.report(&OFFSET_MISALIGNED, place, message);
            } else if info.offset != expected {
                let message = format!("tensor \"{shown}\" has offset {}, but the tensors before it end at {expected}; llama.cpp refuses any other offset", info.offset);
                cx.report(&OFFSET_UNEXPECTED, place, message);
            }
            expected = info
                .offset
                .saturating_add(len)
                .checked_next_multiple_of(alignment)
                .unwrap_or(u64::MAX);
        }
        cx.inv.tensors.push(tensor);
    }
    Some(Placed {
        infos_end,
        data_start,
    })
}

/// Reads the tensor info at the wire's position.
fn info<'a>(
    cx: &mut Context<'_>,
    wire: &mut Wire<'a>,
    file: FileId,
    index: u64,
) -> Option<Info<'a>> {
    let at = wire.pos();
    let truncated = |cx: &mut Context<'_>, field: &str, short: super::wire::Short| {
        let message = format!(
            "the {field} of tensor info {index} needs {} bytes at offset {}; the file has {} left",
            short.needed, short.at, short.left
        );
        cx.report(&TRUNCATED, Place::at(short.at).in_file(file), message);
    };
    let name = wire.string().map_err(|s| truncated(cx, "name", s)).ok()?;
    let dims_at = wire.pos();
    let n_dims = wire.u32().map_err(|s| truncated(cx, "n_dims", s)).ok()?;
    let place = Place::at(dims_at).in_file(file);
    if n_dims > MAX_DIMS {
        let message = format!(
            "tensor \"{}\" has {n_dims} dimensions; ggml allows at most {MAX_DIMS}",
            excerpt(name, 200)
        );
        cx.report(&TOO_MANY_DIMS, place, message);
    }
    if u64::from(n_dims) * 8 > wire.left() {
        let message = format!(
            "tensor \"{}\" claims {n_dims} dimensions of 8 bytes; the file has {} bytes left",
            excerpt(name, 200),
            wire.left()
        );
        cx.report(&COUNT_TOO_LARGE, place, message);
        return None;
    }
    if !cx.spend(u64::from(n_dims), place) {
        return None;
    }
    let dims = (0..n_dims)
        .map(|_| wire.u64())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|s| truncated(cx, "dimensions", s))
        .ok()?;
    let ty = wire.u32().map_err(|s| truncated(cx, "type", s)).ok()?;
    let offset_at = wire.pos();
    let offset = wire.u64().map_err(|s| truncated(cx, "offset", s)).ok()?;
    Some(Info {
        name,
        at,
        dims,
        ty,
        offset,
        offset_at,
    })
}

/// The inventory's tensor for `info`, reporting a type or shape ggml cannot hold.
fn tensor(
    cx: &mut Context<'_>,
    info: &Info<'_>,
    name: Name,
    shown: &str,
    place: Place,
    data_start: u64,
) -> Tensor {
    let type_place = place;
    let dtype = match ggml(info.ty) {
        Ggml::Known(dtype) => Some(dtype),
        Ggml::Removed(name) => {
            let message = format!(
                "tensor \"{shown}\" has GGML type {} ({name}), which ggml removed",
                info.ty
            );
            cx.report(&REMOVED_TYPE, type_place, message);
            None
        }
        Ggml::Unknown => {
            let message = format!(
                "tensor \"{shown}\" has GGML type {}, which ggml does not define",
                info.ty
            );
            cx.report(&UNKNOWN_TYPE, type_place, message);
            None
        }
    };
    // ggml reads dimensions as int64_t: the top bit makes one negative.
    let negative = info.dims.iter().position(|&d| d > i64::MAX as u64);
    let shape: Vec<u64> = (info.dims.iter())
        .map(|&d| {
            if d > i64::MAX as u64 {
                Tensor::NOT_A_SIZE
            } else {
                d
            }
        })
        .collect();
    if let Some(i) = negative {
        let message = format!(
            "dimension {i} of tensor \"{shown}\" is {} as ggml's int64_t: negative",
            info.dims.get(i).map_or(0, |&d| d as i64)
        );
        cx.report(&DIM_INVALID, type_place, message);
    } else if shape
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d as i64))
        .is_none()
    {
        let message = format!(
            "the dimensions {:?} of tensor \"{shown}\" multiply to more than ggml's int64_t holds",
            info.dims
        );
        cx.report(&DIM_INVALID, type_place, message);
    }
    if let (Some(dtype), Some(&row)) = (dtype, shape.first()) {
        let block = block_elements(dtype);
        if negative.is_none() && row % block != 0 {
            let message = format!("tensor \"{shown}\" of type {dtype} has rows of {row} elements, not a multiple of its block size {block}");
            cx.report(&ROW_NOT_WHOLE_BLOCKS, type_place, message);
        }
    }
    let mut tensor = Tensor::declared(name, dtype, shape, info.at);
    if negative.is_some() {
        tensor.elements = None;
        tensor.byte_size = None;
    }
    let data = DataRange {
        file: place.file,
        offset: data_start.saturating_add(info.offset),
        len: tensor.byte_size.unwrap_or(0),
    };
    tensor.stored(Storage::External, data)
}
