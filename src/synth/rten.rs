//! Large synthetic `.rten` V2 files: a chain of layers, each an output value followed by the
//! operator that writes it and, optionally, an external weight constant. Tensor data is left
//! as a hole (a sparse file), so multi-GiB files cost no disk space or write time.

use crate::formats::rten::schema as fb;
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// What to generate.
pub struct Spec {
    /// Number of layers. Each adds two nodes (operator, value), three with weights.
    pub layers: u32,
    /// Bytes of external weight data per layer (rounded down to whole f32s); 0 for none.
    pub weight_bytes: u64,
    /// Name nodes as an ONNX export from PyTorch does, in scopes of 50 operators, 100 to a
    /// block (`/block.3/layer.12/Relu_7`), rather than `op7` and `v7`.
    pub scoped: bool,
}

/// `target/bench-data/<name>`, the file `spec` describes, written on first use.
pub fn bench_file(name: &str, spec: Spec) -> PathBuf {
    super::bench_data(name, |path| write(path, &spec))
}

/// `target/bench-data/nodes1m.rten`: a chain of 500,000 operators and their values, 1,000,001
/// nodes in all (53 MiB).
pub fn million_nodes() -> PathBuf {
    bench_file(
        "nodes1m.rten",
        Spec {
            layers: 500_000,
            weight_bytes: 0,
            scoped: false,
        },
    )
}

/// `target/bench-data/nodes1m_scoped.rten`: the chain of [`million_nodes`] with its nodes
/// named in 10,100 scopes as an export from PyTorch names them (see [`Spec::scoped`]).
pub fn million_scoped_nodes() -> PathBuf {
    bench_file(
        "nodes1m_scoped.rten",
        Spec {
            layers: 500_000,
            weight_bytes: 0,
            scoped: true,
        },
    )
}

/// `target/bench-data/big4g.rten`: 4,000 layers of 1 MB external weights, 12,001 nodes (4 GiB,
/// sparse).
pub fn four_gib() -> PathBuf {
    bench_file(
        "big4g.rten",
        Spec {
            layers: 4000,
            weight_bytes: 1_073_741,
            scoped: false,
        },
    )
}

/// Writes the file described by `spec` to `path`.
pub fn write(path: &Path, spec: &Spec) -> io::Result<()> {
    let elems = u32::try_from(spec.weight_bytes / 4).expect("weights per layer fit u32 elements");
    let mut b = FlatBufferBuilder::with_capacity(64 << 20);
    let mut nodes = Vec::new();
    let mut data_offset = 0u64;
    let dims = [b.create_string("batch")].map(|name| {
        fb::Dim::create(
            &mut b,
            &fb::DimArgs {
                value: 0,
                name: Some(name),
            },
        )
    });
    let shape = b.create_vector(&dims);
    let value = |b: &mut FlatBufferBuilder<'static>, name: &str| {
        let data = fb::ValueNode::create(
            b,
            &fb::ValueNodeArgs {
                shape: Some(shape),
                dtype: Some(fb::DataType::Float),
            },
        );
        node(b, name, fb::NodeKind::ValueNode, data.as_union_value())
    };
    nodes.push(value(&mut b, "input"));
    let mut prev = 0i32;
    for layer in 0..spec.layers {
        let mut inputs = vec![prev];
        if elems > 0 {
            let shape = b.create_vector(&[elems]);
            let data = fb::ConstantNode::create(
                &mut b,
                &fb::ConstantNodeArgs {
                    shape: Some(shape),
                    dtype: Some(fb::ConstantDataType::Float32),
                    data_offset: Some(data_offset),
                    ..Default::default()
                },
            );
            data_offset += (u64::from(elems) * 4).next_multiple_of(64);
            nodes.push(node(
                &mut b,
                &format!("w{layer}"),
                fb::NodeKind::ConstantNode,
                data.as_union_value(),
            ));
            inputs.push(nodes.len() as i32 - 1);
        }
        let scope = match spec.scoped {
            true => format!("/block.{}/layer.{}/", layer / 5000, layer / 50 % 100),
            false => String::new(),
        };
        let (op_name, value_name) = match spec.scoped {
            true => (
                format!("{scope}Relu_{}", layer % 50),
                format!("{scope}Relu_{}_output_0", layer % 50),
            ),
            false => (format!("op{layer}"), format!("v{layer}")),
        };
        nodes.push(value(&mut b, &value_name));
        let out = nodes.len() as i32 - 1;
        let (ty, inputs) = if elems > 0 {
            (fb::OperatorType::Add, inputs)
        } else {
            (fb::OperatorType::Relu, vec![prev])
        };
        let inputs = b.create_vector(&inputs);
        let outputs = b.create_vector(&[out]);
        let op = fb::OperatorNode::create(
            &mut b,
            &fb::OperatorNodeArgs {
                type_: ty,
                inputs: Some(inputs),
                outputs: Some(outputs),
                ..Default::default()
            },
        );
        nodes.push(node(
            &mut b,
            &op_name,
            fb::NodeKind::OperatorNode,
            op.as_union_value(),
        ));
        prev = out;
    }
    let nodes = b.create_vector(&nodes);
    let inputs = b.create_vector(&[0u32]);
    let outputs = b.create_vector(&[prev as u32]);
    let graph = fb::Graph::create(
        &mut b,
        &fb::GraphArgs {
            nodes: Some(nodes),
            inputs: Some(inputs),
            outputs: Some(outputs),
            captures: None,
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
    b.finish(model, None);
    let model = b.finished_data();

    let model_len = model.len() as u64;
    let tensor_data_offset = (32 + model_len).next_multiple_of(64);
    let mut file = File::create(path)?;
    file.write_all(b"RTEN")?;
    file.write_all(&2u32.to_le_bytes())?;
    for field in [32, model_len, tensor_data_offset] {
        file.write_all(&field.to_le_bytes())?;
    }
    file.write_all(model)?;
    let tensor_bytes = if elems > 0 {
        data_offset - (u64::from(elems) * 4).next_multiple_of(64) + u64::from(elems) * 4
    } else {
        0
    };
    file.seek(SeekFrom::Start(0))?;
    file.set_len(tensor_data_offset + tensor_bytes)
}

fn node(
    b: &mut FlatBufferBuilder<'static>,
    name: &str,
    kind: fb::NodeKind,
    data: WIPOffset<flatbuffers::UnionWIPOffset>,
) -> WIPOffset<fb::Node<'static>> {
    let name = b.create_string(name);
    fb::Node::create(
        b,
        &fb::NodeArgs {
            name: Some(name),
            data_type: kind,
            data: Some(data),
        },
    )
}
