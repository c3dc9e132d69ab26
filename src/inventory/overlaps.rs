//! Tensors whose data shares bytes with another tensor's.

use super::{ByteRange, FileId, Inventory, TensorId};

/// A tensor whose data starts before an earlier tensor's data, in the same file, ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    /// The file both ranges are in.
    pub file: FileId,
    /// The later-starting tensor.
    pub tensor: TensorId,
    /// Its data.
    pub range: ByteRange,
    /// The earlier tensor that reaches furthest.
    pub earlier: TensorId,
    /// Where that earlier tensor's data ends.
    pub earlier_end: u64,
}

impl Overlap {
    /// The bytes the two tensors share.
    pub fn shared(&self) -> ByteRange {
        ByteRange::between(self.range.start, self.range.end().min(self.earlier_end))
    }
}

impl Inventory {
    /// Every tensor whose data overlaps the data of a tensor that starts earlier in the same
    /// file, in file and offset order: one sort of the data ranges and one sweep. Empty ranges
    /// and ranges whose end overflows are left out.
    pub fn tensor_overlaps(&self) -> Vec<Overlap> {
        let mut ranges: Vec<(FileId, u64, u64, TensorId)> = self
            .tensors
            .iter()
            .enumerate()
            .filter_map(|(id, t)| {
                let data = t.data?;
                Some((data.file, data.offset, data.end()?, id)).filter(|_| data.len > 0)
            })
            .collect();
        ranges.sort();
        let mut found = Vec::new();
        // The earlier range of the current file that reaches furthest: (file, end, tensor).
        let mut widest: Option<(FileId, u64, TensorId)> = None;
        for (file, start, end, tensor) in ranges {
            if let Some((_, earlier_end, earlier)) = widest.filter(|w| w.0 == file && start < w.1) {
                found.push(Overlap {
                    file,
                    tensor,
                    range: ByteRange::between(start, end),
                    earlier,
                    earlier_end,
                });
            }
            if widest.is_none_or(|w| w.0 != file || end > w.1) {
                widest = Some((file, end, tensor));
            }
        }
        found
    }
}
