//! Writes a large synthetic `.rten` file for benchmarks.
//!
//! ```text
//! cargo run --release --example synth_rten -- OUT LAYERS WEIGHT_BYTES_PER_LAYER
//! cargo run --release --example synth_rten -- big.rten 4000 1073741     # ~4 GiB, 12k nodes
//! cargo run --release --example synth_rten -- wide.rten 500000 0       # 1M nodes
//! ```

use rtenx::synth::rten as synth;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, layers, weight_bytes] = args.as_slice() else {
        eprintln!("usage: synth_rten OUT LAYERS WEIGHT_BYTES_PER_LAYER");
        std::process::exit(2);
    };
    let spec = synth::Spec {
        layers: layers.parse().expect("LAYERS is a number"),
        weight_bytes: weight_bytes
            .parse()
            .expect("WEIGHT_BYTES_PER_LAYER is a number"),
        scoped: false,
    };
    synth::write(std::path::Path::new(out), &spec)
}
