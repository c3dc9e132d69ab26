//! RTen models made by the real converter (tests/fixtures/rten, `rten-convert` from the ONNX
//! models in rten/src, each as V2 and as V1 with `--v1`): every initializer of the source
//! model is a constant with its name, type, shape and bytes; every operator is there in order;
//! the V2 header's fields are the sections; a V1 file and its V2 twin read alike; the metadata
//! file's JSON is the metadata. The `rten` crate's own loader is the oracle of the graphs in
//! tests/readers/oracle.rs, and tests/hostile.rs holds the hostile cases of rten/bad/.

use crate::common;

use prost::Message;
use rtenx::formats::onnx::proto::{GraphProto, ModelProto, NodeProto, TensorProto};
use rtenx::inventory::{DType, Inventory, NodeKind, SectionKind, Storage};
use std::path::PathBuf;

const MODELS: [&str; 5] = ["mlp", "convnet", "subgraphs", "quantized", "metadata"];

fn rten(name: &str) -> PathBuf {
    common::fixtures().join("rten").join(name)
}

/// A fixture's analysis, which must have no finding, with the file's bytes.
fn read(name: &str) -> (Inventory, Vec<u8>) {
    let path = rten(name);
    let analysis = rtenx::analyze(&path).unwrap();
    assert!(
        analysis.findings.is_empty(),
        "{name}: {:?}",
        analysis.findings
    );
    assert_eq!(analysis.inventory.format.name(), "rten", "{name}");
    (analysis.inventory, std::fs::read(&path).unwrap())
}

/// An initializer of the ONNX model rten-convert read.
struct Initializer {
    name: String,
    dims: Vec<u64>,
    dtype: DType,
    raw: Vec<u8>,
}

/// The initializers and node types of the ONNX model rten-convert read.
fn source(model: &str) -> (Vec<Initializer>, Vec<String>) {
    let bytes = std::fs::read(rten(&format!("src/{model}.onnx"))).unwrap();
    let onnx = ModelProto::decode(bytes.as_slice()).unwrap();
    let graph = GraphProto::decode(onnx.graph.unwrap()).unwrap();
    let text = |b: Option<prost::bytes::Bytes>| String::from_utf8(b.unwrap().to_vec()).unwrap();
    let initializers = graph
        .initializer
        .into_iter()
        .map(|b| {
            let t = TensorProto::decode(b).unwrap();
            // TensorProto.DataType: FLOAT, UINT8, INT8, INT32 (the fixtures' types).
            let dtype = match t.data_type.unwrap() {
                1 => DType::F32,
                2 => DType::U8,
                3 => DType::I8,
                6 => DType::I32,
                other => panic!("{model}: no case for data type {other}"),
            };
            Initializer {
                dims: t.dims.iter().map(|&d| d as u64).collect(),
                dtype,
                raw: t.raw_data.unwrap().to_vec(),
                name: text(t.name),
            }
        })
        .collect();
    let ops = graph
        .node
        .into_iter()
        .map(|b| text(NodeProto::decode(b).unwrap().op_type))
        .collect();
    (initializers, ops)
}

