//! With the `proto` feature (tests and benchmarks turn it on), generates the ONNX and
//! PaddlePaddle protobuf types from `schema/onnx.proto` and `schema/framework.proto` with
//! prost. The schemas are compiled by protox, a pure-Rust protobuf compiler, so no `protoc`
//! needs installing. Without the feature, nothing is built.

#[cfg(not(feature = "proto"))]
fn main() {}

#[cfg(feature = "proto")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["schema/onnx.proto", "schema/framework.proto"];
    for proto in protos {
        println!("cargo:rerun-if-changed={proto}");
    }
    let descriptors = protox::compile(protos, ["schema"])?;
    prost_build::Config::new()
        // `bytes::Bytes` fields slice the memory-mapped file instead of copying it.
        .bytes(["."])
        .compile_fds(descriptors)?;
    Ok(())
}
