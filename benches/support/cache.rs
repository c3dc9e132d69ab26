//! Benchmark inputs, generated once under `target/bench-data/` and reused.

use super::synth;
use std::path::{Path, PathBuf};

/// The synthetic `.rten` file `name` made from `spec`, written on first use.
pub fn bench_file(name: &str, spec: synth::Spec) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    if !path.exists() {
        synth::write(&path, &spec).unwrap();
    }
    path
}
