//! Formats rtenx recognises but does not read.
//!
//! A file in one of these formats is reported as what it is (RX001 names it), never with a
//! reader's error for a format it is not in: a `.pte` misread as an RTen V1 FlatBuffer would
//! get an invalid-FlatBuffer error that sends its owner looking for corruption. Each entry
//! looks only at the first bytes, and at the first member's name of a zip archive.

use super::shared::bytes::head;
use super::shared::json::with_key as json_with_key;
use super::shared::{flatbuffer, hdf5, protobuf};
use super::Detection;

/// A format rtenx recognises and does not read.
pub struct Foreign {
    /// Short name, such as `safetensors`; JSON output uses it.
    pub name: &'static str,
    /// What to call it in a message, such as `safetensors weights`.
    pub title: &'static str,
    /// Extensions the format's files usually have, lower case, without the dot.
    pub extensions: &'static [&'static str],
    /// Decides from the content whether bytes are in this format.
    pub detect: fn(&[u8]) -> Detection,
    /// False for a file that goes with a model rather than being one (a `config.json`).
    pub model: bool,
}

/// Every format rtenx names without reading it.
pub static FOREIGN: &[Foreign] = &[
    Foreign {
        name: "executorch-bundled",
        title: "an ExecuTorch bundled program (a .pte with test inputs)",
        extensions: &["bpte"],
        detect: |b| flatbuffer_id(b, |id| id.starts_with(b"BP")),
        model: true,
    },
    Foreign {
        name: "hdf5",
        title: "an HDF5 file",
        extensions: &["h5", "hdf5", "keras"],
        detect: hdf5_file,
        model: true,
    },
    Foreign {
        name: "coreml",
        title: "a Core ML model (.mlmodel)",
        extensions: &["mlmodel"],
        detect: coreml,
        model: true,
    },
    Foreign {
        name: "coreml-package",
        title: "the manifest of a Core ML package (.mlpackage)",
        extensions: &["json"],
        detect: |b| magic(json_with_key(b, "\"itemInfoEntries\"")),
        model: true,
    },
    Foreign {
        name: "tf-savedmodel",
        title: "a TensorFlow SavedModel (saved_model.pb)",
        extensions: &["pb"],
        detect: savedmodel,
        model: true,
    },
    Foreign {
        name: "tf-graphdef",
        title: "a TensorFlow GraphDef (frozen .pb)",
        extensions: &["pb"],
        detect: graphdef,
        model: true,
    },
    Foreign {
        name: "gzip",
        title: "a gzip-compressed file",
        extensions: &["gz", "tgz"],
        detect: |b| magic(b.starts_with(b"\x1f\x8b")),
        model: true,
    },
    Foreign {
        name: "git-lfs-pointer",
        title: "a Git LFS pointer, not the file it points to (run `git lfs pull`)",
        extensions: &[],
        detect: |b| magic(b.starts_with(b"version https://git-lfs.github.com/spec/")),
        model: true,
    },
    Foreign {
        name: "html",
        title: "an HTML page (often a download that saved an error or login page)",
        extensions: &["html", "htm"],
        detect: html,
        model: true,
    },
    Foreign {
        name: "hf-config",
        title: "a Hugging Face model config (config.json), read beside the weights it describes",
        extensions: &["json"],
        detect: |b| {
            magic(json_with_key(b, "\"model_type\"") || json_with_key(b, "\"architectures\""))
        },
        model: false,
    },
    Foreign {
        name: "hf-tokenizer",
        title: "a Hugging Face tokenizer file",
        extensions: &["json"],
        detect: hf_tokenizer,
        model: false,
    },
    Foreign {
        name: "hf-generation-config",
        title: "a Hugging Face generation config (generation_config.json)",
        extensions: &["json"],
        detect: |b| magic(hf_generation_config(b)),
        model: false,
    },
    Foreign {
        name: "png",
        title: "a PNG image",
        extensions: &["png"],
        detect: |b| magic(b.starts_with(b"\x89PNG\r\n\x1a\n")),
        model: true,
    },
];

/// `tokenizer.json` (its `added_tokens` and `model`), `tokenizer_config.json` and
/// `special_tokens_map.json` (their special tokens), without a model config's keys.
fn hf_tokenizer(bytes: &[u8]) -> Detection {
    let key = |k: &str| json_with_key(bytes, k);
    let config = key("\"model_type\"") || key("\"architectures\"");
    let tokenizer = (key("\"added_tokens\"") && (key("\"model\"") || key("\"truncation\"")))
        || key("\"tokenizer_class\"")
        || key("\"added_tokens_decoder\"")
        || (key("\"bos_token\"") && key("\"eos_token\""));
    magic(tokenizer && !config)
}

/// `generation_config.json`: generation settings and the writer's version, without a model
/// config's or a tokenizer's keys.
fn hf_generation_config(bytes: &[u8]) -> bool {
    let key = |k: &str| json_with_key(bytes, k);
    let generation = key("\"_from_model_config\"")
        || (key("\"transformers_version\"") && (key("\"eos_token_id\"") || key("\"do_sample\"")));
    generation
        && hf_tokenizer(bytes) == Detection::No
        && !key("\"model_type\"")
        && !key("\"architectures\"")
}

