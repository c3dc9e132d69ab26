//! Tensor data ranges: bounds, sizes, overlaps and alignment.

use super::{
    TENSOR_ALIGNMENT, TENSOR_MISALIGNED, TENSOR_OUT_OF_BOUNDS, TENSOR_OVERLAP,
    TENSOR_SIZE_MISMATCH, TENSOR_SIZE_OVERFLOW,
};
use crate::check::{Findings, Item, Place};
use crate::inventory::{Inventory, Storage, Tensor};

pub(super) fn check(inv: &Inventory, out: &mut Findings) {
    for (id, tensor) in inv.tensors.iter().enumerate() {
        each_tensor(inv, id, tensor, out);
    }
    overlaps(inv, out);
}

fn each_tensor(inv: &Inventory, id: usize, t: &Tensor, out: &mut Findings) {
    let item = Item::Tensor { tensor: id };
    let shape_overflows = t.elements.is_none()
        || t.dtype
            .is_some_and(|d| d.bits().is_some() && t.byte_size.is_none());
    if shape_overflows {
        out.add(
            &TENSOR_SIZE_OVERFLOW,
            Place::at(t.decl_offset).item(item),
            format!(
                "shape {:?} of {} overflows a 64-bit byte count",
                t.shape,
                dtype_name(t)
            ),
        );
    }
    let Some(data) = t.data else { return };
    let file_size = inv.files.get(data.file).and_then(|f| f.size);
    let place = Place::at(data.offset).in_file(data.file).item(item);
    if let Some(expected) = t.byte_size.filter(|&n| n != data.len) {
        out.add(
            &TENSOR_SIZE_MISMATCH,
            place,
            format!(
                "stores {} bytes, but shape {:?} of {} needs {expected}",
                data.len,
                t.shape,
                dtype_name(t)
            ),
        );
    }
    let end = data.end();
    let out_of_bounds = match (end, file_size) {
        (None, _) => Some(format!(
            "data offset {} plus length {} overflows a 64-bit offset",
            data.offset, data.len
        )),
        (Some(end), Some(size)) if end > size => Some(format!(
            "data {}..{end} ({} bytes) runs past the end of the file at {size}",
            data.offset, data.len
        )),
        _ => None,
    };
    if let Some(message) = out_of_bounds {
        // Alignment and overlap mean nothing for a range outside the file.
        out.add(&TENSOR_OUT_OF_BOUNDS, place, message);
        return;
    }
    if data.len == 0 {
        return;
    }
    let external = t.storage == Storage::External;
    if let Some(dtype) = t.dtype.filter(|d| external && data.offset % d.align() != 0) {
        out.add(
            &TENSOR_MISALIGNED,
            place,
            format!(
                "data offset {} is not a multiple of the {dtype} element size {}",
                data.offset,
                dtype.align()
            ),
        );
    }
    let preferred = inv
        .preferred_alignment
        .filter(|&a| a > 1 && data.offset % a != 0);
    if let (Some(align), true) = (preferred, external) {
        out.add(
            &TENSOR_ALIGNMENT,
            place,
            format!(
                "data offset {} is not a multiple of {align} (it is {} past one)",
                data.offset,
                data.offset % align
            ),
        );
    }
}

fn dtype_name(t: &Tensor) -> String {
    t.dtype
        .map_or_else(|| "unknown dtype".to_owned(), |d| d.to_string())
}

/// Reports tensors whose data starts before an earlier tensor's data (in offset order) ends.
fn overlaps(inv: &Inventory, out: &mut Findings) {
    for o in inv.tensor_overlaps() {
        let (start, end) = (o.range.start, o.range.end());
        let earlier = inv.tensors[o.earlier].name.display();
        out.add(
            &TENSOR_OVERLAP,
            Place::at(start)
                .item(Item::Tensor { tensor: o.tensor })
                .in_file(o.file),
            format!(
                "data {start}..{end} overlaps tensor \"{earlier}\", which ends at {}",
                o.earlier_end
            ),
        );
    }
}
