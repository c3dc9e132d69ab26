//! AttributeProto read in place. Graphs, tensors and strings stay slices of the file, and the
//! list values kept are bounded by the caller's budget: the rest are only counted, so a
//! hostile list of millions of empty strings costs nothing to read.

use crate::formats::shared::numbers::{low32, protobuf_int32, signed64};
use crate::formats::shared::protobuf::{fields, Field, Scalar, Value, WireError};

/// The fields of an AttributeProto.
#[derive(Debug, Default)]
pub(crate) struct AttributeView<'b> {
    pub(crate) name: &'b [u8],
    pub(crate) ref_attr_name: Option<&'b [u8]>,
    pub(crate) r#type: Option<i32>,
    pub(crate) f: Option<f32>,
    pub(crate) i: Option<i64>,
    pub(crate) s: Option<&'b [u8]>,
    /// Encoded TensorProto, GraphProto and SparseTensorProto.
    pub(crate) t: Option<&'b [u8]>,
    pub(crate) g: Option<&'b [u8]>,
    pub(crate) sparse_tensor: Option<&'b [u8]>,
    pub(crate) floats: Vec<f32>,
    pub(crate) ints: Vec<i64>,
    pub(crate) strings: Vec<&'b [u8]>,
    pub(crate) tensors: Vec<&'b [u8]>,
    pub(crate) graphs: Vec<&'b [u8]>,
    pub(crate) sparse_tensors: Vec<&'b [u8]>,
    /// floats, ints and strings entries beyond the budget: counted, not kept.
    pub(crate) dropped: u64,
}

impl<'b> AttributeView<'b> {
    /// Reads the AttributeProto in `bytes`, keeping at most `keep` floats, ints and strings
    /// in all. Like prost, the last occurrence of a singular field wins, repeated numbers may
    /// be packed or not, and unknown fields are skipped.
    pub(crate) fn read(bytes: &'b [u8], keep: u64) -> Result<Self, WireError> {
        let mut a = AttributeView::default();
        a.read_into(bytes, keep)?;
        Ok(a)
    }

    /// How many entries the view's lists have room for, kept from attribute to attribute.
    pub(crate) fn room(&self) -> usize {
        let lists = [
            &self.strings,
            &self.tensors,
            &self.graphs,
            &self.sparse_tensors,
        ];
        lists.iter().map(|l| l.capacity()).sum::<usize>()
            + self.floats.capacity()
            + self.ints.capacity()
    }