fn magic(found: bool) -> Detection {
    if found {
        Detection::Magic
    } else {
        Detection::No
    }
}

fn plausible(found: bool) -> Detection {
    if found {
        Detection::Plausible
    } else {
        Detection::No
    }
}

fn flatbuffer_id(bytes: &[u8], matches: impl Fn(&[u8; 4]) -> bool) -> Detection {
    magic(flatbuffer::identifier(bytes).is_some_and(|id| matches(&id)))
}

/// An HDF5 file the Keras reader does not take: not Keras', or Keras' behind a user block
/// longer than its detection looks past.
fn hdf5_file(bytes: &[u8]) -> Detection {
    magic(match hdf5::hint(bytes, u64::MAX) {
        Some(hdf5::Hint::Other) => true,
        Some(_) => hdf5::hint(bytes, hdf5::FIRST_PAGE).is_none(),
        None => false,
    })
}

fn html(bytes: &[u8]) -> Detection {
    let head = head(bytes, 256);
    let text = String::from_utf8_lossy(head)
        .trim_start()
        .to_ascii_lowercase();
    magic(text.starts_with("<!doctype html") || text.starts_with("<html"))
}

/// The numbers and wire types of the first top-level fields of a protobuf message, up to
/// the first one that cannot be read.
fn top_fields(bytes: &[u8]) -> Vec<(u32, protobuf::Value<'_>)> {
    protobuf::fields(bytes)
        .take(64)
        .map_while(Result::ok)
        .map(|f| (f.number, f.value))
        .collect()
}

/// Core ML's `Model`: specificationVersion (1), description (2), then one model type whose
/// field number is 200 or more, which no ONNX ModelProto field has.
fn coreml(bytes: &[u8]) -> Detection {
    let fields = top_fields(bytes);
    let version = matches!(fields.first(), Some((1, protobuf::Value::Varint(_))));
    let typed = fields
        .iter()
        .any(|(n, v)| *n >= 200 && matches!(v, protobuf::Value::Bytes(_)));
    magic(version && typed)
}

/// A SavedModel: saved_model_schema_version (1) and meta_graphs (2) only, with a meta graph
/// that holds a graph_def (2).
fn savedmodel(bytes: &[u8]) -> Detection {
    let fields = top_fields(bytes);
    let only_known = fields.iter().all(|(n, _)| *n == 1 || *n == 2);
    let has_graph = fields.iter().any(|(n, v)| match v {
        protobuf::Value::Bytes(meta) if *n == 2 => top_fields(meta).iter().any(|(n, _)| *n == 2),
        _ => false,
    });
    magic(!fields.is_empty() && only_known && has_graph)
}

/// A GraphDef: nodes (1) whose first field is a name string, then versions (4) or a library (2).
fn graphdef(bytes: &[u8]) -> Detection {
    let fields = top_fields(bytes);
    let node_like = |v: &protobuf::Value<'_>| match v {
        protobuf::Value::Bytes(node) => {
            matches!(
                top_fields(node).first(),
                Some((1, protobuf::Value::Bytes(_)))
            )
        }
        _ => false,
    };
    let first_is_node = matches!(fields.first(), Some((1, v)) if node_like(v));
    let known = fields
        .iter()
        .all(|(n, v)| matches!(n, 1..=4) && matches!(v, protobuf::Value::Bytes(_)));
    plausible(first_is_node && known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(bytes: &[u8]) -> Vec<&'static str> {
        FOREIGN
            .iter()
            .filter(|f| (f.detect)(bytes) != Detection::No)
            .map(|f| f.name)
            .collect()
    }

    #[test]
    fn short_and_empty_inputs_match_nothing_or_do_not_panic() {
        assert!(names(b"").is_empty());
        for len in 0..64 {
            let _ = names(&vec![0xff; len]);
            let _ = names(&b"PK\x03\x04\xff\xff".repeat(len));
        }
    }

    #[test]
    fn flatbuffer_identifiers_name_their_format() {
        // Root table at 12, identifier, a 4-byte vtable at 8, the table's soffset to it.
        let with_id = |id: &[u8; 4]| [&[12, 0, 0, 0][..], id, &[4, 0, 4, 0, 4, 0, 0, 0]].concat();
        assert_eq!(names(&with_id(b"BP08")), ["executorch-bundled"]);
        for id in [b"ET12", b"TFL3"] {
            assert!(
                names(&with_id(id)).is_empty(),
                "ExecuTorch and TFLite are read, not named"
            );
        }
    }

    #[test]
    fn protobuf_detectors_tell_each_other_apart() {
        // Core ML: specificationVersion 4, a description, then neuralNetwork (500).
        let coreml = [0x08, 0x04, 0x12, 0x00, 0xa2, 0x1f, 0x00];
        assert_eq!(names(&coreml), ["coreml"]);
        // SavedModel: schema version 1, a meta graph holding an empty graph_def.
        let saved = [0x08, 0x01, 0x12, 0x02, 0x12, 0x00];
        assert_eq!(names(&saved), ["tf-savedmodel"]);
        // GraphDef: one node named "a".
        let graph = [0x0a, 0x03, 0x0a, 0x01, b'a'];
        assert_eq!(names(&graph), ["tf-graphdef"]);
    }
}
