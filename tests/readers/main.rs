//! The readers' integration tests: one module per format (plus the oracles, foreign files,
//! "will it load?" and hostile names), linked as one test binary so the suite builds once
//! rather than fifteen times. `cargo test --test readers onnx::` runs one format's tests.

#[path = "../common/mod.rs"]
mod common;

mod executorch;
mod foreign;
mod gguf;
mod hostile_names;
mod litertlm;
mod loadable;
mod numpy;
mod onnx;
mod onnx_offsets;
mod onnx_real;
mod oracle;
mod paddle;
mod pickles;
mod pytorch;
mod rten;
mod safetensors;
