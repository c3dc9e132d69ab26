//! Large synthetic models for tests, benchmarks and the `synth_rten` example, written as
//! sparse files so that multi-GiB tensor data costs no disk space or write time.
//!
//! Compiled only with the `synth` feature, which the package's dev-dependency on itself
//! enables for tests, benchmarks and examples; a plain `cargo build` leaves it out.

pub mod executorch;
pub mod gguf;
pub mod onnx;
pub mod pytorch;
pub mod rten;
pub mod safetensors;

use std::io;
use std::path::{Path, PathBuf};

/// `target/bench-data/<name>`, written by `write` on first use (its folder made first) and
/// reused after.
pub fn bench_data(name: &str, write: impl FnOnce(&Path) -> io::Result<()>) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-data")
        .join(name);
    if !path.exists() {
        std::fs::create_dir_all(path.parent().expect("a path under target/bench-data")).unwrap();
        write(&path).unwrap();
    }
    path
}

/// An in-memory chain of `layers` operators, each writing the value the next reads, all named
/// under one top-level scope as an export from PyTorch names them (`/model/layer.12/Relu_7`,
/// 50 operators to a layer, and their values beside them): `2 * layers + 1` nodes, the first
/// the graph input and the last value the graph output.
pub fn chain_in_one_scope(layers: u32) -> crate::analysis::Analysis {
    use crate::inventory::{
        FileEntry, FileFormat, Graph, Inventory, NewKind, NewNode, Nodes, Operator, Value,
    };
    let node = |name: String, kind: NewKind| NewNode {
        name: name.as_str().into(),
        kind,
        offset: crate::inventory::Offset::NONE,
    };
    let mut nodes = Nodes::default();
    nodes.push(node("input".into(), NewKind::Value(Value::default())));
    for i in 0..layers {
        let name = format!("/model/layer.{}/Relu_{}", i / 50, i % 50);
        let out = 2 * i + 1;
        nodes.push(node(
            format!("{name}_output_0"),
            NewKind::Value(Value::default()),
        ));
        let op = Operator::new(
            "Relu".into(),
            Box::new([]),
            vec![Some(out.saturating_sub(2))],
            vec![Some(out)],
        );
        nodes.push(node(name, NewKind::Operator(op)));
    }
    let file = FileEntry::model("chain", 0);
    let mut inventory = Inventory::new(FileFormat::Read("rten"), "", file);
    inventory.graphs.push(Graph {
        nodes,
        inputs: vec![0],
        outputs: vec![(2 * layers).saturating_sub(1)],
        ..Graph::default()
    });
    crate::analysis::Analysis {
        inventory,
        findings: Vec::new(),
    }
}
