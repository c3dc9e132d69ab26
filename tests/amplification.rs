//! A hostile ONNX model cannot make rtenx allocate many times its own size: typed tensor
//! fields are counted in place, never decoded, the entries rtenx keeps are bounded (RX016),
//! a subgraph counts as 32 of them, and each rule lists at most 10,000 findings. prost would
//! turn each 2-byte empty string into a 32-byte handle, and each 1-byte varint into an 8-byte
//! integer.
//! Measured as the growth of the process's peak resident memory, reset before each case
//! (Linux only); the cases run one after the other in one test.
#![cfg(target_os = "linux")]

mod common;

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

#[test]
fn hostile_models_stay_small_in_memory() {
    typed_value_fields_are_counted_not_decoded();
    attribute_lists_past_the_budget_are_counted_not_kept();
    a_rule_broken_millions_of_times_lists_a_bounded_number();
    millions_of_empty_subgraphs_are_bounded();
    shared_flatbuffer_tables_are_paid_for_each_time();
    shared_executorch_tables_are_paid_for_each_time();
    millions_of_empty_model_level_entries_are_weighed();
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

/// An attribute named `name` of type `kind`, holding `count` empty entries of the list field
/// `list` (9: strings, 11: graphs).
fn empty_list_attribute(name: &[u8], kind: u8, list: u8, count: usize) -> Vec<u8> {
    let mut attribute = Vec::with_capacity(2 * count + 16);
    field(1, name, &mut attribute);
    attribute.extend_from_slice(&[0xa0, 0x01, kind]); // type (field 20)
    for _ in 0..count {
        attribute.extend_from_slice(&[list << 3 | 2, 0]);
    }
    attribute
}

/// A model (IR 10, opset 21) whose graph is one `op_type` node reading `input` `inputs`
/// times and writing Y, with `attribute` if given; written by hand, as building the hostile
/// ones with prost would take gigabytes.
fn one_node_model(
    op_type: &[u8],
    input: &[u8],
    inputs: usize,
    attribute: Option<Vec<u8>>,
) -> Vec<u8> {
    let mut node = Vec::with_capacity((input.len() + 2) * inputs + 16);
    for _ in 0..inputs {
        field(1, input, &mut node);
    }
    field(2, b"Y", &mut node);
    field(4, op_type, &mut node);
    if let Some(attribute) = attribute {
        field(5, &attribute, &mut node);
    }
    let mut graph = Vec::new();
    field(1, &node, &mut graph);
    drop(node);
    let mut model = vec![0x08, 10]; // ir_version
    field(8, &[0x10, 21], &mut model); // opset_import { version: 21 }
    field(7, &graph, &mut model);
    model
}

/// Peak RSS growth, in KiB, while the in-memory model `bytes` is analysed, and the analysis.
fn analyze_measured(name: &str, bytes: Vec<u8>) -> (u64, rtenx::Analysis) {
    let size_kib = bytes.len() as u64 / 1024;
    let file = rtenx::source::ModelFile::in_memory(name, bytes);
    // Building the model peaked high: start the peak over from the current RSS.
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
    let before = status_kib("VmRSS:");
    let analysis = rtenx::analyze_file(&file);
    let grown = status_kib("VmHWM:").saturating_sub(before);
    eprintln!("{name}: peak RSS grew by {grown} KiB reading a {size_kib} KiB model");
    (grown, analysis)
}

/// An Identity node with an attribute of 20M empty strings (40 MB).
fn attribute_lists_past_the_budget_are_counted_not_kept() {
    let strings = empty_list_attribute(b"junk", 8, 9, 20_000_000);
    let model = one_node_model(b"Identity", b"X", 1, Some(strings));
    let (grown, analysis) = analyze_measured("strings.onnx", model);
    let limit = analysis
        .findings
        .iter()
        .find(|f| f.rule.code == "RX016")
        .expect("RX016: too many entries");
    assert!(limit.offset.is_some(), "{limit:?}");
    // Keeping all 20M strings would take 20M * (16 + 16) bytes = 610 MiB, and prost as much
    // again; the budget keeps 4M of them.
    assert!(grown < 300 * 1024, "peak RSS grew by {grown} KiB");
}

fn typed_value_fields_are_counted_not_decoded() {
    let (grown, analysis) = analyze_measured("hostile.onnx", hostile_model());
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
    // Decoding the fields would take 16M * 32 B + 32M * 8 B = 768 MiB.
    assert!(grown < 16 * 1024, "peak RSS grew by {grown} KiB");
}

/// A Sum node reading an undefined value 3M times (9 MB): 3M OX007 findings would take
/// about a gigabyte, and reports of them many more.
fn a_rule_broken_millions_of_times_lists_a_bounded_number() {
    let inputs = 3_000_000;
    let (grown, analysis) =
        analyze_measured("sum.onnx", one_node_model(b"Sum", b"x", inputs, None));
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
    assert!(grown < 100 * 1024, "peak RSS grew by {grown} KiB");
}

/// An If node whose `branches` attribute lists 3M empty graphs (6 MB). Each graph read costs
/// hundreds of bytes, so they are budgeted like 32 entries each.
fn millions_of_empty_subgraphs_are_bounded() {
    let graphs = empty_list_attribute(b"branches", 10, 11, 3_000_000);
    let model = one_node_model(b"If", b"X", 1, Some(graphs));
    let (grown, analysis) = analyze_measured("graphs.onnx", model);
    assert!(
        analysis.findings.iter().any(|f| f.rule.code == "RX016"),
        "RX016: too many entries"
    );
    // 3M graphs would take about 1.9 GB.
    assert!(grown < 200 * 1024, "peak RSS grew by {grown} KiB");
}

/// A `.rten` whose graph lists one operator table 200,000 times, each reading value 0 2,500
/// times: under 1 MB that describes 500M node inputs, within rten's own verifier limits.
/// Reading every listed node in full took 4.2 GB and 9 s.
fn shared_flatbuffer_tables_are_paid_for_each_time() {
    use rtenx::formats::rten::schema as fb;
    let (shared, inputs) = (200_000, 2_500);
    let mut b = flatbuffers::FlatBufferBuilder::new();
    let value = fb::ValueNode::create(&mut b, &fb::ValueNodeArgs::default());
    let value = fb::Node::create(
        &mut b,
        &fb::NodeArgs {
            data_type: fb::NodeKind::ValueNode,
            data: Some(value.as_union_value()),
            ..Default::default()
        },
    );
    let reads = b.create_vector(&vec![0i32; inputs]);
    let op = fb::OperatorNode::create(
        &mut b,
        &fb::OperatorNodeArgs {
            type_: fb::OperatorType::Relu,
            inputs: Some(reads),
            ..Default::default()
        },
    );
    let op = fb::Node::create(
        &mut b,
        &fb::NodeArgs {
            data_type: fb::NodeKind::OperatorNode,
            data: Some(op.as_union_value()),
            ..Default::default()
        },
    );
    let mut nodes = vec![value];
    nodes.extend(std::iter::repeat_n(op, shared));
    let nodes = b.create_vector(&nodes);
    let graph = fb::Graph::create(
        &mut b,
        &fb::GraphArgs {
            nodes: Some(nodes),
            ..Default::default()
        },
    );
    let model = fb::Model::create(
        &mut b,
        &fb::ModelArgs {
            schema_version: 1,
            graph: Some(graph),
            metadata: None,
        },
    );
    fb::finish_model_buffer(&mut b, model);
    let bytes = b.finished_data().to_vec();
    assert!(bytes.len() < 1 << 20, "{} bytes", bytes.len());
    let (grown, analysis) = analyze_measured("shared.rten", bytes);
    let over = analysis.findings.iter().find(|f| f.rule.code == "RX016");
    assert!(over.is_some_and(|f| f.offset.is_some()), "RX016 at a node");
    // The budget keeps 4M entries: about 1,700 of the listed nodes.
    assert!(grown < 300 * 1024, "peak RSS grew by {grown} KiB");
}

/// 4.1M empty FunctionProto entries (12 MB) took 2.1 GB, as each became a graph; 4.1M empty
/// opset_import entries (8 MB) took 0.73 GB, as each became a property. Each is now paid for
/// by what it costs.
fn millions_of_empty_model_level_entries_are_weighed() {
    let entries = 4_100_000;
    for (name, tag) in [
        ("functions.onnx", &[0xca, 0x01][..]),
        ("opsets.onnx", &[0x42][..]),
    ] {
        let mut model = one_node_model(b"Relu", b"X", 1, None);
        for _ in 0..entries {
            model.extend_from_slice(tag);
            model.push(0);
        }
        let (grown, analysis) = analyze_measured(name, model);
        assert!(
            analysis.findings.iter().any(|f| f.rule.code == "RX016"),
            "{name}: RX016"
        );
        assert!(grown < 300 * 1024, "{name}: peak RSS grew by {grown} KiB");
    }
}

/// An ExecuTorch method whose values list one 64-dimension tensor 200,000 times, and whose
/// chain lists one kernel call of 2,500 arguments 1,000 times: each listing is paid for from
/// the entry budget, which runs out (RX016) long before memory does. The verifier counts every
/// visit to a shared table and allows a quarter of the file's bytes in tables, so the file is
/// padded with a long list of buffer sizes to pass it.
fn shared_executorch_tables_are_paid_for_each_time() {
    use rtenx::formats::executorch::schema::program as et;
    let mut b = flatbuffers::FlatBufferBuilder::new();
    let sizes = b.create_vector(&[1i32; 64]);
    let tensor = et::Tensor::create(
        &mut b,
        &et::TensorArgs {
            scalar_type: et::ScalarType::FLOAT,
            sizes: Some(sizes),
            ..Default::default()
        },
    );
    let value = et::EValue::create(
        &mut b,
        &et::EValueArgs {
            val_type: et::KernelTypes::Tensor,
            val: Some(tensor.as_union_value()),
        },
    );
    let values = b.create_vector(&vec![value; 200_000]);
    let padding = b.create_vector(&vec![0i64; 150_000]);
    let args = b.create_vector(&[0i32; 2_500]);
    let call = et::KernelCall::create(
        &mut b,
        &et::KernelCallArgs {
            op_index: 0,
            args: Some(args),
        },
    );
    let instruction = et::Instruction::create(
        &mut b,
        &et::InstructionArgs {
            instr_args_type: et::InstructionArguments::KernelCall,
            instr_args: Some(call.as_union_value()),
        },
    );
    let instructions = b.create_vector(&vec![instruction; 1_000]);
    let chain = et::Chain::create(
        &mut b,
        &et::ChainArgs {
            instructions: Some(instructions),
            ..Default::default()
        },
    );
    let chains = b.create_vector(&[chain]);
    let plan = et::ExecutionPlan::create(
        &mut b,
        &et::ExecutionPlanArgs {
            values: Some(values),
            chains: Some(chains),
            non_const_buffer_sizes: Some(padding),
            ..Default::default()
        },
    );
    let plans = b.create_vector(&[plan]);
    let root = et::Program::create(
        &mut b,
        &et::ProgramArgs {
            execution_plan: Some(plans),
            ..Default::default()
        },
    );
    et::finish_program_buffer(&mut b, root);
    let (grown, analysis) = analyze_measured("shared.pte", b.finished_data().to_vec());
    let codes: Vec<_> = analysis.findings.iter().map(|f| f.rule.code).collect();
    assert!(codes.contains(&"RX016"), "{:?}", analysis.findings);
    assert!(grown < 300 * 1024, "peak RSS grew by {grown} KiB");
}

/// The bounded runner measures a real child: the binary on a committed model stays small and
/// quick, and reports its exit code.
#[test]
fn the_bounded_runner_measures_the_child() {
    let run = common::bounded::run(&["check", "tests/fixtures/rten/mlp.rten"]);
    run.assert_bounded("mlp.rten");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.rss_mb > 0);
}
