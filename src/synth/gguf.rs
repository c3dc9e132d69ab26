//! Synthetic GGUF files: a llama model of `layers` blocks, complete as llama.cpp's loader
//! wants it (hyperparameters, vocabulary, every tensor of every block), its tensor data left
//! as a hole (a sparse file), optionally split into parts as `llama-gguf-split` names them.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// What to generate.
pub struct Spec {
    /// Transformer blocks (`blk.N`), nine tensors each.
    pub layers: u32,
    /// The embedding, which is also the feed-forward width: each block's seven matrices are
    /// square Q8_0 matrices of this side (34 bytes per 32 elements), its two norms F32
    /// vectors. Heads are 128 wide (one head below that).
    pub width: u64,
    /// Entries of `tokenizer.ggml.tokens`.
    pub vocabulary: u32,
    /// Parts to split the model into (1: one file).
    pub parts: u32,
}

/// GGML type id of Q8_0.
const Q8_0: u32 = 8;
/// GGML type id of F32.
const F32: u32 = 0;
const ALIGNMENT: u64 = 32;

/// A key-value pair's value.
enum Value<'a> {
    U16(u16),
    U32(u32),
    F32(f32),
    I32(i32),
    Str(&'a str),
    Strings(u32),
}

/// `target/bench-data/<name>` (the first part, for a split model), written on first use.
pub fn bench_file(name: &str, spec: &Spec) -> PathBuf {
    super::bench_data(name, |path| write(path, spec))
}

/// `target/bench-data/llama40g.gguf`: 80 blocks of 7 Q8_0 matrices of 8,192², 40 GB, one
/// file (sparse).
pub fn forty_gb() -> PathBuf {
    bench_file(
        "llama40g.gguf",
        &Spec {
            layers: 80,
            width: 8_192,
            vocabulary: 32_000,
            parts: 1,
        },
    )
}

/// `target/bench-data/vocab150k.gguf`: a small model with a 150,000-token vocabulary.
pub fn large_vocabulary() -> PathBuf {
    bench_file(
        "vocab150k.gguf",
        &Spec {
            layers: 2,
            width: 64,
            vocabulary: 150_000,
            parts: 1,
        },
    )
}

/// The path of part `no` (from 1) of `parts` beside `first`.
pub fn part_path(first: &Path, no: u32, parts: u32) -> PathBuf {
    let stem = first
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model");
    let prefix = stem
        .strip_suffix(&format!("-00001-of-{parts:05}"))
        .unwrap_or(stem);
    first.with_file_name(format!("{prefix}-{no:05}-of-{parts:05}.gguf"))
}

/// Writes the model `spec` describes: to `path`, or for a split model to `path` as its
/// first part and to the paths [`part_path`] names.
pub fn write(path: &Path, spec: &Spec) -> io::Result<()> {
    let w = spec.width;
    let vocabulary = u64::from(spec.vocabulary);
    let mut tensors = vec![("token_embd.weight".to_owned(), vec![w, vocabulary], Q8_0)];
    for n in 0..spec.layers {
        for name in ["attn_norm", "ffn_norm"] {
            tensors.push((format!("blk.{n}.{name}.weight"), vec![w], F32));
        }
        for name in [
            "attn_q",
            "attn_k",
            "attn_v",
            "attn_output",
            "ffn_gate",
            "ffn_down",
            "ffn_up",
        ] {
            tensors.push((format!("blk.{n}.{name}.weight"), vec![w, w], Q8_0));
        }
    }
    tensors.push(("output_norm.weight".to_owned(), vec![w], F32));
    let heads = u32::try_from((w / 128).max(1)).unwrap_or(1);
    let width = u32::try_from(w).unwrap_or(u32::MAX);
    let parts = spec.parts.max(1);
    let total = i32::try_from(tensors.len()).unwrap_or(i32::MAX);
    for index in 0..parts as usize {
        let share = |i: usize| i * tensors.len() / parts as usize;
        let chunk = &tensors[share(index)..share(index + 1)];
        let no = index as u32 + 1;
        let path = if parts == 1 {
            path.to_owned()
        } else {
            part_path(path, no, parts)
        };
        let mut pairs = Vec::new();
        if no == 1 {
            let layers = spec.layers;
            pairs.extend([
                ("general.architecture", Value::Str("llama")),
                ("general.name", Value::Str("rtenx-synthetic")),
                ("general.quantization_version", Value::U32(2)),
                ("llama.block_count", Value::U32(layers)),
                ("llama.context_length", Value::U32(4096)),
                ("llama.embedding_length", Value::U32(width)),
                ("llama.feed_forward_length", Value::U32(width)),
                ("llama.attention.head_count", Value::U32(heads)),
                ("llama.attention.head_count_kv", Value::U32(heads)),
                ("llama.attention.layer_norm_rms_epsilon", Value::F32(1e-5)),
                ("tokenizer.ggml.model", Value::Str("llama")),
                ("tokenizer.ggml.tokens", Value::Strings(spec.vocabulary)),
            ]);
        }
        if parts > 1 {
            pairs.push(("split.no", Value::U16(index as u16)));
            pairs.push(("split.count", Value::U16(parts as u16)));
            pairs.push(("split.tensors.count", Value::I32(total)));
        }
        write_file(&path, &pairs, chunk)?;
    }
    Ok(())
}