/// The operator types of the main graph, in file order.
fn operators(inv: &Inventory) -> Vec<String> {
    (&inv.graphs[0].nodes)
        .into_iter()
        .filter_map(|n| match n.kind {
            NodeKind::Operator(op) => Some(op.op_type().to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_initializer_of_the_source_is_a_constant_with_its_bytes() {
    for model in MODELS {
        let (initializers, _) = source(model);
        assert!(!initializers.is_empty(), "{model}");
        for file in [format!("{model}.rten"), format!("{model}.v1.rten")] {
            let (inv, bytes) = read(&file);
            for init in &initializers {
                let tensor = inv
                    .tensors
                    .iter()
                    .find(|t| t.name.as_str() == Some(init.name.as_str()))
                    .unwrap_or_else(|| panic!("{file}: no tensor {}", init.name));
                assert_eq!(tensor.shape, init.dims, "{file}: {}", init.name);
                assert_eq!(tensor.dtype, Some(init.dtype), "{file}: {}", init.name);
                let data = tensor.data.unwrap();
                let at = data.offset as usize..(data.offset + data.len) as usize;
                assert_eq!(bytes[at], init.raw[..], "{file}: {}'s bytes", init.name);
            }
        }
    }
}

#[test]
fn the_operators_are_the_source_nodes_in_order() {
    for model in MODELS {
        // rten-convert turns Constant nodes into constants.
        let (_, mut expected) = source(model);
        expected.retain(|op| op != "Constant");
        for file in [format!("{model}.rten"), format!("{model}.v1.rten")] {
            assert_eq!(operators(&read(&file).0), expected, "{file}");
        }
    }
}

#[test]
fn a_v2_header_gives_the_sections_and_every_tensor_is_in_the_tensor_data() {
    for model in MODELS {
        let file = format!("{model}.rten");
        let (inv, bytes) = read(&file);
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        assert_eq!(&bytes[..4], b"RTEN", "{file}");
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
        let (model_offset, model_len, data_offset) = (u64_at(8), u64_at(16), u64_at(24));
        assert_eq!(inv.format_version, "V2", "{file}");
        let section = |kind| {
            let s = inv.sections.iter().find(|s| s.kind == kind).unwrap();
            (s.range.start, s.range.len)
        };
        assert_eq!(section(SectionKind::Header), (0, 32), "{file}");
        assert_eq!(
            section(SectionKind::ModelData),
            (model_offset, model_len),
            "{file}"
        );
        let size = bytes.len() as u64;
        assert_eq!(
            section(SectionKind::TensorData),
            (data_offset, size - data_offset),
            "{file}"
        );
        let props: Vec<(&str, &str)> = inv
            .properties
            .iter()
            .map(|p| (p.key.as_str(), p.value.as_str()))
            .collect();
        for (key, value) in [
            ("model_offset", model_offset),
            ("model_len", model_len),
            ("tensor_data_offset", data_offset),
        ] {
            assert!(
                props.contains(&(key, value.to_string().as_str())),
                "{file}: {props:?}"
            );
        }
        // rten-convert leaves small tensors inline, in the FlatBuffer, and puts the others
        // after it, each 64-byte aligned.
        let within = |offset: u64, len: u64, (start, size): (u64, u64)| {
            start <= offset && offset + len <= start + size
        };
        let mut external = 0;
        for t in &inv.tensors {
            let data = t.data.unwrap();
            let (offset, len) = (data.offset, data.len);
            if t.storage == Storage::External {
                external += 1;
                assert!(
                    within(offset, len, section(SectionKind::TensorData)),
                    "{file}: {:?} at {data:?}",
                    t.name
                );
                assert_eq!(offset % 64, 0, "{file}: {:?} is aligned", t.name);
            } else {
                assert_eq!(t.storage, Storage::Inline, "{file}: {:?}", t.name);
                assert!(
                    within(offset, len, (model_offset, model_len)),
                    "{file}: {:?} at {data:?}",
                    t.name
                );
            }
        }
        if model != "metadata" {
            assert!(external > 0, "{file}: no tensor after the model");
        }
    }
}

#[test]
fn a_v1_file_reads_as_its_v2_twin_with_its_tensors_inline() {
    for model in MODELS {
        let (v1, v1_bytes) = read(&format!("{model}.v1.rten"));
        let (v2, v2_bytes) = read(&format!("{model}.rten"));
        assert_eq!(v1.format_version, "V1", "{model}");
        assert_eq!(
            v1.sections.iter().map(|s| s.kind).collect::<Vec<_>>(),
            [SectionKind::ModelData],
            "{model}: a V1 file is one FlatBuffer"
        );
        assert_eq!(v1.graphs.len(), v2.graphs.len(), "{model}");
        for (g1, g2) in v1.graphs.iter().zip(&v2.graphs) {
            let names = |g: &rtenx::inventory::Graph| {
                (&g.nodes)
                    .into_iter()
                    .map(|n| n.name.display().into_owned())
                    .collect::<Vec<_>>()
            };
            assert_eq!(names(g1), names(g2), "{model}");
            assert_eq!((&g1.inputs, &g1.outputs), (&g2.inputs, &g2.outputs));
        }
        assert_eq!(v1.tensors.len(), v2.tensors.len(), "{model}");
        for (t1, t2) in v1.tensors.iter().zip(&v2.tensors) {
            assert_eq!(t1.name, t2.name, "{model}");
            assert_eq!((t1.dtype, &t1.shape), (t2.dtype, &t2.shape), "{model}");
            assert_eq!(t1.storage, Storage::Inline, "{model}: {:?}", t1.name);
            let bytes = |t: &rtenx::inventory::Tensor, b: &[u8]| {
                let d = t.data.unwrap();
                b[d.offset as usize..(d.offset + d.len) as usize].to_vec()
            };
            assert_eq!(bytes(t1, &v1_bytes), bytes(t2, &v2_bytes), "{model}");
        }
    }
}

#[test]
fn subgraphs_hang_from_their_if_and_loop() {
    for file in ["subgraphs.rten", "subgraphs.v1.rten"] {
        let (inv, _) = read(file);
        let main = &inv.graphs[0];
        let parents: Vec<String> = inv.graphs[1..]
            .iter()
            .map(|g| {
                let of = g.parent.unwrap();
                assert_eq!(of.graph, 0, "{file}");
                match main.nodes.get(of.node).unwrap().kind {
                    NodeKind::Operator(op) => op.op_type().to_string(),
                    other => panic!("{file}: a subgraph of {other:?}"),
                }
            })
            .collect();
        // If has a then and an else branch, Loop one body.
        assert_eq!(parents, ["If", "If", "Loop"], "{file}");
    }
}

#[test]
fn the_metadata_file_is_the_metadata() {
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rten("src/metadata.meta.json")).unwrap()).unwrap();
    let expected = json.as_object().unwrap();
    for file in ["metadata.rten", "metadata.v1.rten"] {
        let (inv, _) = read(file);
        for (key, value) in expected {
            let entry = inv
                .metadata
                .iter()
                .find(|m| m.key.as_str() == Some(key.as_str()))
                .unwrap_or_else(|| panic!("{file}: no {key}"));
            assert_eq!(entry.value.as_str(), value.as_str(), "{file}: {key}");
        }
        // rten-convert adds the hash of the ONNX file it read.
        let hash = inv
            .metadata
            .iter()
            .find(|m| m.key.as_str() == Some("onnx_hash"))
            .unwrap();
        assert_eq!(hash.value.as_str().map(str::len), Some(64), "{file}");
    }
}
