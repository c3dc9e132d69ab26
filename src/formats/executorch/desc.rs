//! Tensor descriptions (scalar type, sizes, dim order) as programs and data files state
//! them, and their checks.

use super::dtypes;
use super::rules::{DIM_ORDER_INVALID, SCALAR_TYPE_UNKNOWN, TENSOR_SIZE_INVALID};
use crate::check::{Findings, Place};
use crate::inventory::{DType, Tensor};

/// Most dimensions a description keeps; ranks beyond are cut and reported.
const MAX_RANK: usize = 64;

/// A tensor's layout as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Desc {
    /// The ExecuTorch scalar type number.
    pub scalar_type: i8,
    /// Sizes as stored (may be negative in a hostile file).
    pub sizes: Vec<i32>,
    /// The dim order, if stored.
    pub dim_order: Option<Vec<u8>>,
}

/// What a description means once checked.
#[derive(Debug, Clone)]
pub struct Shape {
    /// Element type, if the scalar type is known.
    pub dtype: Option<DType>,
    /// Dimensions; a negative size becomes [`Tensor::NOT_A_SIZE`].
    pub dims: Vec<u64>,
}

impl Desc {
    /// A description from the vectors of a table, keeping at most [`MAX_RANK`] sizes.
    pub fn new(
        scalar_type: i8,
        sizes: Option<impl IntoIterator<Item = i32>>,
        dim_order: Option<impl IntoIterator<Item = u8>>,
    ) -> Self {
        Desc {
            scalar_type,
            sizes: sizes.map_or_else(Vec::new, |s| s.into_iter().take(MAX_RANK + 1).collect()),
            dim_order: dim_order.map(|d| d.into_iter().take(MAX_RANK + 1).collect()),
        }
    }

    /// Checks the description of `what` (a name for messages, made only for a finding) and
    /// returns its meaning. `overflow` says whether a byte size that overflows is reported
    /// here (for tensors that do not become inventory tensors, which the generic rules check).
    pub fn check(
        &self,
        what: &dyn Fn() -> String,
        place: Place,
        overflow: bool,
        out: &mut Findings,
    ) -> Shape {
        let dtype = dtypes::dtype(self.scalar_type);
        if dtype.is_none() {
            let message = format!(
                "{} has scalar type {}, which ExecuTorch does not define",
                what(),
                self.scalar_type
            );
            out.add(&SCALAR_TYPE_UNKNOWN, place, message);
        }
        let rank = self.sizes.len();
        if rank > MAX_RANK {
            let message = format!("{} has more than {MAX_RANK} dimensions", what());
            out.add(&TENSOR_SIZE_INVALID, place, message);
        }
        let dims: Vec<u64> = self
            .sizes
            .iter()
            .take(MAX_RANK)
            .map(|&d| u64::try_from(d).unwrap_or(Tensor::NOT_A_SIZE))
            .collect();
        if let Some(&bad) = self.sizes.iter().find(|&&d| d < 0) {
            let message = format!("{} has size {bad}; sizes must be zero or more", what());
            out.add(&TENSOR_SIZE_INVALID, place, message);
        }
        let (elements, bytes) = Tensor::sizes(&dims, dtype);
        let valid = !dims.contains(&Tensor::NOT_A_SIZE);
        if overflow && valid && (elements.is_none() || (dtype.is_some() && bytes.is_none())) {
            let message = format!(
                "{} has sizes {:?}, whose byte size overflows 64 bits",
                what(),
                self.sizes
            );
            out.add(&TENSOR_SIZE_INVALID, place, message);
        }
        if let Some(order) = &self.dim_order {
            if !is_permutation(order, rank) {
                let message = format!(
                    "{} has dim_order {order:?}, which is not a permutation of its {rank} dimensions",
                    what()
                );
                out.add(&DIM_ORDER_INVALID, place, message);
            }
        }
        Shape { dtype, dims }
    }
}

/// Whether `order` lists each of `0..rank` exactly once.
fn is_permutation(order: &[u8], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    order.len() == rank
        && order.iter().all(|&d| {
            seen.get_mut(usize::from(d))
                .is_some_and(|slot| !std::mem::replace(slot, true))
        })
}

#[cfg(test)]
mod tests {
    use super::is_permutation;

    #[test]
    fn dim_orders_must_name_each_dimension_once() {
        assert!(is_permutation(&[0, 1, 2], 3));
        assert!(is_permutation(&[0, 2, 3, 1], 4));
        assert!(is_permutation(&[], 0));
        assert!(!is_permutation(&[0, 0], 2));
        assert!(!is_permutation(&[0], 2));
        assert!(!is_permutation(&[0, 2], 2));
    }
}
