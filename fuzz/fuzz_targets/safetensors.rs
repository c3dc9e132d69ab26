//! Any bytes, analysed as `model.safetensors` in an empty folder: detection, the safetensors reader (header length, the JSON header through the pull parser, the layout checks) and the
//! format-neutral rules. When detection does not choose the format, its reader is also run on
//! the bytes directly (`Format::read` never panics).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::safetensors::Safetensors;

fuzz_target!(|data: &[u8]| {
    common::check_as(
        &Safetensors,
        common::empty_dir().join("model.safetensors"),
        data,
    );
});
