//! Synthetic safetensors checkpoints: a llama-shaped model's tensors in one file or sharded
//! with an index as `save_pretrained` writes it, tensor data left as a hole (sparse files).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What to generate.
pub struct Spec {
    /// Transformer layers, four square BF16 matrices each.
    pub layers: u32,
    /// Rows and columns of each matrix.
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

/// `target/bench-data/st40g/`: 80 layers of 4 BF16 matrices of 11,264², 40 GB in 20 shards.
pub fn forty_gb_sharded() -> PathBuf {
    bench_dir(
        "st40g",
        &Spec {
            layers: 80,
            width: 11_264,
            shards: 20,
        },
    )
}

/// Writes the checkpoint `spec` describes into `dir`.
pub fn write(dir: &Path, spec: &Spec) -> io::Result<()> {
    let mut tensors = Vec::new();
    for n in 0..spec.layers {
        for name in ["q_proj", "k_proj", "v_proj", "o_proj"] {
            tensors.push(format!("model.layers.{n}.self_attn.{name}.weight"));
        }
    }
    let shards = spec.shards.max(1) as usize;
    let bytes = spec.width * spec.width * 2;
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
        for (i, name) in names.iter().enumerate() {
            let (begin, end) = (i as u64 * bytes, (i as u64 + 1) * bytes);
            let _ = write!(
                header,
                ",\"{name}\":{{\"dtype\":\"BF16\",\"shape\":[{w},{w}],\"data_offsets\":[{begin},{end}]}}",
                w = spec.width
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
        out.set_len(8 + header.len() as u64 + names.len() as u64 * bytes)?;
    }
    if shards > 1 {
        let total = tensors.len() as u64 * bytes;
        let index =
            format!("{{\"metadata\":{{\"total_size\":{total}}},\"weight_map\":{{{weight_map}}}}}");
        std::fs::write(dir.join("model.safetensors.index.json"), index)?;
    }
    Ok(())
}
