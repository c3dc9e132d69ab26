//! Any bytes, analysed as a file named `model.pte`: detection, the ExecuTorch reader
//! (headers, FlatBuffer verification, methods, segments, data-file pairing) and the
//! format-neutral rules, then the scope tree (the instructions' stack traces placed). When
//! detection does not choose ExecuTorch, the ExecuTorch reader is also run on the bytes
//! directly, since `Format::read` promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::executorch::ExecuTorch;

fuzz_target!(|data: &[u8]| {
    common::check_as(&ExecuTorch, "model.pte", data);
});
