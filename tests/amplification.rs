//! A hostile ONNX tensor cannot make rtenx allocate many times its own size: typed value
//! fields are counted in place, never decoded. (prost would turn each 2-byte empty string
//! into a 32-byte handle, and each 1-byte varint into an 8-byte integer.)
//! Measured as the growth of the process's peak resident memory, reset just before (Linux
//! only), so this test binary holds this one test.
#![cfg(target_os = "linux")]

use prost::Message;
use rtenx::formats::onnx::proto::{GraphProto, ModelProto, OperatorSetIdProto, TensorProto};

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A model whose one initializer claims 16M strings and 32M int64 values in 64 MiB.
fn hostile_model() -> Vec<u8> {
    let strings = 16 << 20;
    let ints = 32 << 20;
    let tensor = TensorProto {
        dims: vec![1],
        data_type: Some(7),
        name: Some("w".into()),
        string_data: vec![bytes::Bytes::new(); strings],
        int64_data: vec![1; ints],
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: None,
            version: Some(21),
        }],
        graph: Some(
            GraphProto {
                initializer: vec![tensor.encode_to_vec().into()],
                ..Default::default()
            }
            .encode_to_vec()
            .into(),
        ),
        ..Default::default()
    };
    model.encode_to_vec()
}

#[test]
fn typed_value_fields_are_counted_not_decoded() {
    let bytes = hostile_model();
    let size_kib = bytes.len() as u64 / 1024;
    let file = rtenx::source::ModelFile::in_memory("hostile.onnx", bytes);
    // Building the model above peaked high: start the peak over from the current RSS.
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
    let before = status_kib("VmRSS:");
    let analysis = rtenx::analyze_file(&file);
    let grown = status_kib("VmHWM:").saturating_sub(before);

    let t = &analysis.inventory.tensors[0];
    assert_eq!(t.name.as_str(), Some("w"));
    let mismatch = analysis
        .findings
        .iter()
        .find(|f| f.rule.code == "RX007" || f.rule.code == "OX009")
        .expect("the value fields are reported");
    assert!(
        mismatch.message.contains("int64_data") && mismatch.message.contains("string_data"),
        "{}",
        mismatch.message
    );
    eprintln!("peak RSS grew by {grown} KiB reading a {size_kib} KiB model");
    // Decoding the fields would take 16M * 32 B + 32M * 8 B = 768 MiB.
    assert!(grown < 16 * 1024, "peak RSS grew by {grown} KiB");
}
