//! ModelProto and FunctionProto read in place, with their lists kept within a budget.

use crate::formats::shared::numbers::signed64;
use crate::formats::shared::protobuf::{fields, varint, Field, Value, WireError};

/// An optional bytes field and an optional varint field of a small message, such as
/// OperatorSetIdProto (domain, version).
type Pair<'b> = (Option<&'b [u8]>, Option<i64>);

/// Two optional bytes fields of a small message, such as StringStringEntryProto (key, value).
type Strings<'b> = (Option<&'b [u8]>, Option<&'b [u8]>);

/// The fields of a ModelProto that rtenx reads.
#[derive(Debug, Default)]
pub(crate) struct ModelView<'b> {
    pub(crate) ir_version: Option<i64>,
    /// (domain, version) of each opset import.
    pub(crate) opset_import: Vec<Pair<'b>>,
    pub(crate) producer_name: Option<&'b [u8]>,
    pub(crate) producer_version: Option<&'b [u8]>,
    pub(crate) domain: Option<&'b [u8]>,
    pub(crate) model_version: Option<i64>,
    pub(crate) doc_string: Option<&'b [u8]>,
    /// Encoded GraphProto.
    pub(crate) graph: Option<&'b [u8]>,
    /// (key, value) of each metadata entry.
    pub(crate) metadata_props: Vec<Strings<'b>>,
    /// (initialization, algorithm) graphs of each training info.
    pub(crate) training_info: Vec<Strings<'b>>,
    /// Encoded FunctionProtos.
    pub(crate) functions: Vec<&'b [u8]>,
    /// List entries beyond the budget: counted, not kept.
    pub(crate) dropped: u64,
}

/// The fields of a FunctionProto that rtenx reads.
#[derive(Debug, Default)]
pub(crate) struct FunctionView<'b> {
    pub(crate) name: Option<&'b [u8]>,
    pub(crate) domain: Option<&'b [u8]>,
    pub(crate) inputs: Vec<&'b [u8]>,
    pub(crate) outputs: Vec<&'b [u8]>,
    /// Encoded NodeProtos and AttributeProtos.
    pub(crate) nodes: Vec<&'b [u8]>,
    pub(crate) attributes: Vec<&'b [u8]>,
    /// (domain, version) of each opset import.
    pub(crate) opset_import: Vec<Pair<'b>>,
    /// List entries beyond the budget: counted, not kept.
    pub(crate) dropped: u64,
}

/// Pushes `item` unless the budget `room` is spent, in which case it is counted in `dropped`.
fn keep<T>(list: &mut Vec<T>, item: T, room: &mut u64, dropped: &mut u64) {
    match room.checked_sub(1) {
        Some(left) => {
            *room = left;
            list.push(item);
        }
        None => *dropped += 1,
    }
}

/// A small message of two fields: 1 is bytes, 2 is a varint if `varint2`, else bytes.
fn small_message(
    bytes: &[u8],
    varint2: bool,
) -> Result<(Option<&[u8]>, Option<Value<'_>>), WireError> {
    let (mut first, mut second) = (None, None);
    for field in fields(bytes) {
        let Field { at, number, value } = field?;
        match (number, value) {
            (1, Value::Bytes(b)) => first = Some(b),
            (2, v @ Value::Varint(_)) if varint2 => second = Some(v),
            (2, v @ Value::Bytes(_)) if !varint2 => second = Some(v),
            (1 | 2, other) => return Err(WireError::unexpected(number, other, at)),
            _ => {}
        }
    }
    Ok((first, second))
}

/// OperatorSetIdProto: (domain, version).
fn pair(bytes: &[u8]) -> Result<Pair<'_>, WireError> {
    let (domain, version) = small_message(bytes, true)?;
    let version = version.and_then(|v| match v {
        Value::Varint(v) => Some(signed64(v)),
        _ => None,
    });
    Ok((domain, version))
}

/// StringStringEntryProto (key, value) or TrainingInfoProto (initialization, algorithm).
pub(crate) fn strings(bytes: &[u8]) -> Result<Strings<'_>, WireError> {
    if let Some((first, second)) = canonical_strings(bytes) {
        return Ok((Some(first), Some(second)));
    }
    let (first, second) = small_message(bytes, false)?;
    let second = second.and_then(|v| match v {
        Value::Bytes(b) => Some(b),
        _ => None,
    });
    Ok((first, second))
}

/// Fields 1 and 2 of `bytes` if it holds exactly them, once each and in that order, with a
/// field 1 under 128 bytes: how every writer encodes a metadata entry. Anything else is
/// `None`, for [`small_message`] to read field by field. Exporters put several entries on
/// every node (a stack trace, the module path), so this is most of reading a node.
fn canonical_strings(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let (&[0x0a, len], rest) = bytes.split_first_chunk::<2>()? else {
        return None;
    };
    if len >= 0x80 {
        return None;
    }
    let (first, rest) = rest.split_at_checked(usize::from(len))?;
    let (&0x12, rest) = rest.split_first()? else {
        return None;
    };
    let mut at = 0;
    // Nine bytes hold 63 bits: a longer length is left to the full reader, which refuses
    // what overflows.
    let len = varint(rest, &mut at).filter(|_| at < 10)?;
    let second = rest.get(at..)?;
    (second.len() as u64 == len).then_some((first, second))
}

