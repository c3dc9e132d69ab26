//! NodeProto read in place: names are slices of the file, and the vectors are reused from
//! node to node, so reading a node allocates nothing.

use crate::formats::shared::protobuf::{fields, Field, Value, WireError};

/// The fields of a NodeProto that the graph walk needs. Attributes stay encoded.
#[derive(Debug, Default)]
pub(crate) struct NodeView<'b> {
    pub(crate) inputs: Vec<&'b [u8]>,
    pub(crate) outputs: Vec<&'b [u8]>,
    pub(crate) name: &'b [u8],
    pub(crate) op_type: &'b [u8],
    pub(crate) domain: &'b [u8],
    pub(crate) attributes: Vec<&'b [u8]>,
    /// The innermost module of the node's `pkg.torch.onnx.name_scopes` metadata (field 9),
    /// such as `layers.0.attn`; empty without one, or unless [`NodeView::modules`] is set.
    pub(crate) module: &'b [u8],
    /// Whether to read [`NodeView::module`]. Metadata is most of an exported node's bytes,
    /// and reading it a tenth of the work of checking a PyTorch export: `check` skips it.
    pub(crate) modules: bool,
    /// Inputs, outputs and attributes beyond the budget: counted, not kept.
    pub(crate) dropped: u64,
}

impl<'b> NodeView<'b> {
    /// Reads the NodeProto in `bytes` into `self`, replacing what was there, and keeping at
    /// most `keep` inputs, outputs and attributes in all. Like prost, the last occurrence of
    /// a singular field wins and unknown fields are skipped.
    pub(crate) fn read(&mut self, bytes: &'b [u8], keep: u64) -> Result<(), WireError> {
        self.inputs.clear();
        self.outputs.clear();
        self.attributes.clear();
        (self.name, self.op_type, self.domain, self.dropped) = (&[], &[], &[], 0);
        self.module = &[];
        let mut room = keep;
        let mut wire = fields(bytes);
        while let Some(field) = wire.next_field() {
            let Field { at, number, value } = field?;
            if let (9, Value::Bytes(entry)) = (number, &value) {
                // metadata_props, which prost's NodeProto skips: so does a malformed entry.
                if !self.modules {
                    continue;
                }
                if let Ok((Some(NAME_SCOPES), Some(scopes))) = super::model::strings(entry) {
                    self.module = innermost(scopes);
                }
                continue;
            }
            let slot = match number {
                1 => Slot::Many(&mut self.inputs),
                2 => Slot::Many(&mut self.outputs),
                3 => Slot::One(&mut self.name),
                4 => Slot::One(&mut self.op_type),
                5 => Slot::Many(&mut self.attributes),
                7 => Slot::One(&mut self.domain),
                _ => continue,
            };
            let Value::Bytes(b) = value else {
                return Err(WireError::unexpected(number, value, at));
            };
            match slot {
                Slot::Many(_) if room == 0 => self.dropped += 1,
                Slot::Many(list) => {
                    room -= 1;
                    list.push(b);
                }
                Slot::One(one) => *one = b,
            }
        }
        Ok(())
    }
}

/// The metadata key under which the PyTorch exporter records a node's module path.
const NAME_SCOPES: &[u8] = b"pkg.torch.onnx.name_scopes";

/// The innermost module of a name-scopes value, a Python list of the module paths that lead
/// to the node and then its own name (`['', 'layers.0', 'layers.0.attn', 'linear_1']` gives
/// `layers.0.attn`); empty for anything else.
fn innermost(scopes: &[u8]) -> &[u8] {
    let list = scopes.strip_prefix(b"[").and_then(|l| l.strip_suffix(b"]"));
    // The entry before the last comma; searched for with memchr, as deep modules make long
    // lists and every node of an export has one.
    let before = list.and_then(|l| l.split_at_checked(memchr::memrchr(b',', l)?));
    let module = before.map(|(head, _)| match memchr::memrchr(b',', head) {
        Some(comma) => head.get(comma + 1..).unwrap_or_default(),
        None => head,
    });
    let module = module.map(|m| m.trim_ascii());
    let unquoted = module.and_then(|m| m.strip_prefix(b"'")?.strip_suffix(b"'"));
    unquoted.unwrap_or_default()
}

enum Slot<'v, 'b> {
    One(&'v mut &'b [u8]),
    Many(&'v mut Vec<&'b [u8]>),
}

#[cfg(test)]
mod tests {
    //! The view must accept and refuse exactly what prost does, with the same fields.

    use super::NodeView;
    use crate::formats::onnx::proto::{AttributeProto, NodeProto};
    use crate::formats::onnx::test_rng::{differential, Rng};
    use prost::Message;

