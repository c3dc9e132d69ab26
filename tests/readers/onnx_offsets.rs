//! Every ONNX node and tensor, wherever it lives (initializers, sparse initializers, tensor
//! attributes at any depth, function defaults), carries the offset of its own declaration:
//! decoding the message found there gives back the same name (or, for a tensor without one,
//! the name rtenx gives it after its holder).

use crate::common;

use prost::Message;
use rtenx::formats::onnx::proto::{NodeProto, TensorProto};
use rtenx::inventory::NodeKind;
use std::path::PathBuf;

/// Every `model.onnx` among the fixtures, valid and hostile.
fn models() -> Vec<PathBuf> {
    let root = common::fixtures().join("onnx");
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.file_name().is_some_and(|n| n == "model.onnx"))
        .collect();
    found.sort();
    assert!(found.len() > 60, "expected the ONNX fixtures: {found:?}");
    found
}

/// The embedded message that starts at `offset`: a length-delimited field key, then the
/// length prefix, end right before it.
fn message_at(bytes: &[u8], offset: u64) -> &[u8] {
    let start = usize::try_from(offset).unwrap();
    for prefix in 1..=5.min(start - 1) {
        let mut len: u64 = 0;
        let varint = &bytes[start - prefix..start];
        let key_end = bytes[start - prefix - 1];
        let is_length = varint[..prefix - 1].iter().all(|b| b & 0x80 != 0)
            && varint[prefix - 1] & 0x80 == 0
            && key_end & 0x80 == 0
            && key_end & 7 == 2;
        if !is_length {
            continue;
        }
        for (i, b) in varint.iter().enumerate() {
            len |= u64::from(b & 0x7f) << (7 * i);
        }
        if let Some(end) = start
            .checked_add(len as usize)
            .filter(|&e| e <= bytes.len())
        {
            return &bytes[start..end];
        }
    }
    panic!("no length prefix ends at {offset}");
}

#[test]
fn every_node_and_tensor_points_at_its_own_declaration() {
    let (mut nodes, mut tensors) = (0, 0);
    for path in models() {
        let bytes = std::fs::read(&path).unwrap();
        let a = rtenx::analyze(&path).unwrap();
        for t in &a.inventory.tensors {
            let at = t
                .decl_offset
                .unwrap_or_else(|| panic!("{}: tensor {} has no offset", path.display(), t.name));
            let decoded = TensorProto::decode(message_at(&bytes, at)).unwrap();
            match decoded.name.as_deref().unwrap_or_default() {
                // Unnamed tensors are named after their holder, `node.attribute`.
                b"" => assert!(t.name.as_bytes().contains(&b'.'), "{}", t.name),
                name => assert_eq!(name, t.name.as_bytes(), "{}: at {at}", path.display()),
            }
            tensors += 1;
        }
        for graph in &a.inventory.graphs {
            for node in &graph.nodes {
                let NodeKind::Operator(op) = &node.kind else {
                    continue;
                };
                let at = node
                    .offset
                    .get()
                    .expect("every ONNX operator has an offset");
                let decoded = NodeProto::decode(message_at(&bytes, at)).unwrap();
                assert_eq!(
                    decoded.name.as_deref().unwrap_or_default(),
                    node.name.as_bytes()
                );
                assert_eq!(
                    decoded.op_type.as_deref().unwrap_or_default(),
                    op.op_type().as_bytes()
                );
                nodes += 1;
            }
        }
    }
    assert!(
        nodes > 100 && tensors > 100,
        "{nodes} nodes, {tensors} tensors"
    );
}
