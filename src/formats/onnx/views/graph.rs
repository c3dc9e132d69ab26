//! GraphProto read in place: every node, initializer and value declaration stays a slice of
//! the file until the walk reads it, so a graph costs 16 bytes per node before that.

use crate::formats::shared::bytes::offset_in;
use crate::formats::shared::protobuf::{fields, Field, Value, WireError};

/// The fields of a GraphProto, as slices of the encoded messages.
#[derive(Debug, Default)]
pub(crate) struct GraphView<'b> {
    pub(crate) name: &'b [u8],
    /// NodeProtos.
    pub(crate) nodes: Vec<&'b [u8]>,
    /// TensorProtos.
    pub(crate) initializers: Vec<&'b [u8]>,
    /// SparseTensorProtos.
    pub(crate) sparse_initializers: Vec<&'b [u8]>,
    /// ValueInfoProtos of the inputs, outputs and other values.
    pub(crate) inputs: Vec<&'b [u8]>,
    pub(crate) outputs: Vec<&'b [u8]>,
    pub(crate) value_info: Vec<&'b [u8]>,
    /// Entries beyond the budget: counted, not kept.
    pub(crate) dropped: u64,
}

impl<'b> GraphView<'b> {
    /// Reads the GraphProto in `bytes`, keeping at most `keep` entries in all. Like prost,
    /// the last name wins and unknown fields are skipped; the embedded messages are not
    /// decoded here.
    pub(crate) fn read(bytes: &'b [u8], keep: u64) -> Result<Self, WireError> {
        let mut g = GraphView::default();
        let mut room = keep;
        let mut wire = fields(bytes);
        while let Some(field) = wire.next_field() {
            let Field { at, number, value } = field?;
            let list = match number {
                1 => &mut g.nodes,
                5 => &mut g.initializers,
                11 => &mut g.inputs,
                12 => &mut g.outputs,
                13 => &mut g.value_info,
                15 => &mut g.sparse_initializers,
                2 | 10 => {
                    match value {
                        Value::Bytes(b) if number == 2 => g.name = b,
                        Value::Bytes(_) => {} // doc_string
                        other => return Err(WireError::unexpected(number, other, at)),
                    }
                    continue;
                }
                _ => continue,
            };
            match value {
                Value::Bytes(_) if room == 0 => g.dropped += 1,
                Value::Bytes(b) => {
                    room -= 1;
                    prefetch_ahead(bytes, b);
                    list.push(b);
                }
                other => return Err(WireError::unexpected(number, other, at)),
            }
        }
        Ok(g)
    }
}

/// Asks for the cache lines one and two pages past `field`, a slice of `bytes`.
///
/// This walk hops from key to key, each position depending on the length before it, over
/// nodes of a kilobyte or two: every hop waits for a line, often on a page the processor
/// has no translation for yet. Asking early for the pages ahead overlaps those waits; it
/// takes 5% off checking a Llama export (BENCHMARKS.md).
fn prefetch_ahead(bytes: &[u8], field: &[u8]) {
    let start = offset_in(bytes, field).and_then(|at| usize::try_from(at).ok());
    let Some(end) = start.map(|at| at.saturating_add(field.len())) else {
        return;
    };
    for ahead in [4096, 8192] {
        if let Some(line) = bytes
            .get(end.saturating_add(ahead)..)
            .and_then(|b| b.get(..1))
        {
            crate::source::prefetch(line);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The view, with its embedded messages decoded by prost, must accept and refuse exactly
    //! what prost's own GraphProto decoding does.

    use super::GraphView;
    use crate::formats::onnx::proto::{GraphProto, SparseTensorProto, TypeProto, ValueInfoProto};
    use crate::formats::onnx::test_rng::{differential, Rng};
    use prost::Message;

    fn random_graph(rng: &mut Rng) -> GraphProto {
        let values = |rng: &mut Rng| {
            (0..rng.below(3))
                .map(|_| ValueInfoProto {
                    name: Some(rng.bytes(4)),
                    r#type: (rng.below(2) == 0).then(TypeProto::default),
                })
                .collect()
        };
        GraphProto {
            node: (0..rng.below(4)).map(|_| rng.bytes(10)).collect(),
            name: (rng.below(2) == 0).then(|| rng.bytes(5)),
            initializer: (0..rng.below(3)).map(|_| rng.bytes(10)).collect(),
            sparse_initializer: (0..rng.below(2))
                .map(|_| SparseTensorProto {
                    values: Some(rng.bytes(4)),
                    indices: None,
                    dims: vec![rng.below(9) as i64],
                })
                .collect(),
            doc_string: (rng.below(3) == 0).then(|| rng.bytes(5)),
            input: values(rng),
            output: values(rng),
            value_info: values(rng),
        }
    }

    /// Both accept `bytes` with the same fields, or both refuse it; returns whether accepted.
    fn agree(bytes: &[u8]) -> bool {
        let theirs = GraphProto::decode(bytes);
        let ours = GraphView::read(bytes, u64::MAX).ok().and_then(|g| {
            let infos = |list: &[&[u8]]| -> Option<Vec<ValueInfoProto>> {
                list.iter()
                    .map(|v| ValueInfoProto::decode(*v).ok())
                    .collect()
            };
            let sparse: Option<Vec<SparseTensorProto>> = g
                .sparse_initializers
                .iter()
                .map(|s| SparseTensorProto::decode(*s).ok())
                .collect();
            let mine = GraphProto {
                node: g.nodes.iter().map(|b| b.to_vec().into()).collect(),
                name: (!g.name.is_empty()).then(|| g.name.to_vec().into()),
                initializer: g.initializers.iter().map(|b| b.to_vec().into()).collect(),
                sparse_initializer: sparse?,
                doc_string: None,
                input: infos(&g.inputs)?,
                output: infos(&g.outputs)?,
                value_info: infos(&g.value_info)?,
            };
            Some(mine)
        });
        assert_eq!(
            ours.is_some(),
            theirs.is_ok(),
            "disagree on {bytes:02x?}: {theirs:?}"
        );
        let (Some(mine), Ok(mut graph)) = (ours, theirs) else {
            return false;
        };
        graph.doc_string = None;
        graph.name = graph.name.filter(|n| !n.is_empty());
        assert_eq!(mine, graph);
        true
    }

    #[test]
    fn agrees_with_prost_on_valid_and_mutated_graphs() {
        differential(
            0x6a4f_0000_0000_0001,
            |rng| random_graph(rng).encode_to_vec(),
            agree,
        );
    }
}
