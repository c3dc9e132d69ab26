//! TensorProto read in place. Names and raw_data are slices of the file, and the typed value
//! fields are counted, never decoded: a hostile tensor cannot make rtenx allocate more than a
//! few bytes for each dimension, and checking a tensor touches none of its data.

use crate::formats::onnx::dtypes::Typed;
use crate::formats::shared::numbers::{protobuf_int32, signed64};
use crate::formats::shared::protobuf::{fields, Field, Scalar, Value, WireError};

/// The fields of a TensorProto that rtenx checks.
#[derive(Debug, Default)]
pub(crate) struct TensorView<'b> {
    pub(crate) dims: Vec<i64>,
    pub(crate) data_type: Option<i32>,
    pub(crate) name: &'b [u8],
    pub(crate) raw_data: Option<&'b [u8]>,
    /// `external_data` entries as (key, value).
    pub(crate) external_data: Vec<(&'b [u8], &'b [u8])>,
    pub(crate) data_location: Option<i32>,
    /// How many entries each typed value field holds, indexed like [`Typed::ALL`].
    typed: [u64; 6],
    /// Dimensions beyond the budget: counted, not kept.
    pub(crate) dropped: u64,
}

impl<'b> TensorView<'b> {
    /// Reads the TensorProto in `bytes`, keeping at most `keep` dimensions and external data
    /// entries. Like prost, the last occurrence of a singular field wins, repeated scalars
    /// may be packed or not, and unknown fields are skipped.
    pub(crate) fn read(bytes: &'b [u8], keep: u64) -> Result<Self, WireError> {
        let mut t = TensorView::default();
        let mut room = keep;
        let mut wire = fields(bytes);
        while let Some(field) = wire.next_field() {
            let Field { at, number, value } = field?;
            let fail = |what: String| WireError::in_field(number, at, what);
            match (number, value) {
                (1, v) => {
                    let (dims, dropped) = (&mut t.dims, &mut t.dropped);
                    v.scalars(Scalar::Varint, |d| match room.checked_sub(1) {
                        Some(left) => {
                            room = left;
                            dims.push(signed64(d));
                        }
                        None => *dropped += 1,
                    })
                    .map_err(fail)?
                }
                (2, Value::Varint(v)) => t.data_type = Some(protobuf_int32(v)),
                (8, Value::Bytes(b)) => t.name = b,
                (9, Value::Bytes(b)) => t.raw_data = Some(b),
                (13, Value::Bytes(b)) => {
                    let entry = entry(b).map_err(fail)?;
                    match room.checked_sub(1) {
                        Some(left) => {
                            room = left;
                            t.external_data.push(entry);
                        }
                        None => t.dropped += 1,
                    }
                }
                (14, Value::Varint(v)) => t.data_location = Some(protobuf_int32(v)),
                (2 | 8 | 9 | 13 | 14, v) => return Err(fail(format!("{} value", v.wire_type()))),
                (n, v) => {
                    let Some((typed, scalar)) = Typed::of_field(n) else {
                        continue;
                    };
                    let count = match (scalar, v) {
                        (Some(kind), v) => v.count_scalars(kind).map_err(fail)?,
                        (None, Value::Bytes(_)) => 1,
                        (None, v) => return Err(fail(format!("{} string", v.wire_type()))),
                    };
                    if let Some(slot) = t.typed.get_mut(typed as usize) {
                        *slot = slot.saturating_add(count);
                    }
                }
            }
        }
        Ok(t)
    }

    /// The entries stored in `field`.
    pub(crate) fn count(&self, field: Typed) -> u64 {
        self.typed.get(field as usize).copied().unwrap_or(0)
    }
}

/// The encoded values and indices TensorProtos of a SparseTensorProto.
pub(crate) type SparseParts<'b> = (Option<&'b [u8]>, Option<&'b [u8]>);

/// The encoded values (1) and indices (2) TensorProtos of a SparseTensorProto. Its dims (3)
/// are checked, not kept: the values and indices carry the shapes rtenx reports.
pub(crate) fn sparse_parts(bytes: &[u8]) -> Result<SparseParts<'_>, WireError> {
    let (mut values, mut indices) = (None, None);
    for field in fields(bytes) {
        let Field { at, number, value } = field?;
        match (number, value) {
            (1, Value::Bytes(b)) => values = Some(b),
            (2, Value::Bytes(b)) => indices = Some(b),
            (3, v) => v
                .scalars(Scalar::Varint, |_| {})
                .map_err(|what| WireError::in_field(3, at, what))?,
            (1 | 2, v) => return Err(WireError::unexpected(number, v, at)),
            _ => {}
        }
    }
    Ok((values, indices))
}

/// A StringStringEntryProto: key (1) and value (2).
fn entry(bytes: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let (mut key, mut value): (&[u8], &[u8]) = (&[], &[]);
    for field in fields(bytes) {
        let Field {
            number, value: v, ..
        } = field.map_err(|e| format!("entry: {e}"))?;
        match (number, v) {
            (1, Value::Bytes(b)) => key = b,
            (2, Value::Bytes(b)) => value = b,
            (1 | 2, v) => return Err(format!("entry field {number}: {} value", v.wire_type())),
            _ => {}
        }
    }
    Ok((key, value))
}

#[cfg(test)]
mod tests {
    //! The view must accept and refuse exactly what prost does, with the same fields.

    use super::{TensorView, Typed};
    use crate::formats::onnx::proto::{StringStringEntryProto, TensorProto};
    use crate::formats::onnx::test_rng::{differential, Rng};
    use prost::Message;

