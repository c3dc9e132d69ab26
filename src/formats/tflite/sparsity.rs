//! A sparse tensor's metadata, checked as the verifier checks it
//! (`VerifyAndCountSparseElements`): the traversal order, the block map, one dimension
//! metadata per traversed dimension, each sparse dimension's segments and indices, and the
//! number of stored values against the buffer.

use super::reader::Reader;
use super::rules::SPARSITY;
use super::schema::{self, DimensionType};
use crate::check::Place;
use crate::inventory::DType;

/// Checks tensor `index`'s sparsity against its dense shape `dims` and its buffer's `len`
/// bytes of `dtype` values.
pub fn check(
    r: &mut Reader<'_, '_>,
    index: usize,
    s: schema::SparsityParameters<'_>,
    dims: &[i32],
    dtype: Option<DType>,
    len: u64,
    place: Place,
) {
    if let Err(problem) = values(r, s, dims).and_then(|count| {
        // Not counted: the scan's bound was reached (shared index arrays).
        let Some(count) = count else { return Ok(()) };
        let need = dtype.and_then(|d| d.byte_size(count));
        match need {
            Some(need) if need != len => Err(format!(
                "its metadata describes {count} stored values ({need} bytes), but its buffer has {len} bytes"
            )),
            _ => Ok(()),
        }
    }) {
        r.cx.report(
            &SPARSITY,
            place,
            format!("tensor {index}'s sparsity is invalid: {problem}"),
        );
    }
}

/// The number of values the metadata stores (`None` once the reader's scan bound is
/// reached), or what is wrong with it.
fn values(
    r: &mut Reader<'_, '_>,
    s: schema::SparsityParameters<'_>,
    dims: &[i32],
) -> Result<Option<u64>, String> {
    let lists = [
        s.traversal_order().map(|v| v.bytes().len()),
        s.block_map().map(|v| v.bytes().len()),
        s.dim_metadata().map(|v| v.bytes().len()),
    ];
    if !r.scan(lists.iter().flatten().sum::<usize>() as u64) {
        return Ok(None);
    }
    let order: Vec<i32> = (s.traversal_order())
        .map(|v| {
            r.seen(v.bytes());
            v.iter().collect()
        })
        .ok_or("it has no traversal_order")?;
    let block_map: Vec<i32> = (s.block_map())
        .map(|v| {
            r.seen(v.bytes());
            v.iter().collect()
        })
        .unwrap_or_default();
    let metadata = s.dim_metadata().ok_or("it has no dim_metadata")?;
    let rank = dims.len();
    let total = order.len();
    if total != rank + block_map.len() {
        return Err(format!(
            "traversal_order has {total} entries, but the shape has {rank} dimensions and block_map {}",
            block_map.len()
        ));
    }
    if metadata.len() != total {
        return Err(format!(
            "dim_metadata has {} entries, but traversal_order {total}",
            metadata.len()
        ));
    }
    // The first `rank` entries permute the dimensions, the rest the block dimensions.
    let mut seen = vec![false; total];
    for (i, &d) in order.iter().enumerate() {
        let range = if i < rank { 0..rank } else { rank..total };
        let d = usize::try_from(d).ok().filter(|d| range.contains(d));
        match d.and_then(|d| seen.get_mut(d)) {
            Some(s) if !*s => *s = true,
            _ => return Err(format!("traversal_order {order:?} is not a permutation")),
        }
    }
    if let Some(b) = block_map
        .iter()
        .find(|&&b| usize::try_from(b).map_or(true, |b| b >= rank))
    {
        return Err(format!(
            "block_map names dimension {b} of a rank-{rank} tensor"
        ));
    }
    // Each traversed dimension's size: a block dimension's from its metadata, an original
    // dimension's from the shape divided by its block's size.
    let dense = |k: usize| metadata.get(k).dense_size();
    let size_of = |d: usize| -> i64 {
        let full = dims.get(d).map_or(0, |&n| i64::from(n));
        let block = (block_map.iter().position(|&b| usize::try_from(b) == Ok(d)))
            .and_then(|j| {
                order
                    .iter()
                    .position(|&o| usize::try_from(o) == Ok(rank + j))
            })
            .map_or(1, |k| i64::from(dense(k)));
        if block > 0 {
            full / block
        } else {
            0
        }
    };
    let mut count: u64 = 1;
    for (k, m) in metadata.iter().enumerate() {
        let d = order
            .get(k)
            .and_then(|&d| usize::try_from(d).ok())
            .unwrap_or(0);
        let size = if d < rank {
            size_of(d)
        } else {
            i64::from(m.dense_size())
        };
        if m.format() == DimensionType::SPARSE_CSR {
            let (Some(segments), Some(indices)) =
                (index_vector(r, m, true), index_vector(r, m, false))
            else {
                return Ok(None);
            };
            let segments =
                segments.ok_or(format!("dimension {k} is sparse but has no array_segments"))?;
            let indices =
                indices.ok_or(format!("dimension {k} is sparse but has no array_indices"))?;
            if segments.len() as u64 != count.saturating_add(1) {
                return Err(format!(
                    "dimension {k} has {} segments, but the dimensions before it hold {count} positions (one more expected)",
                    segments.len()
                ));
            }
            let monotone = segments.windows(2).all(|w| w.first() <= w.get(1));
            if segments.first() != Some(&0)
                || !monotone
                || segments.last() != Some(&(indices.len() as u64))
            {
                return Err(format!(
                    "dimension {k}'s segments do not run from 0 to its {} indices without decreasing",
                    indices.len()
                ));
            }
            if let Some(i) = indices
                .iter()
                .find(|&&i| i64::try_from(i).map_or(true, |i| i >= size))
            {
                return Err(format!(
                    "dimension {k} has index {i}, but its size is {size}"
                ));
            }
            count = indices.len() as u64;
        } else {
            let size = u64::try_from(m.dense_size())
                .map_err(|_| format!("dimension {k} has dense_size {}", m.dense_size()))?;
            count = count
                .checked_mul(size)
                .ok_or(format!("dimension {k} overflows the value count"))?;
        }
    }
    Ok(Some(count))
}

