//! The bytes of each file that two or more tensors claim, for the byte map's X marks.

use crate::inventory::{ByteRange, Inventory};

/// For each file, the sorted, disjoint ranges that more than one tensor covers, merged from
/// [`Inventory::tensor_overlaps`] once when the browser opens.
pub fn by_file(inv: &Inventory) -> Vec<Vec<ByteRange>> {
    let mut files: Vec<Vec<ByteRange>> = vec![Vec::new(); inv.files.len()];
    // Overlaps come in file and offset order, so each file's shared ranges start in order.
    for overlap in inv.tensor_overlaps() {
        let Some(shared) = files.get_mut(overlap.file) else {
            continue;
        };
        let next = overlap.shared();
        match shared.last_mut() {
            Some(last) if last.end() >= next.start => {
                *last = ByteRange::between(last.start, last.end().max(next.end()));
            }
            _ => shared.push(next),
        }
    }
    files
}

/// True if one of the sorted, disjoint `ranges` meets `start..end`.
pub fn meets(ranges: &[ByteRange], start: u64, end: u64) -> bool {
    let first = ranges.partition_point(|r| r.end() <= start);
    ranges.get(first).is_some_and(|r| r.start < end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::{DataRange, FileEntry, Storage, Tensor};

    fn tensor(offset: u64, len: u64) -> Tensor {
        Tensor {
            name: "t".into(),
            dtype: None,
            shape: Vec::new(),
            elements: None,
            byte_size: None,
            storage: Storage::External,
            data: Some(DataRange {
                file: 0,
                offset,
                len,
            }),
            graph: 0,
            node: None,
            decl_offset: None,
        }
    }

    #[test]
    fn finds_the_bytes_claimed_twice() {
        let entry = FileEntry::model("m", 100);
        let mut inv = Inventory::new(crate::inventory::FileFormat::Read("onnx"), "", entry);
        for (offset, len) in [
            (0, 10),
            (5, 10),
            (12, 2),
            (40, 10),
            (50, 5),
            (60, 20),
            (70, 5),
        ] {
            inv.tensors.push(tensor(offset, len));
        }
        let shared = by_file(&inv);
        assert_eq!(
            shared[0],
            [
                ByteRange::between(5, 10),
                ByteRange::between(12, 14),
                ByteRange::between(70, 75)
            ]
        );
        assert!(meets(&shared[0], 13, 20));
        assert!(!meets(&shared[0], 10, 12));
        assert!(!meets(&shared[0], 14, 70));
        assert!(meets(&shared[0], 74, 100));
    }
}