    fn random_node(rng: &mut Rng) -> NodeProto {
        let strings = |rng: &mut Rng| (0..rng.below(4)).map(|_| rng.bytes(12)).collect();
        NodeProto {
            input: strings(rng),
            output: strings(rng),
            name: (rng.below(2) == 0).then(|| rng.bytes(8)),
            op_type: Some(rng.bytes(6)),
            domain: (rng.below(3) == 0).then(|| rng.bytes(5)),
            attribute: (0..rng.below(3))
                .map(|_| AttributeProto {
                    name: Some(rng.bytes(4)),
                    i: Some(rng.below(1000) as i64 - 500),
                    ints: (0..rng.below(4)).map(|i| i as i64).collect(),
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// Compares the view with prost on `bytes`: both accept it with the same fields, or
    /// both refuse it. Returns whether it was accepted.
    fn agree(bytes: &[u8]) -> bool {
        let mut view = NodeView::default();
        let ours = view.read(bytes, u64::MAX);
        // prost also decodes each attribute: so does the graph walk, right after the view.
        let ours = ours.is_ok()
            && view
                .attributes
                .iter()
                .all(|a| AttributeProto::decode(*a).is_ok());
        let theirs = NodeProto::decode(bytes);
        assert_eq!(ours, theirs.is_ok(), "disagree on {bytes:02x?}: {theirs:?}");
        let Ok(node) = theirs else { return false };
        let all = |v: &[bytes::Bytes]| v.iter().map(|b| b.to_vec()).collect::<Vec<_>>();
        let mine = |v: &[&[u8]]| v.iter().map(|b| b.to_vec()).collect::<Vec<_>>();
        assert_eq!(mine(&view.inputs), all(&node.input));
        assert_eq!(mine(&view.outputs), all(&node.output));
        assert_eq!(view.name, node.name.as_deref().unwrap_or_default());
        assert_eq!(view.op_type, node.op_type.as_deref().unwrap_or_default());
        assert_eq!(view.domain, node.domain.as_deref().unwrap_or_default());
        let attributes: Vec<AttributeProto> = view
            .attributes
            .iter()
            .map(|a| AttributeProto::decode(*a).unwrap())
            .collect();
        assert_eq!(attributes, node.attribute);
        true
    }

    #[test]
    fn the_module_is_read_only_when_asked_for() {
        let scopes = b"['', 'layers.0', 'linear_1']";
        let mut entry = vec![0x0a, 26];
        entry.extend_from_slice(super::NAME_SCOPES);
        entry.extend_from_slice(&[0x12, scopes.len() as u8]);
        entry.extend_from_slice(scopes);
        let mut node = vec![0x22, 3];
        node.extend_from_slice(b"Add");
        node.extend_from_slice(&[0x4a, entry.len() as u8]);
        node.extend_from_slice(&entry);
        let mut view = NodeView::default();
        view.read(&node, u64::MAX).unwrap();
        assert_eq!((view.op_type, view.module), (&b"Add"[..], &b""[..]));
        view.modules = true;
        view.read(&node, u64::MAX).unwrap();
        assert_eq!((view.op_type, view.module), (&b"Add"[..], &b"layers.0"[..]));
    }

    #[test]
    fn the_innermost_module_comes_from_the_name_scopes() {
        use super::innermost;
        let scopes: &[u8] = b"['', 'layers.0', 'layers.0.attn', 'linear_1']";
        assert_eq!(innermost(scopes), b"layers.0.attn");
        assert_eq!(innermost(b"['', 'embed', 'linear']"), b"embed");
        assert_eq!(innermost(b"['linear']"), b"");
        assert_eq!(innermost(b"not a list"), b"");
        assert_eq!(innermost(b"[, x]"), b"");
    }

    #[test]
    fn agrees_with_prost_on_valid_and_mutated_nodes() {
        differential(
            0x5eed_0000_0000_0001,
            |rng| random_node(rng).encode_to_vec(),
            agree,
        );
    }

    #[test]
    fn agrees_with_prost_on_edge_encodings() {
        let cases: &[&[u8]] = &[
            &[],
            // Field 0, wire types 6 and 7, and a key above u32::MAX.
            &[0x00],
            &[0x0e],
            &[0x0f],
            &[0x80, 0x80, 0x80, 0x80, 0x10],
            // Varints: 10 bytes ending in 1 (fits), ending in 2 (overflows), 11 bytes.
            &[
                0x48, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
            ],
            &[
                0x48, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
            ],
            &[
                0x48, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0x00,
            ],
            // Known fields with the wrong wire type.
            &[0x08, 0x01],
            &[0x1d, 0, 0, 0, 0],
            &[0x2b, 0x2c],
            // Unknown fixed fields, whole and cut off.
            &[0x49, 1, 2, 3, 4, 5, 6, 7, 8],
            &[0x49, 1, 2, 3],
            &[0x4d, 1, 2, 3, 4],
            // Groups: matched, unmatched, stray end, nested, unterminated.
            &[0x4b, 0x08, 0x01, 0x4c],
            &[0x4b, 0x54],
            &[0x4c],
            &[0x4b, 0x53, 0x54, 0x4c, 0x0a, 0x01, 0x41],
            &[0x4b, 0x08, 0x01],
            // Lengths: exact, one past the end, huge.
            &[0x0a, 0x02, 0x41, 0x42],
            &[0x0a, 0x03, 0x41, 0x42],
            &[0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
        ];
        for case in cases {
            agree(case);
        }
        // Groups nested right up to prost's limit, and one past it.
        for depth in [99, 100, 101] {
            let mut bytes = vec![0x4b; depth];
            bytes.extend([0x50, 0x01]);
            bytes.extend(std::iter::repeat_n(0x4c, depth));
            agree(&bytes);
        }
    }
}
