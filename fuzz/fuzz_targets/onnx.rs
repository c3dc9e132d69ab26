//! Any bytes, analysed as `model.onnx` in an empty folder: detection, the ONNX wire views,
//! graph and tensor reading, external data locations (resolved against the empty folder, so
//! each is refused or missing) and the format-neutral rules. When detection does not choose
//! ONNX, the ONNX reader is also run on the bytes directly (`Format::read` never panics).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::onnx::Onnx;

fuzz_target!(|data: &[u8]| {
    common::check_as(&Onnx, common::empty_dir().join("model.onnx"), data);
});
