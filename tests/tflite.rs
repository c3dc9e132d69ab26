//! TFLite / LiteRT models: the fixtures TensorFlow's converter wrote
//! (tests/fixtures/tflite, tests/fixtures/gen/make_tflite_fixtures.py) read into the inventory
//! as their graphs, and rtenx held to the LiteRT interpreter's verdict on every fixture,
//! hostile ones included (verdicts.tsv, bad/verdicts.tsv).

mod common;

use rtenx::check::Severity;
use rtenx::inventory::{FileFormat, NodeKind, Storage};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    common::fixtures().join("tflite").join(name)
}

fn analyze(name: &str) -> rtenx::Analysis {
    rtenx::analyze(&fixture(name)).unwrap()
}

/// The operator types of graph 0, in order.
fn operators(a: &rtenx::Analysis) -> Vec<String> {
    (a.inventory.graphs[0].nodes.iter())
        .filter_map(|n| match n.kind {
            NodeKind::Operator(op) => Some(op.op_type().to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn converted_models_read_with_no_error_and_their_graphs() {
    for name in [
        "float.tflite",
        "int8.tflite",
        "custom.tflite",
        "offset.tflite",
        "sparse.tflite",
        "strings.tflite",
        "metadata.tflite",
    ] {
        let a = analyze(name);
        assert_eq!(a.inventory.format, FileFormat::Read("tflite"), "{name}");
        assert_eq!(a.inventory.format_version, "schema 3", "{name}");
        let problems: Vec<_> = (a.findings.iter())
            .filter(|f| f.severity >= Severity::Warning && f.rule.code != "TF019")
            .map(|f| format!("{} {}", f.rule.code, f.message))
            .collect();
        assert!(problems.is_empty(), "{name}: {problems:?}");
    }
    let float = analyze("float.tflite");
    assert_eq!(operators(&float), ["CONV_2D", "RESHAPE", "FULLY_CONNECTED"]);
    let graph = &float.inventory.graphs[0];
    assert_eq!((graph.inputs.len(), graph.outputs.len()), (1, 1));
    assert!(graph
        .node(graph.inputs[0])
        .unwrap()
        .name
        .to_string()
        .contains("image"));
    // The int8 model: the same graph with quantised weights, per axis for the conv.
    let int8 = analyze("int8.tflite");
    let quantized = (int8.inventory.properties.iter())
        .find(|p| p.key == "quantized_tensors")
        .unwrap();
    assert!(quantized.value.contains("per axis") && !quantized.value.starts_with('0'));
    // A custom operator is named, as a warning, and typed by its own name.
    let custom = analyze("custom.tflite");
    assert!(operators(&custom).contains(&"MatrixDeterminant".to_owned()));
    assert!(custom.findings.iter().any(|f| f.rule.code == "TF019"));
}

/// The offset/size form holds the same constants as the inline one, after the FlatBuffer.
#[test]
fn the_offset_form_places_constants_after_the_flatbuffer() {
    let inline = analyze("float.tflite");
    let offset = analyze("offset.tflite");
    let key = |a: &rtenx::Analysis| {
        let mut t: Vec<_> = (a.inventory.tensors.iter())
            .map(|t| (t.name.to_string(), t.shape.clone(), t.byte_size))
            .collect();
        t.sort();
        t
    };
    assert_eq!(key(&inline), key(&offset));
    assert!(offset
        .inventory
        .tensors
        .iter()
        .all(|t| t.storage == Storage::External));
    assert!(inline
        .inventory
        .tensors
        .iter()
        .all(|t| t.storage == Storage::Inline));
    let size = offset.inventory.main_file().size.unwrap();
    for t in &offset.inventory.tensors {
        assert!(t.data.unwrap().end().unwrap() <= size);
    }
}

/// `TFLITE_METADATA` names the model, its author and its licence, which the ML-BOM carries;
/// the converter's `min_runtime_version` is the runtime requirement.
#[test]
fn metadata_feeds_the_bom_and_the_runtime_requirement() {
    let a = analyze("metadata.tflite");
    let runtime = a.inventory.runtime.as_ref().unwrap();
    assert_eq!(
        (runtime.runtime, runtime.min_version.as_str()),
        ("TFLite", "1.5.0")
    );
    let (out, err, code) = common::rtenx(&["sbom", fixture("metadata.tflite").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for text in ["Apache-2.0", "rtenx fixtures", "Tiny image classifier"] {
        assert!(out.contains(text), "{text} missing from {out}");
    }
}

/// Wherever the LiteRT interpreter refuses a fixture, rtenx reports an error, except for a
/// custom operator without a registered kernel, which is the warning TF019.
#[test]
fn rtenx_reports_an_error_wherever_the_interpreter_refuses() {
    let mut refused = 0;
    for table in ["verdicts.tsv", "bad/verdicts.tsv"] {
        let text = std::fs::read_to_string(fixture(table)).unwrap();
        let dir = fixture(table).parent().unwrap().to_owned();
        for line in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            let (file, verdict, detail) = (cols[0], cols[1], cols[2]);
            let a = rtenx::analyze(&dir.join(file)).unwrap();
            let codes: Vec<_> = a.findings.iter().map(|f| f.rule.code).collect();
            if verdict == "loads" {
                continue;
            }
            refused += 1;
            if detail.contains("unresolved custom op") {
                assert!(codes.contains(&"TF019"), "{file}: {codes:?}");
                continue;
            }
            assert!(
                a.findings.iter().any(|f| f.severity == Severity::Error),
                "{file}: the interpreter says {verdict} ({detail}), rtenx {codes:?}"
            );
        }
    }
    assert!(refused >= 15, "only {refused} refused fixtures");
}

/// TF002: a model with more tables than the verifier's 1,000,000 (one operator table shared
/// by 1,000,001 entries: 4 MB, too large to commit) verifies only with rtenx's limits.
#[test]
fn a_model_over_the_verifier_table_limit_is_tf002() {
    use flatbuffers::FlatBufferBuilder;
    use rtenx::formats::tflite::schema as fb;
    let mut b = FlatBufferBuilder::new();
    let shape = b.create_vector(&[1i32]);
    let tensor = fb::Tensor::create(
        &mut b,
        &fb::TensorArgs {
            shape: Some(shape),
            ..Default::default()
        },
    );
    let tensors = b.create_vector(&[tensor]);
    let io = b.create_vector(&[0i32]);
    let op = fb::Operator::create(&mut b, &fb::OperatorArgs::default());
    let ops = b.create_vector(&vec![op; 1_000_001]);
    let subgraph = fb::SubGraph::create(
        &mut b,
        &fb::SubGraphArgs {
            tensors: Some(tensors),
            inputs: Some(io),
            outputs: Some(io),
            operators: Some(ops),
            ..Default::default()
        },
    );
    let subgraphs = b.create_vector(&[subgraph]);
    let code = fb::OperatorCode::create(
        &mut b,
        &fb::OperatorCodeArgs {
            builtin_code: fb::BuiltinOperator::RELU,
            ..Default::default()
        },
    );
    let codes = b.create_vector(&[code]);
    let empty = fb::Buffer::create(&mut b, &fb::BufferArgs::default());
    let buffers = b.create_vector(&[empty]);
    let model = fb::Model::create(
        &mut b,
        &fb::ModelArgs {
            version: 3,
            operator_codes: Some(codes),
            subgraphs: Some(subgraphs),
            buffers: Some(buffers),
            ..Default::default()
        },
    );
    b.finish(model, Some("TFL3"));
    let file = rtenx::source::ModelFile::in_memory("many.tflite", b.finished_data().to_vec());
    let a = rtenx::analyze_file(&file);
    let codes: Vec<_> = a.findings.iter().map(|f| f.rule.code).collect();
    assert_eq!(codes, ["TF002"], "{:?}", a.findings);
    assert_eq!(operators(&a).len(), 1_000_001);
}

/// FlatBuffers let 200,000 string tensors share one 1 MiB buffer: its string table is
/// scanned within a bound of twice the file's size, not 200,000 times (200 GB).
#[test]
fn a_buffer_shared_by_many_string_tensors_is_scanned_within_a_bound() {
    use flatbuffers::FlatBufferBuilder;
    use rtenx::formats::tflite::schema as fb;
    let count = (1u32 << 20) / 4 - 2;
    let mut table: Vec<u8> = Vec::new();
    table.extend(count.to_le_bytes());
    for _ in 0..=count {
        table.extend((4 * (count + 2)).to_le_bytes());
    }
    let mut b = FlatBufferBuilder::new();
    let shape = b.create_vector(&[count as i32]);
    let tensor = fb::Tensor::create(
        &mut b,
        &fb::TensorArgs {
            shape: Some(shape),
            type_: fb::TensorType::STRING,
            buffer: 1,
            ..Default::default()
        },
    );
    let tensors = b.create_vector(&vec![tensor; 200_000]);
    let ops = b.create_vector::<flatbuffers::ForwardsUOffset<fb::Operator>>(&[]);
    let subgraph = fb::SubGraph::create(
        &mut b,
        &fb::SubGraphArgs {
            tensors: Some(tensors),
            operators: Some(ops),
            ..Default::default()
        },
    );
    let subgraphs = b.create_vector(&[subgraph]);
    let data = b.create_vector(&table);
    let empty = fb::Buffer::create(&mut b, &fb::BufferArgs::default());
    let strings = fb::Buffer::create(
        &mut b,
        &fb::BufferArgs {
            data: Some(data),
            ..Default::default()
        },
    );
    let buffers = b.create_vector(&[empty, strings]);
    let model = fb::Model::create(
        &mut b,
        &fb::ModelArgs {
            version: 3,
            subgraphs: Some(subgraphs),
            buffers: Some(buffers),
            ..Default::default()
        },
    );
    b.finish(model, Some("TFL3"));
    let file = rtenx::source::ModelFile::in_memory("shared.tflite", b.finished_data().to_vec());
    let a = rtenx::analyze_file(&file);
    assert_eq!(a.inventory.tensors.len(), 200_000);
    let errors: Vec<_> = (a.findings.iter())
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.rule.code)
        .collect();
    assert_eq!(errors, ["RX012"], "only the empty graph");
}
