//! The Tensors table's sort order.

use crate::inventory::{Tensor, TensorId};

/// Tensor table columns, for sorting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorColumn {
    /// File order.
    Index,
    /// Name.
    Name,
    /// Element type.
    Dtype,
    /// Inline, external or missing.
    Storage,
    /// Dimensions.
    Shape,
    /// Element count.
    Elements,
    /// Byte size.
    Bytes,
    /// Largest power of two dividing the offset.
    Alignment,
    /// Data offset.
    Offset,
}

impl TensorColumn {
    /// The order `s` steps through: sizes first, since "which tensor is biggest" is the usual
    /// question.
    const ALL: [TensorColumn; 9] = [
        Self::Index,
        Self::Bytes,
        Self::Elements,
        Self::Offset,
        Self::Alignment,
        Self::Name,
        Self::Dtype,
        Self::Storage,
        Self::Shape,
    ];

    /// Column title.
    pub fn title(self) -> &'static str {
        match self {
            Self::Index => "#",
            Self::Name => "name",
            Self::Dtype => "dtype",
            Self::Storage => "storage",
            Self::Shape => "shape",
            Self::Elements => "elements",
            Self::Alignment => "align",
            Self::Bytes => "bytes",
            Self::Offset => "offset",
        }
    }
}

/// How the Tensors table is sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorSort {
    /// The column sorted by.
    pub column: TensorColumn,
    /// Largest or last first.
    pub descending: bool,
}

impl Default for TensorSort {
    /// File order.
    fn default() -> Self {
        TensorSort {
            column: TensorColumn::Index,
            descending: false,
        }
    }
}

impl TensorSort {
    /// Sorting by the next column: numbers largest first, text from A to Z.
    pub fn next(self) -> Self {
        let i = TensorColumn::ALL
            .iter()
            .position(|c| *c == self.column)
            .map_or(0, |i| (i + 1) % TensorColumn::ALL.len());
        let column = TensorColumn::ALL[i];
        TensorSort {
            column,
            descending: matches!(
                column,
                TensorColumn::Bytes | TensorColumn::Elements | TensorColumn::Alignment
            ),
        }
    }

    /// Sorts `rows`, indices into `t`, in this order (stable, so ties keep file order).
    pub fn apply(self, rows: &mut [TensorId], t: &[Tensor]) {
        match self.column {
            TensorColumn::Index => {}
            TensorColumn::Name => rows.sort_by(|&a, &b| t[a].name.cmp(&t[b].name)),
            TensorColumn::Dtype => rows.sort_by_key(|&i| t[i].dtype.map(|d| d.name())),
            TensorColumn::Storage => rows.sort_by_key(|&i| t[i].storage as u8),
            TensorColumn::Shape => rows.sort_by(|&a, &b| t[a].shape.cmp(&t[b].shape)),
            TensorColumn::Elements => rows.sort_by_key(|&i| t[i].elements),
            TensorColumn::Alignment => {
                rows.sort_by_key(|&i| t[i].data.map(|d| d.offset.trailing_zeros()))
            }
            TensorColumn::Bytes => rows.sort_by_key(|&i| t[i].byte_size),
            TensorColumn::Offset => rows.sort_by_key(|&i| t[i].data.map(|d| (d.file, d.offset))),
        }
        if self.descending {
            rows.reverse();
        }
    }
}
