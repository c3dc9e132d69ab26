//! Generates the ONNX protobuf types from `schema/onnx.proto` with prost. The schema is
//! compiled by protox, a pure-Rust protobuf compiler, so no `protoc` needs installing.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "schema/onnx.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["schema"])?;
    prost_build::Config::new()
        // `bytes::Bytes` fields slice the memory-mapped file instead of copying it.
        .bytes(["."])
        .compile_fds(descriptors)?;
    Ok(())
}