impl<'b> ModelView<'b> {
    /// Reads the ModelProto in `bytes`, keeping at most `budget` list entries in all.
    pub(crate) fn read(bytes: &'b [u8], budget: u64) -> Result<Self, WireError> {
        let mut m = ModelView::default();
        let mut room = budget;
        for field in fields(bytes) {
            let Field { at, number, value } = field?;
            let dropped = &mut m.dropped;
            match (number, value) {
                (1, Value::Varint(v)) => m.ir_version = Some(signed64(v)),
                (5, Value::Varint(v)) => m.model_version = Some(signed64(v)),
                (2, Value::Bytes(b)) => m.producer_name = Some(b),
                (3, Value::Bytes(b)) => m.producer_version = Some(b),
                (4, Value::Bytes(b)) => m.domain = Some(b),
                (6, Value::Bytes(b)) => m.doc_string = Some(b),
                (7, Value::Bytes(b)) => m.graph = Some(b),
                (8, Value::Bytes(b)) => keep(&mut m.opset_import, pair(b)?, &mut room, dropped),
                (14, Value::Bytes(b)) => {
                    keep(&mut m.metadata_props, strings(b)?, &mut room, dropped)
                }
                (20, Value::Bytes(b)) => {
                    keep(&mut m.training_info, strings(b)?, &mut room, dropped)
                }
                (25, Value::Bytes(b)) => keep(&mut m.functions, b, &mut room, dropped),
                (1..=8 | 14 | 20 | 25, other) => {
                    return Err(WireError::unexpected(number, other, at))
                }
                _ => {}
            }
        }
        Ok(m)
    }
}

impl<'b> FunctionView<'b> {
    /// Reads the FunctionProto in `bytes`, keeping at most `budget` list entries in all.
    pub(crate) fn read(bytes: &'b [u8], budget: u64) -> Result<Self, WireError> {
        let mut f = FunctionView::default();
        let mut room = budget;
        for field in fields(bytes) {
            let Field { at, number, value } = field?;
            let dropped = &mut f.dropped;
            match (number, value) {
                (1, Value::Bytes(b)) => f.name = Some(b),
                (10, Value::Bytes(b)) => f.domain = Some(b),
                (4, Value::Bytes(b)) => keep(&mut f.inputs, b, &mut room, dropped),
                (5, Value::Bytes(b)) => keep(&mut f.outputs, b, &mut room, dropped),
                (7, Value::Bytes(b)) => keep(&mut f.nodes, b, &mut room, dropped),
                (11, Value::Bytes(b)) => keep(&mut f.attributes, b, &mut room, dropped),
                (9, Value::Bytes(b)) => keep(&mut f.opset_import, pair(b)?, &mut room, dropped),
                (1 | 4 | 5 | 7 | 9 | 10 | 11, other) => {
                    return Err(WireError::unexpected(number, other, at))
                }
                _ => {}
            }
        }
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    //! The views must accept and refuse exactly what prost does, with the same fields.

    use super::{FunctionView, ModelView};
    use crate::formats::onnx::proto::{
        FunctionProto, ModelProto, OperatorSetIdProto, StringStringEntryProto, TrainingInfoProto,
    };
    use crate::formats::onnx::test_rng::{differential, Rng};
    use prost::Message;

    fn maybe(rng: &mut Rng) -> Option<bytes::Bytes> {
        (rng.below(3) != 0).then(|| rng.bytes(4))
    }

    fn opsets(rng: &mut Rng) -> Vec<OperatorSetIdProto> {
        (0..rng.below(3))
            .map(|_| OperatorSetIdProto {
                domain: maybe(rng),
                version: (rng.below(2) == 0).then(|| rng.below(30) as i64),
            })
            .collect()
    }

    fn random_function(rng: &mut Rng) -> FunctionProto {
        FunctionProto {
            name: maybe(rng),
            input: (0..rng.below(3)).map(|_| rng.bytes(3)).collect(),
            output: (0..rng.below(3)).map(|_| rng.bytes(3)).collect(),
            node: (0..rng.below(3)).map(|_| rng.bytes(6)).collect(),
            opset_import: opsets(rng),
            domain: maybe(rng),
            attribute_proto: (0..rng.below(2)).map(|_| rng.bytes(5)).collect(),
        }
    }

    fn random_model(rng: &mut Rng) -> ModelProto {
        ModelProto {
            ir_version: (rng.below(3) != 0).then(|| rng.below(12) as i64),
            opset_import: opsets(rng),
            producer_name: maybe(rng),
            producer_version: maybe(rng),
            domain: maybe(rng),
            model_version: (rng.below(2) == 0).then(|| rng.below(9) as i64),
            doc_string: maybe(rng),
            graph: maybe(rng),
            metadata_props: (0..rng.below(3))
                .map(|_| StringStringEntryProto {
                    key: maybe(rng),
                    value: maybe(rng),
                })
                .collect(),
            training_info: (0..rng.below(2))
                .map(|_| TrainingInfoProto {
                    initialization: maybe(rng),
                    algorithm: maybe(rng),
                })
                .collect(),
            functions: (0..rng.below(2))
                .map(|_| random_function(rng).encode_to_vec().into())
                .collect(),
        }
    }

    fn owned(b: Option<&[u8]>) -> Option<bytes::Bytes> {
        b.map(|b| b.to_vec().into())
    }

    fn agree_model(bytes: &[u8]) -> bool {
        let theirs = ModelProto::decode(bytes);
        let ours = ModelView::read(bytes, u64::MAX);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "disagree on {bytes:02x?}: {theirs:?}"
        );
        let (Ok(m), Ok(model)) = (ours, theirs) else {
            return false;
        };
        let mine = ModelProto {
            ir_version: m.ir_version,
            opset_import: (m.opset_import.iter())
                .map(|&(domain, version)| OperatorSetIdProto {
                    domain: owned(domain),
                    version,
                })
                .collect(),
            producer_name: owned(m.producer_name),
            producer_version: owned(m.producer_version),
            domain: owned(m.domain),
            model_version: m.model_version,
            doc_string: owned(m.doc_string),
            graph: owned(m.graph),
            metadata_props: (m.metadata_props.iter())
                .map(|&(key, value)| StringStringEntryProto {
                    key: owned(key),
                    value: owned(value),
                })
                .collect(),
            training_info: (m.training_info.iter())
                .map(|&(initialization, algorithm)| TrainingInfoProto {
                    initialization: owned(initialization),
                    algorithm: owned(algorithm),
                })
                .collect(),
            functions: m
                .functions
                .iter()
                .map(|&f| owned(Some(f)).unwrap())
                .collect(),
        };
        assert_eq!(mine, model);
        true
    }

