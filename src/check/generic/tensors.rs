//! Tensor data ranges: bounds, sizes, overlaps and alignment.

use super::{
    TENSOR_ALIGNMENT, TENSOR_MISALIGNED, TENSOR_OUT_OF_BOUNDS, TENSOR_OVERLAP,
    TENSOR_SIZE_MISMATCH, TENSOR_SIZE_OVERFLOW,
};
use crate::check::{Findings, Item, Place};
use crate::inventory::display::dims_text;
use crate::inventory::{Inventory, Storage, Tensor, TensorId};

pub(super) fn check(inv: &Inventory, out: &mut Findings) {
    // A view's data is its whole storage; the reader checks that the view fits in it.
    let mut views = vec![false; inv.tensors.len()];
    for v in &inv.views {
        if let Some(view) = views.get_mut(v.tensor) {
            *view = true;
        }
    }
    for ((id, tensor), &view) in inv.tensors.iter().enumerate().zip(&views) {
        each_tensor(inv, id, tensor, view, out);
    }
    overlaps(inv, &views, out);
}

fn each_tensor(inv: &Inventory, id: usize, t: &Tensor, view: bool, out: &mut Findings) {
    let item = Item::Tensor { tensor: id };
    // A dimension that is not a size is the reader's finding, not an overflow.
    let valid = !t.shape.contains(&Tensor::NOT_A_SIZE);
    let shape_overflows = valid
        && (t.elements.is_none()
            || t.dtype
                .is_some_and(|d| d.bits().is_some() && t.byte_size.is_none()));
    if shape_overflows {
        out.add(
            &TENSOR_SIZE_OVERFLOW,
            Place::at(t.decl_offset).item(item),
            format!(
                "shape {} of {} overflows a 64-bit byte count",
                dims_text(&t.shape),
                dtype_name(t)
            ),
        );
    }
    let Some(data) = t.data else { return };
    let file_size = inv.files.get(data.file).and_then(|f| f.size);
    let place = Place::at(data.offset).in_file(data.file).item(item);
    if let Some(expected) = t.byte_size.filter(|&n| n != data.len && !view) {
        out.add(
            &TENSOR_SIZE_MISMATCH,
            place,
            format!(
                "stores {} bytes, but shape {} of {} needs {expected}",
                data.len,
                dims_text(&t.shape),
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
    // A format whose writers align nothing (alignment 1) is always copied by its runtimes.
    let mappable = external && inv.preferred_alignment != Some(1);
    if let Some(dtype) = t.dtype.filter(|d| mappable && data.offset % d.align() != 0) {
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

/// Reports tensors whose data starts before an earlier tensor's data (in offset order) ends;
/// two views of one storage share its bytes, which is no overlap.
/// `views` tells, by tensor id, which tensors are views.
fn overlaps(inv: &Inventory, views: &[bool], out: &mut Findings) {
    let data = |t: TensorId| inv.tensors.get(t).and_then(|t| t.data);
    for o in inv.tensor_overlaps() {
        let view = |id: TensorId| views.get(id).copied().unwrap_or(false);
        let shared = view(o.tensor) && view(o.earlier);
        if shared && data(o.tensor) == data(o.earlier) {
            continue;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::{DType, FileEntry, FileFormat, Name};

    fn findings_for(shape: Vec<u64>) -> Vec<String> {
        let main = FileEntry::model("m.onnx", 64);
        let mut inv = Inventory::new(FileFormat::Read("onnx"), "", main);
        let tensor = Tensor::declared(Name::from("t"), Some(DType::F32), shape, 8);
        inv.tensors.push(tensor);
        let mut out = Findings::default();
        check(&inv, &mut out);
        out.iter()
            .map(|f| format!("{} {}", f.rule.code, f.message))
            .collect()
    }

    #[test]
    fn a_dimension_that_is_not_a_size_is_not_an_overflow() {
        assert!(findings_for(vec![Tensor::NOT_A_SIZE, 3]).is_empty());
        let overflow = findings_for(vec![1 << 40, 1 << 40]);
        assert_eq!(
            overflow,
            ["RX008 shape [1099511627776, 1099511627776] of f32 overflows a 64-bit byte count"]
        );
    }
}
