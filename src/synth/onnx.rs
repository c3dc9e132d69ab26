//! Large synthetic ONNX models: a chain of `layers` Add nodes, each with one f32 initializer
//! of `weight_bytes` stored in one external data file at 4096-aligned offsets. The data file
//! is sparse, so multi-GiB models cost no disk.

use crate::formats::onnx::proto::{
    GraphProto, ModelProto, NodeProto, StringStringEntryProto, TensorProto, ValueInfoProto,
};
use prost::Message;
use std::path::Path;

/// Writes `model.onnx` and `weights.data` into `dir`.
pub fn write(dir: &Path, layers: u32, weight_bytes: u64) -> std::io::Result<()> {
    let elems = weight_bytes / 4;
    let stride = (elems * 4).next_multiple_of(4096);
    let entry = |k: &str, v: String| StringStringEntryProto {
        key: Some(k.as_bytes().to_vec().into()),
        value: Some(v.into_bytes().into()),
    };
    let name = |s: String| Some(s.into_bytes().into());
    let mut graph = GraphProto {
        name: name("synthetic".into()),
        ..GraphProto::default()
    };
    graph.input.push(ValueInfoProto {
        name: name("v0".into()),
        r#type: None,
    });
    for i in 0..u64::from(layers) {
        if elems > 0 {
            let tensor = TensorProto {
                name: name(format!("w{i}")),
                dims: vec![elems as i64],
                data_type: Some(1),
                data_location: Some(1),
                external_data: vec![
                    entry("location", "weights.data".into()),
                    entry("offset", (i * stride).to_string()),
                    entry("length", (elems * 4).to_string()),
                ],
                ..TensorProto::default()
            };
            graph.initializer.push(tensor.encode_to_vec().into());
        }
        let mut inputs = vec![format!("v{i}").into_bytes().into()];
        if elems > 0 {
            inputs.push(format!("w{i}").into_bytes().into());
        }
        let node = NodeProto {
            input: inputs,
            output: vec![format!("v{}", i + 1).into_bytes().into()],
            name: name(format!("add{i}")),
            op_type: name(if elems > 0 {
                "Add".into()
            } else {
                "Relu".into()
            }),
            ..NodeProto::default()
        };
        graph.node.push(node.encode_to_vec().into());
    }
    graph.output.push(ValueInfoProto {
        name: name(format!("v{layers}")),
        r#type: None,
    });
    let model = ModelProto {
        producer_name: name("rtenx synth".into()),
        ..ModelProto::with_graph(&graph, 17)
    };
    std::fs::write(dir.join("model.onnx"), model.encode_to_vec())?;
    let data = std::fs::File::create(dir.join("weights.data"))?;
    data.set_len(if elems > 0 {
        u64::from(layers) * stride
    } else {
        0
    })
}
