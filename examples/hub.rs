//! Serves a folder as the Hugging Face repository `org/repo` from the loopback interface, with
//! the server the tests play the Hub with (`tests/common/hub.rs`), for trying remote paths and
//! for `benches/remote.sh`. With `--synth`, first writes (once) the sparse checkpoints the
//! benchmark reads into the folder: `st140g/`, a LlamaForCausalLM of 142 GB in 30 shards with
//! its index and config.json, `llama40g.gguf`, a 40 GB llama GGUF, and `gguf40g/`, the same
//! llama split into 4 parts as `llama-gguf-split` names them.
//!
//! ```text
//! cargo run --release --example hub -- [--synth] DIR
//! HF_ENDPOINT=http://127.0.0.1:PORT rtenx check hf://org/repo/FILE
//! ```

#[allow(dead_code)] // The tests' server; this uses a part of it.
#[path = "../tests/common/hub.rs"]
mod hub;

use rtenx::synth::{gguf, safetensors};
use std::path::Path;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (synth, dir) = match args.as_slice() {
        [flag, dir] if flag == "--synth" => (true, dir),
        [dir] => (false, dir),
        _ => {
            eprintln!("usage: hub [--synth] DIR");
            std::process::exit(2);
        }
    };
    let dir = Path::new(dir);
    if synth {
        let shards = dir.join("st140g");
        if !shards.join("model.safetensors.index.json").exists() {
            std::fs::create_dir_all(&shards)?;
            let spec = safetensors::Spec {
                layers: 80,
                width: 11_264,
                shards: 30,
            };
            safetensors::write(&shards, &spec)?;
        }
        for (path, parts) in [
            (dir.join("llama40g.gguf"), 1),
            (dir.join("gguf40g/llama40g-00001-of-00004.gguf"), 4),
        ] {
            if !path.exists() {
                std::fs::create_dir_all(path.parent().unwrap_or(dir))?;
                let spec = gguf::Spec {
                    layers: 80,
                    width: 8_192,
                    vocabulary: 32_000,
                    parts,
                };
                gguf::write(&path, &spec)?;
            }
        }
    }
    let hub = hub::Hub::start();
    hub.page_size(1000);
    hub.add_dir(dir);
    println!("{}", hub.endpoint);
    loop {
        std::thread::park();
    }
}