    /// [`AttributeView::read`] into `self`, replacing what was there and reusing its lists:
    /// a node's attributes are read into the views of the node before.
    pub(crate) fn read_into(&mut self, bytes: &'b [u8], keep: u64) -> Result<(), WireError> {
        let a = self;
        (a.name, a.ref_attr_name, a.r#type, a.f, a.i) = (&[], None, None, None, None);
        (a.s, a.t, a.g, a.sparse_tensor, a.dropped) = (None, None, None, None, 0);
        a.floats.clear();
        a.ints.clear();
        for list in [
            &mut a.strings,
            &mut a.tensors,
            &mut a.graphs,
            &mut a.sparse_tensors,
        ] {
            list.clear();
        }
        let mut room = keep;
        let mut take = |dropped: &mut u64| {
            let ok = room > 0;
            room = room.saturating_sub(1);
            *dropped += u64::from(!ok);
            ok
        };
        let mut wire = fields(bytes);
        while let Some(field) = wire.next_field() {
            let Field { at, number, value } = field?;
            let fail = |what: String| WireError::in_field(number, at, what);
            match (number, value) {
                (1, Value::Bytes(b)) => a.name = b,
                (21, Value::Bytes(b)) => a.ref_attr_name = Some(b),
                (20, Value::Varint(v)) => a.r#type = Some(protobuf_int32(v)),
                (2, Value::Fixed32(v)) => a.f = Some(f32::from_bits(v)),
                (3, Value::Varint(v)) => a.i = Some(signed64(v)),
                (4, Value::Bytes(b)) => a.s = Some(b),
                (5, Value::Bytes(b)) => a.t = Some(b),
                (6, Value::Bytes(b)) => a.g = Some(b),
                (22, Value::Bytes(b)) => a.sparse_tensor = Some(b),
                (9, Value::Bytes(b)) if take(&mut a.dropped) => a.strings.push(b),
                (9, Value::Bytes(_)) => {}
                (10, Value::Bytes(b)) => a.tensors.push(b),
                (11, Value::Bytes(b)) => a.graphs.push(b),
                (23, Value::Bytes(b)) => a.sparse_tensors.push(b),
                (7, v) => {
                    let (floats, dropped) = (&mut a.floats, &mut a.dropped);
                    v.scalars(Scalar::Fixed32, |x| {
                        if take(dropped) {
                            floats.push(f32::from_bits(low32(x)));
                        }
                    })
                    .map_err(fail)?;
                }
                (8, v) => {
                    let (ints, dropped) = (&mut a.ints, &mut a.dropped);
                    v.scalars(Scalar::Varint, |x| {
                        if take(dropped) {
                            ints.push(signed64(x));
                        }
                    })
                    .map_err(fail)?;
                }
                (1..=6 | 9..=11 | 20..=23, v) => {
                    return Err(fail(format!("unexpected {} value", v.wire_type())))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! The view must accept and refuse exactly what prost does, with the same fields.

    use super::AttributeView;
    use crate::formats::onnx::proto::{AttributeProto, SparseTensorProto};
    use crate::formats::onnx::test_rng::{differential, Rng};
    use prost::Message;

    fn random_attribute(rng: &mut Rng) -> AttributeProto {
        let maybe = |rng: &mut Rng| (rng.below(3) == 0).then(|| rng.bytes(6));
        AttributeProto {
            name: Some(rng.bytes(5)),
            ref_attr_name: maybe(rng),
            r#type: (rng.below(2) == 0).then(|| rng.below(14) as i32),
            f: (rng.below(3) == 0).then(|| rng.below(100) as f32 / 7.0),
            i: (rng.below(3) == 0).then(|| rng.below(1 << 20) as i64 - 5000),
            s: maybe(rng),
            t: maybe(rng),
            g: maybe(rng),
            sparse_tensor: (rng.below(4) == 0).then(|| SparseTensorProto {
                values: Some(rng.bytes(3)),
                indices: None,
                dims: vec![2, 3],
            }),
            floats: (0..rng.below(4)).map(|i| i as f32 * 0.5).collect(),
            ints: (0..rng.below(4)).map(|i| (i as i64 - 1) << 33).collect(),
            strings: (0..rng.below(3)).map(|_| rng.bytes(4)).collect(),
            tensors: (0..rng.below(2)).map(|_| rng.bytes(4)).collect(),
            graphs: (0..rng.below(2)).map(|_| rng.bytes(4)).collect(),
            sparse_tensors: Vec::new(),
        }
    }

    /// The AttributeProto prost would decode, rebuilt from the view; `None` if a nested
    /// message (a sparse tensor) does not decode.
    fn rebuilt(a: &AttributeView<'_>) -> Option<AttributeProto> {
        let bytes = |b: &Option<&[u8]>| b.map(|b| b.to_vec().into());
        let list = |v: &[&[u8]]| v.iter().map(|b| b.to_vec().into()).collect();
        let sparse = |b: &[u8]| SparseTensorProto::decode(b).ok();
        Some(AttributeProto {
            name: (!a.name.is_empty()).then(|| a.name.to_vec().into()),
            ref_attr_name: bytes(&a.ref_attr_name),
            r#type: a.r#type,
            f: a.f,
            i: a.i,
            s: bytes(&a.s),
            t: bytes(&a.t),
            g: bytes(&a.g),
            sparse_tensor: match a.sparse_tensor {
                Some(b) => Some(sparse(b)?),
                None => None,
            },
            floats: a.floats.clone(),
            ints: a.ints.clone(),
            strings: list(&a.strings),
            tensors: list(&a.tensors),
            graphs: list(&a.graphs),
            sparse_tensors: a
                .sparse_tensors
                .iter()
                .map(|b| sparse(b))
                .collect::<Option<_>>()?,
        })
    }

    /// Both accept `bytes` with the same fields, or both refuse it; returns whether accepted.
    fn agree(bytes: &[u8]) -> bool {
        let ours = AttributeView::read(bytes, u64::MAX).ok();
        let ours = ours.as_ref().and_then(rebuilt);
        let theirs = AttributeProto::decode(bytes);
        assert_eq!(
            ours.is_some(),
            theirs.is_ok(),
            "disagree on {bytes:02x?}: {theirs:?}"
        );
        let (Some(mine), Ok(mut attr)) = (ours, theirs) else {
            return false;
        };
        attr.name = attr.name.filter(|n| !n.is_empty());
        // Compare floats by bits: NaN payloads must survive too.
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&mine.floats), bits(&attr.floats));
        assert_eq!(mine.f.map(f32::to_bits), attr.f.map(f32::to_bits));
        let strip = |mut a: AttributeProto| {
            (a.floats, a.f) = (Vec::new(), None);
            a
        };
        assert_eq!(strip(mine), strip(attr));
        true
    }

    #[test]
    fn agrees_with_prost_on_valid_and_mutated_attributes() {
        differential(
            0xa77e_0000_0000_0001,
            |rng| random_attribute(rng).encode_to_vec(),
            agree,
        );
    }

    /// A view read into again holds what a fresh one would: nothing of the attribute before.
    #[test]
    fn reading_into_a_used_view_reads_as_a_fresh_one() {
        let mut rng = Rng::new(0xa77e_0000_0000_0002);
        let messages: Vec<Vec<u8>> = (0..300)
            .map(|_| random_attribute(&mut rng).encode_to_vec())
            .collect();
        let mut used = AttributeView::default();
        for bytes in &messages {
            let fresh = AttributeView::read(bytes, 5);
            let again = used.read_into(bytes, 5);
            assert_eq!(fresh.is_ok(), again.is_ok());
            if let Ok(fresh) = fresh {
                assert_eq!(rebuilt(&used), rebuilt(&fresh));
                assert_eq!(used.dropped, fresh.dropped);
            }
        }
    }

    #[test]
    fn keeps_list_values_up_to_the_budget_and_counts_the_rest() {
        let a = AttributeProto {
            ints: vec![1; 10],
            strings: vec![bytes::Bytes::new(); 10],
            ..Default::default()
        };
        let bytes = a.encode_to_vec();
        let view = AttributeView::read(&bytes, 12).unwrap();
        assert_eq!(
            (view.ints.len(), view.strings.len(), view.dropped),
            (10, 2, 8)
        );
    }
}
