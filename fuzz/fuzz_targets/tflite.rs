//! Any bytes, analysed as a file named `model.tflite`: detection, the TFLite reader
//! (FlatBuffer verification, operator codes, buffers inline and in the offset/size form,
//! subgraphs, sparsity, string tables, metadata, signatures) and the format-neutral rules,
//! then the scope tree. When detection does not choose TFLite, the TFLite reader is also run
//! on the bytes directly, since `Format::read` promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::tflite::TfLite;

fuzz_target!(|data: &[u8]| {
    common::check_as(&TfLite, "model.tflite", data);
});
