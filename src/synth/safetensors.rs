//! Synthetic safetensors checkpoints: a complete `LlamaForCausalLM` with its `config.json`,
//! in one file or sharded with an index as `save_pretrained` writes it, tensor data left as a
//! hole (sparse files).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What to generate.
pub struct Spec {
    /// Transformer layers, seven square BF16 matrices and two norms each.
    pub layers: u32,
    /// The hidden size, which is also the intermediate size: rows and columns of each matrix.
    /// Heads are 128 wide.
    pub width: u64,
    /// Shards (1: a single `model.safetensors`, no index).
    pub shards: u32,
}

/// `target/bench-data/<dir>/`, holding the checkpoint `spec` describes, written on first use;
/// the path of its index (or single file).
pub fn bench_dir(dir: &str, spec: &Spec) -> PathBuf {
    let entry = if spec.shards > 1 {
        "model.safetensors.index.json"
    } else {
        "model.safetensors"
    };
    super::bench_data(&format!("{dir}/{entry}"), |path| {
        write(path.parent().unwrap_or(Path::new(".")), spec)
    })
}

/// `target/bench-data/st40g-llama/`: 80 layers of 7 BF16 matrices of 6,144², 42 GB in 20
/// shards, with its `config.json`.
pub fn forty_gb_sharded() -> PathBuf {
    bench_dir(
        "st40g-llama",
        &Spec {
            layers: 80,
            width: 6_144,
            shards: 20,
        },
    )
}

/// The vocabulary of the synthetic model.
const VOCABULARY: u64 = 32_000;

/// Writes the checkpoint `spec` describes into `dir`.
pub fn write(dir: &Path, spec: &Spec) -> io::Result<()> {
    let w = spec.width;
    let mut tensors: Vec<(String, Vec<u64>)> =
        vec![("model.embed_tokens.weight".into(), vec![VOCABULARY, w])];
    for n in 0..spec.layers {
        let layer = format!("model.layers.{n}");
        for name in [
            "self_attn.q_proj",
            "self_attn.k_proj",
            "self_attn.v_proj",
            "self_attn.o_proj",
            "mlp.gate_proj",
            "mlp.up_proj",
            "mlp.down_proj",
        ] {
            tensors.push((format!("{layer}.{name}.weight"), vec![w, w]));
        }
        for name in ["input_layernorm", "post_attention_layernorm"] {
            tensors.push((format!("{layer}.{name}.weight"), vec![w]));
        }
    }
    tensors.push(("model.norm.weight".into(), vec![w]));
    tensors.push(("lm_head.weight".into(), vec![VOCABULARY, w]));
    let heads = (w / 128).max(1);
    let config = format!(
        "{{\"architectures\":[\"LlamaForCausalLM\"],\"model_type\":\"llama\",\"hidden_size\":{w},\"intermediate_size\":{w},\"num_hidden_layers\":{},\"num_attention_heads\":{heads},\"num_key_value_heads\":{heads},\"vocab_size\":{VOCABULARY},\"max_position_embeddings\":4096,\"tie_word_embeddings\":false,\"dtype\":\"bfloat16\"}}\n",
        spec.layers
    );
    std::fs::write(dir.join("config.json"), config)?;
    let shards = spec.shards.max(1) as usize;
    let size = |shape: &[u64]| shape.iter().product::<u64>() * 2;
    let mut weight_map = String::new();
    for index in 0..shards {
        let share = |i: usize| i * tensors.len() / shards;
        let names = &tensors[share(index)..share(index + 1)];
        let file = if shards == 1 {
            "model.safetensors".to_owned()
        } else {
            format!("model-{:05}-of-{shards:05}.safetensors", index + 1)
        };
        let mut header = String::from("{\"__metadata__\":{\"format\":\"pt\"}");
        let mut end = 0;
        for (name, shape) in names {
            let begin = end;
            end += size(shape);
            let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
            let _ = write!(
                header,
                ",\"{name}\":{{\"dtype\":\"BF16\",\"shape\":[{}],\"data_offsets\":[{begin},{end}]}}",
                dims.join(",")
            );
            let sep = if weight_map.is_empty() { "" } else { "," };
            let _ = write!(weight_map, "{sep}\"{name}\":\"{file}\"");
        }
        header.push('}');
        while header.len() % 8 != 0 {
            header.push(' ');
        }
        let mut out = File::create(dir.join(&file))?;
        out.write_all(&(header.len() as u64).to_le_bytes())?;
        out.write_all(header.as_bytes())?;
        out.set_len(8 + header.len() as u64 + end)?;
    }
    if shards > 1 {
        let total: u64 = tensors.iter().map(|(_, shape)| size(shape)).sum();
        let index =
            format!("{{\"metadata\":{{\"total_size\":{total}}},\"weight_map\":{{{weight_map}}}}}");
        std::fs::write(dir.join("model.safetensors.index.json"), index)?;
    }
    Ok(())
}