    fn agree_function(bytes: &[u8]) -> bool {
        let theirs = FunctionProto::decode(bytes);
        let ours = FunctionView::read(bytes, u64::MAX);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "disagree on {bytes:02x?}: {theirs:?}"
        );
        let (Ok(f), Ok(function)) = (ours, theirs) else {
            return false;
        };
        let list =
            |v: &[&[u8]]| -> Vec<bytes::Bytes> { v.iter().map(|b| b.to_vec().into()).collect() };
        assert_eq!(f.name, function.name.as_deref());
        assert_eq!(f.domain, function.domain.as_deref());
        assert_eq!(list(&f.inputs), function.input);
        assert_eq!(list(&f.outputs), function.output);
        assert_eq!(list(&f.nodes), function.node);
        assert_eq!(list(&f.attributes), function.attribute_proto);
        let opsets: Vec<_> = (f.opset_import.iter())
            .map(|&(domain, version)| OperatorSetIdProto {
                domain: owned(domain),
                version,
            })
            .collect();
        assert_eq!(opsets, function.opset_import);
        true
    }

    #[test]
    fn agree_with_prost_on_valid_and_mutated_models_and_functions() {
        differential(
            0x30de_0000_0000_0001,
            |rng| random_model(rng).encode_to_vec(),
            agree_model,
        );
        let function = |rng: &mut Rng| random_function(rng).encode_to_vec();
        differential(0xf0de_0000_0000_0001, function, agree_function);
    }

    /// The shortcut for entries as writers encode them reads what the full reader reads,
    /// and leaves every other encoding to it.
    #[test]
    fn canonical_entries_read_as_the_full_reader_reads_them() {
        use super::{canonical_strings, small_message, strings, Value};
        let long = [&[0x0a, 3][..], b"key", &[0x12, 0x81, 0x01], &[b'v'; 129]].concat();
        let overlong = [&[0x0a, 0, 0x12], &[0xff; 9][..], &[0x7f]].concat();
        let cases: &[&[u8]] = &[
            &[0x0a, 1, b'k', 0x12, 1, b'v'],
            &[0x0a, 0, 0x12, 0],
            &long,
            // Cut short, one byte over, value first, a key of 128 bytes, a third field,
            // a length over 63 bits.
            &[0x0a, 1, b'k', 0x12, 2, b'v'],
            &[0x0a, 1, b'k', 0x12, 1, b'v', b'w'],
            &[0x12, 1, b'v', 0x0a, 1, b'k'],
            &[0x0a, 0x80, 0x01],
            &[0x0a, 1, b'k', 0x12, 1, b'v', 0x18, 1],
            &overlong,
        ];
        for &case in cases {
            let full = small_message(case, false).map(|(k, v)| {
                let v = v.and_then(|v| match v {
                    Value::Bytes(b) => Some(b),
                    _ => None,
                });
                (k, v)
            });
            assert_eq!(strings(case).ok(), full.ok(), "{case:02x?}");
        }
        assert_eq!(canonical_strings(&long).map(|(_, v)| v.len()), Some(129));
        assert_eq!(canonical_strings(&overlong), None);
        assert_eq!(canonical_strings(&[0x12, 1, b'v', 0x0a, 1, b'k']), None);
    }
}