/// Bytes of a tensor of `dims` and GGML type `ty` (F32 or Q8_0).
fn tensor_bytes(dims: &[u64], ty: u32) -> u64 {
    let elements: u64 = dims.iter().product();
    if ty == Q8_0 {
        elements / 32 * 34
    } else {
        elements * 4
    }
}

fn string(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(&(text.len() as u64).to_le_bytes())?;
    out.write_all(text.as_bytes())
}

fn write_file(
    path: &Path,
    pairs: &[(&str, Value<'_>)],
    tensors: &[(String, Vec<u64>, u32)],
) -> io::Result<()> {
    let mut out = BufWriter::new(File::create(path)?);
    out.write_all(b"GGUF")?;
    out.write_all(&3u32.to_le_bytes())?;
    out.write_all(&(tensors.len() as u64).to_le_bytes())?;
    out.write_all(&(pairs.len() as u64).to_le_bytes())?;
    for (key, value) in pairs {
        string(&mut out, key)?;
        match value {
            Value::U16(v) => {
                out.write_all(&2u32.to_le_bytes())?;
                out.write_all(&v.to_le_bytes())?;
            }
            Value::U32(v) => {
                out.write_all(&4u32.to_le_bytes())?;
                out.write_all(&v.to_le_bytes())?;
            }
            Value::F32(v) => {
                out.write_all(&6u32.to_le_bytes())?;
                out.write_all(&v.to_le_bytes())?;
            }
            Value::I32(v) => {
                out.write_all(&5u32.to_le_bytes())?;
                out.write_all(&v.to_le_bytes())?;
            }
            Value::Str(text) => {
                out.write_all(&8u32.to_le_bytes())?;
                string(&mut out, text)?;
            }
            Value::Strings(n) => {
                out.write_all(&9u32.to_le_bytes())?;
                out.write_all(&8u32.to_le_bytes())?;
                out.write_all(&u64::from(*n).to_le_bytes())?;
                for i in 0..*n {
                    string(&mut out, &format!("tok{i}"))?;
                }
            }
        }
    }
    let mut offset = 0u64;
    for (name, dims, ty) in tensors {
        string(&mut out, name)?;
        out.write_all(&(dims.len() as u32).to_le_bytes())?;
        for d in dims {
            out.write_all(&d.to_le_bytes())?;
        }
        out.write_all(&ty.to_le_bytes())?;
        out.write_all(&offset.to_le_bytes())?;
        offset = (offset + tensor_bytes(dims, *ty)).next_multiple_of(ALIGNMENT);
    }
    let infos_end = out.stream_position()?;
    let data_start = infos_end.next_multiple_of(ALIGNMENT);
    out.write_all(&vec![0; (data_start - infos_end) as usize])?;
    let mut file = out.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(data_start))?;
    file.set_len(data_start + offset)
}