/// The values of a sparse dimension's segments (or indices), whatever their element type:
/// `Some(None)` if it has none, `None` once the reader's scan bound is reached.
fn index_vector(
    r: &mut Reader<'_, '_>,
    m: schema::DimensionMetadata<'_>,
    segments: bool,
) -> Option<Option<Vec<u64>>> {
    let (int32, uint16, uint8) = if segments {
        (
            m.array_segments_as_int_32_vector(),
            m.array_segments_as_uint_16_vector(),
            m.array_segments_as_uint_8_vector(),
        )
    } else {
        (
            m.array_indices_as_int_32_vector(),
            m.array_indices_as_uint_16_vector(),
            m.array_indices_as_uint_8_vector(),
        )
    };
    let bytes = (int32.and_then(|v| v.values()).map(|v| v.bytes()))
        .or_else(|| uint16.and_then(|v| v.values()).map(|v| v.bytes()))
        .or_else(|| uint8.and_then(|v| v.values()).map(|v| v.bytes()));
    let Some(bytes) = bytes else {
        return Some(None);
    };
    // Shared index arrays are scanned within the reader's bound.
    if !r.scan(bytes.len() as u64) {
        return None;
    }
    r.seen(bytes);
    let values = if let Some(v) = int32.and_then(|v| v.values()) {
        (v.iter())
            .map(|x| u64::try_from(x).unwrap_or(u64::MAX))
            .collect()
    } else if let Some(v) = uint16.and_then(|v| v.values()) {
        v.iter().map(u64::from).collect()
    } else {
        (uint8.and_then(|v| v.values()))
            .map(|v| v.iter().map(u64::from).collect())
            .unwrap_or_default()
    };
    Some(Some(values))
}
