//! Where a tensor's values are: its bytes in its file, which is opened again after the
//! analysis (the same file that was read, or none), and pages let go once read.

use crate::inventory::{DataRange, Inventory, TensorId, TensorView};
use crate::source::ModelFile;
use std::collections::HashMap;

/// Bytes of a page, the unit [`release`] and [`ahead`] work in.
const PAGE: usize = 4096;

/// The files of a model, each opened again for its tensor bytes, and its views by tensor.
pub struct Files<'a> {
    /// The inventory.
    pub inv: &'a Inventory,
    files: Vec<Option<Opened<'a>>>,
    views: HashMap<TensorId, &'a TensorView>,
}

/// A file as the scan has it.
enum Opened<'a> {
    /// The model file, still open from the analysis.
    Given(&'a ModelFile),
    /// A file opened again.
    Again(ModelFile),
}

impl<'a> Files<'a> {
    /// Opens the files of `inv` again; `model`, when given, is its file 0, still open.
    pub fn open(inv: &'a Inventory, model: Option<&'a ModelFile>) -> Self {
        let files = (inv.files.iter().enumerate())
            .map(|(id, f)| match model.filter(|_| id == 0) {
                Some(model) => Some(Opened::Given(model)),
                None => f.reopen().ok().map(Opened::Again),
            })
            .collect();
        let views = inv.views.iter().map(|v| (v.tensor, v)).collect();
        Files { inv, files, views }
    }

    /// Whether a file is remote. Its tensor bytes are fetched as they are read and let go
    /// of after ([`ModelFile::fetch_tensors`]), so a pass over them reads on one thread: one
    /// thread letting go of a page would make a hole of it for another reading an
    /// overlapping tensor.
    pub fn remote(&self) -> bool {
        (self.files.iter().flatten()).any(|f| self.opened(f).is_remote())
    }

    /// Whether every byte a pass read of a remote file was fetched: the first failure to
    /// fetch, or a read of a hole, is an error, since what was read judges nothing.
    pub fn settled(&self) -> Result<(), crate::source::OpenError> {
        for file in self.files.iter().flatten().map(|f| self.opened(f)) {
            if file.is_remote() && file.fetch_touched()? {
                return Err(crate::source::OpenError::Remote {
                    url: file.path().display().to_string(),
                    cause: "reading its values met bytes not fetched".to_owned(),
                });
            }
        }
        Ok(())
    }

    fn opened<'b>(&self, f: &'b Opened<'a>) -> &'b ModelFile {
        match f {
            Opened::Given(file) => file,
            Opened::Again(file) => file,
        }
    }

    /// File `id`, if it could be opened.
    pub fn file(&self, id: usize) -> Option<&ModelFile> {
        Some(self.opened(self.files.get(id)?.as_ref()?))
    }

    /// Where tensor `id`'s elements are: a view's stretch of its storage, refused when its
    /// elements do not follow one another row by row, and no more bytes than its shape needs.
    pub fn range(&self, id: TensorId) -> Result<DataRange, &'static str> {
        let t = self.inv.tensors.get(id).ok_or("no such tensor")?;
        let mut data = t.data.ok_or("no data")?;
        if let Some(view) = self.views.get(&id) {
            let dtype = t.dtype.ok_or("unknown dtype")?;
            if !contiguous(view, &t.shape) {
                return Err("strided view");
            }
            data = view
                .span(&t.shape, dtype, data)
                .ok_or("view outside its storage")?;
        } else if let Some(size) = t.byte_size {
            data.len = data.len.min(size);
        }
        Ok(data)
    }

    /// The file and the bytes of tensor `id`'s elements.
    pub fn bytes(&self, id: TensorId) -> Result<(&ModelFile, &[u8]), &'static str> {
        let data = self.range(id)?;
        let file = self.file(data.file).ok_or("file not readable")?;
        Ok((file, slice(file, data).ok_or("data outside its file")?))
    }
}

/// The bytes of `data` in `file`, if they are all inside it.
pub fn slice(file: &ModelFile, data: DataRange) -> Option<&[u8]> {
    let start = usize::try_from(data.offset).ok()?;
    let len = usize::try_from(data.len).ok()?;
    file.bytes().get(start..start.checked_add(len)?)
}

/// Whether `view` lays its elements out one after another, row-major.
pub fn contiguous(view: &TensorView, shape: &[u64]) -> bool {
    let mut expected = 1u64;
    for (&dim, &stride) in shape.iter().zip(&view.strides).rev() {
        if dim > 1 && stride != expected {
            return false;
        }
        expected = expected.saturating_mul(dim);
    }
    view.strides.len() == shape.len()
}

/// The whole pages inside `chunk`.
fn pages(chunk: &[u8]) -> &[u8] {
    let at = chunk.as_ptr() as usize;
    let skip = at.next_multiple_of(PAGE) - at;
    chunk
        .get(skip..)
        .map_or(&[], |rest| &rest[..rest.len() / PAGE * PAGE])
}

/// Drops the pages of `chunk` (those wholly inside it) once read: a pass over every byte
/// keeps only the pages it is reading in memory.
pub fn release(file: &ModelFile, chunk: &[u8]) {
    file.release(pages(chunk));
}

/// Asks the kernel to start reading the pages of `chunk` (those wholly inside it), which a
/// pass will read next.
pub fn ahead(file: &ModelFile, chunk: &[u8]) {
    file.will_need(pages(chunk));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::Name;

    #[test]
    fn only_row_major_views_are_contiguous() {
        let view = |strides: &[u64]| TensorView {
            tensor: 0,
            storage: Name::from("0"),
            storage_offset: 0,
            strides: strides.to_vec(),
        };
        assert!(contiguous(&view(&[3, 1]), &[2, 3]));
        assert!(contiguous(&view(&[7, 1]), &[1, 3]));
        assert!(!contiguous(&view(&[1, 2]), &[2, 3]));
        assert!(!contiguous(&view(&[1]), &[2, 3]));
    }

    #[test]
    fn pages_are_the_whole_ones_inside() {
        let buf = vec![0u8; 5 * PAGE];
        let start = buf.as_ptr() as usize;
        let first = start.next_multiple_of(PAGE) - start;
        let inside = pages(&buf[first + 1..]);
        assert_eq!(inside.len() % PAGE, 0);
        assert_eq!(inside.as_ptr() as usize % PAGE, 0);
        assert!(pages(&buf[first + 1..first + PAGE]).is_empty());
    }
}
