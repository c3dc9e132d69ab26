//! Large synthetic models for tests, benchmarks and the `synth_rten` example, written as
//! sparse files so that multi-GiB tensor data costs no disk space or write time.
//!
//! Compiled only with the `synth` feature, which the package's dev-dependency on itself
//! enables for tests, benchmarks and examples; a plain `cargo build` leaves it out.

pub mod executorch;
pub mod gguf;
pub mod onnx;
pub mod pytorch;
pub mod rten;
pub mod safetensors;

use std::io;
use std::path::{Path, PathBuf};

/// `target/bench-data/<name>`, written by `write` on first use (its folder made first) and
/// reused after.
pub fn bench_data(name: &str, write: impl FnOnce(&Path) -> io::Result<()>) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-data")
        .join(name);
    if !path.exists() {
        std::fs::create_dir_all(path.parent().expect("a path under target/bench-data")).unwrap();
        write(&path).unwrap();
    }
    path
}
