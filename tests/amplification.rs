//! A hostile ONNX model cannot make rtenx allocate many times its own size: typed tensor
//! fields are counted in place, never decoded, and the entries rtenx keeps are bounded
//! (OX029). prost would turn each 2-byte empty string into a 32-byte handle, and each 1-byte
//! varint into an 8-byte integer.
//! Measured as the growth of the process's peak resident memory, reset before each case
//! (Linux only); the cases run one after the other in one test.
#![cfg(target_os = "linux")]

use prost::Message;
use rtenx::formats::onnx::proto::{GraphProto, ModelProto, TensorProto};

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
    let graph = GraphProto {
        initializer: vec![tensor.encode_to_vec().into()],
        ..Default::default()
    };
    ModelProto::with_graph(&graph, 21).encode_to_vec()
}

/// Peak RSS growth, in KiB, while `file` is analysed.
fn peak_growth_kib(file: &rtenx::source::ModelFile) -> (u64, rtenx::Analysis) {
    // Building the model peaked high: start the peak over from the current RSS.
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
    let before = status_kib("VmRSS:");
    let analysis = rtenx::analyze_file(file);
    (status_kib("VmHWM:").saturating_sub(before), analysis)
}

#[test]
fn hostile_models_stay_small_in_memory() {
    typed_value_fields_are_counted_not_decoded();
    attribute_lists_past_the_budget_are_counted_not_kept();
    a_rule_broken_millions_of_times_lists_a_bounded_number();
    millions_of_empty_subgraphs_are_bounded();
}

/// A protobuf length-delimited field.
fn field(number: u8, payload: &[u8], out: &mut Vec<u8>) {
    out.push(number << 3 | 2);
    let mut len = payload.len() as u64;
    while len >= 0x80 {
        out.push(len as u8 | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
    out.extend_from_slice(payload);
}

/// An Identity node with an attribute of 20M empty strings (40 MB), written by hand: with
/// prost it would take a gigabyte to build.
fn attribute_lists_past_the_budget_are_counted_not_kept() {
    let mut attribute = Vec::new();
    field(1, b"junk", &mut attribute);
    attribute.extend_from_slice(&[0xa0, 0x01, 8]); // type (field 20): STRINGS
    for _ in 0..20_000_000 {
        attribute.extend_from_slice(&[9 << 3 | 2, 0]);
    }
    let mut node = Vec::new();
    field(1, b"X", &mut node);
    field(2, b"Y", &mut node);
    field(4, b"Identity", &mut node);
    field(5, &attribute, &mut node);
    drop(attribute);
    let mut graph = Vec::new();
    field(1, &node, &mut graph);
    drop(node);
    let mut model = vec![0x08, 10]; // ir_version
    field(8, &[0x10, 21], &mut model); // opset_import { version: 21 }
    field(7, &graph, &mut model);
    drop(graph);
    let size_kib = model.len() as u64 / 1024;
    let file = rtenx::source::ModelFile::in_memory("strings.onnx", model);
    let (grown, analysis) = peak_growth_kib(&file);
    let limit = analysis
        .findings
        .iter()
        .find(|f| f.rule.code == "OX029")
        .expect("OX029: too many entries");
    assert!(limit.offset.is_some(), "{limit:?}");
    eprintln!("peak RSS grew by {grown} KiB reading a {size_kib} KiB model");
    // Keeping all 20M strings would take 20M * (16 + 16) bytes = 610 MiB, and prost as much
    // again; the budget keeps 4M of them.
    assert!(grown < 300 * 1024, "peak RSS grew by {grown} KiB");
}

fn typed_value_fields_are_counted_not_decoded() {
    let bytes = hostile_model();
    let size_kib = bytes.len() as u64 / 1024;
    let file = rtenx::source::ModelFile::in_memory("hostile.onnx", bytes);
    let (grown, analysis) = peak_growth_kib(&file);

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

/// A Sum node reading an undefined value 3M times (9 MB): 3M OX007 findings would take
/// about a gigabyte, and reports of them many more.
fn a_rule_broken_millions_of_times_lists_a_bounded_number() {
    let inputs = 3_000_000;
    let mut node = Vec::with_capacity(3 * inputs + 16);
    for _ in 0..inputs {
        field(1, b"x", &mut node);
    }
    field(2, b"Y", &mut node);
    field(4, b"Sum", &mut node);
    let mut graph = Vec::new();
    field(1, &node, &mut graph);
    drop(node);
    let mut model = vec![0x08, 10]; // ir_version
    field(8, &[0x10, 21], &mut model); // opset_import { version: 21 }
    field(7, &graph, &mut model);
    drop(graph);
    let size_kib = model.len() as u64 / 1024;
    let file = rtenx::source::ModelFile::in_memory("sum.onnx", model);
    let (grown, analysis) = peak_growth_kib(&file);
    let undefined: Vec<_> = analysis
        .findings
        .iter()
        .filter(|f| f.rule.code == "OX007")
        .collect();
    assert_eq!(undefined.len(), rtenx::check::PER_RULE + 1);
    let more = format!("{} more OX007 findings", inputs - rtenx::check::PER_RULE);
    assert!(
        undefined.iter().any(|f| f.message.starts_with(&more)),
        "{:?}",
        undefined.last()
    );
    eprintln!("peak RSS grew by {grown} KiB reading a {size_kib} KiB model");
    assert!(grown < 100 * 1024, "peak RSS grew by {grown} KiB");
}

/// An If node whose `branches` attribute lists 3M empty graphs (6 MB). Each graph read costs
/// hundreds of bytes, so they are budgeted like 32 entries each.
fn millions_of_empty_subgraphs_are_bounded() {
    let mut attribute = Vec::new();
    field(1, b"branches", &mut attribute);
    attribute.extend_from_slice(&[0xa0, 0x01, 10]); // type (field 20): GRAPHS
    for _ in 0..3_000_000 {
        attribute.extend_from_slice(&[11 << 3 | 2, 0]);
    }
    let mut node = Vec::new();
    field(1, b"X", &mut node);
    field(2, b"Y", &mut node);
    field(4, b"If", &mut node);
    field(5, &attribute, &mut node);
    drop(attribute);
    let mut graph = Vec::new();
    field(1, &node, &mut graph);
    drop(node);
    let mut model = vec![0x08, 10]; // ir_version
    field(8, &[0x10, 21], &mut model); // opset_import { version: 21 }
    field(7, &graph, &mut model);
    drop(graph);
    let size_kib = model.len() as u64 / 1024;
    let file = rtenx::source::ModelFile::in_memory("graphs.onnx", model);
    let (grown, analysis) = peak_growth_kib(&file);
    assert!(
        analysis.findings.iter().any(|f| f.rule.code == "OX029"),
        "OX029: too many entries"
    );
    eprintln!("peak RSS grew by {grown} KiB reading a {size_kib} KiB model");
    // 3M graphs would take about 1.9 GB.
    assert!(grown < 200 * 1024, "peak RSS grew by {grown} KiB");
}