    fn random_tensor(rng: &mut Rng) -> TensorProto {
        let n = rng.below(5);
        TensorProto {
            dims: (0..rng.below(4))
                .map(|_| rng.below(300) as i64 - 2)
                .collect(),
            data_type: (rng.below(4) != 0).then(|| rng.below(30) as i32),
            name: (rng.below(3) != 0).then(|| rng.bytes(6)),
            raw_data: (rng.below(3) == 0).then(|| rng.bytes(16)),
            float_data: (0..n * rng.below(2)).map(|i| i as f32).collect(),
            int32_data: (0..n * rng.below(2)).map(|i| i as i32 * 1000 - 7).collect(),
            string_data: (0..n * rng.below(2)).map(|_| rng.bytes(3)).collect(),
            int64_data: (0..n * rng.below(2)).map(|i| -(i as i64) << 40).collect(),
            double_data: (0..n * rng.below(2)).map(|i| i as f64).collect(),
            uint64_data: (0..n * rng.below(2)).map(|i| (i as u64) << 60).collect(),
            external_data: (0..rng.below(3))
                .map(|_| StringStringEntryProto {
                    key: Some(rng.bytes(4)),
                    value: (rng.below(2) == 0).then(|| rng.bytes(4)),
                })
                .collect(),
            data_location: (rng.below(2) == 0).then(|| rng.below(2) as i32),
        }
    }

    /// Both accept `bytes` with the same fields, or both refuse it; returns whether accepted.
    fn agree(bytes: &[u8]) -> bool {
        let ours = TensorView::read(bytes, u64::MAX);
        let theirs = TensorProto::decode(bytes);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "disagree on {bytes:02x?}: {ours:?} / {theirs:?}"
        );
        let (Ok(view), Ok(t)) = (ours, theirs) else {
            return false;
        };
        assert_eq!(view.dims, t.dims);
        assert_eq!(view.data_type, t.data_type);
        assert_eq!(view.name, t.name.as_deref().unwrap_or_default());
        assert_eq!(view.raw_data, t.raw_data.as_deref());
        assert_eq!(view.data_location, t.data_location);
        let entries: Vec<(Vec<u8>, Vec<u8>)> = t
            .external_data
            .iter()
            .map(|e| {
                let field = |f: &Option<bytes::Bytes>| f.as_deref().unwrap_or_default().to_vec();
                (field(&e.key), field(&e.value))
            })
            .collect();
        let mine: Vec<(Vec<u8>, Vec<u8>)> = view
            .external_data
            .iter()
            .map(|(k, v)| (k.to_vec(), v.to_vec()))
            .collect();
        assert_eq!(mine, entries);
        let lens = [
            t.float_data.len(),
            t.int32_data.len(),
            t.string_data.len(),
            t.int64_data.len(),
            t.double_data.len(),
            t.uint64_data.len(),
        ];
        for (field, len) in Typed::ALL.into_iter().zip(lens) {
            assert_eq!(view.count(field), len as u64, "{}", field.name());
        }
        true
    }

    #[test]
    fn agrees_with_prost_on_valid_and_mutated_tensors() {
        differential(
            0x7e45_0000_0000_0001,
            |rng| random_tensor(rng).encode_to_vec(),
            agree,
        );
    }

    #[test]
    fn sparse_parts_agree_with_prost() {
        use crate::formats::onnx::proto::SparseTensorProto;
        let make = |rng: &mut Rng| {
            SparseTensorProto {
                values: (rng.below(3) != 0).then(|| rng.bytes(5)),
                indices: (rng.below(3) != 0).then(|| rng.bytes(5)),
                dims: (0..rng.below(4)).map(|i| i as i64 * 300).collect(),
            }
            .encode_to_vec()
        };
        let agree = |bytes: &[u8]| {
            let ours = super::sparse_parts(bytes);
            let theirs = SparseTensorProto::decode(bytes);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{bytes:02x?}");
            let (Ok((values, indices)), Ok(s)) = (ours, theirs) else {
                return false;
            };
            assert_eq!(values, s.values.as_deref());
            assert_eq!(indices, s.indices.as_deref());
            true
        };
        differential(0x5a55_0000_0000_0001, make, agree);
    }

    #[test]
    fn agrees_with_prost_on_packing_edge_cases() {
        let cases: &[&[u8]] = &[
            // dims unpacked, packed, packed with a cut-off varint.
            &[0x08, 0x03, 0x08, 0x04],
            &[0x0a, 0x02, 0x03, 0x04],
            &[0x0a, 0x02, 0x03, 0x84],
            &[0x0a, 0x02, 0x03, 0x84, 0x01],
            // float_data: packed 8 bytes, packed 5 bytes, unpacked, varint (wrong).
            &[0x22, 0x08, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40],
            &[0x22, 0x05, 0, 0, 0x80, 0x3f, 0],
            &[0x25, 0, 0, 0x80, 0x3f],
            &[0x20, 0x01],
            // double_data packed 7 bytes; uint64_data unpacked; string_data as varint.
            &[0x52, 0x07, 0, 0, 0, 0, 0, 0, 0],
            &[0x58, 0xff, 0x01],
            &[0x30, 0x01],
            // data_type as bytes; external_data entry with a varint key.
            &[0x12, 0x00],
            &[0x6a, 0x02, 0x08, 0x01],
            &[0x6a, 0x03, 0x0a, 0x01, 0x41],
        ];
        for case in cases {
            agree(case);
        }
    }
}
