//! Any bytes, analysed as `model.gguf` in an empty folder: detection, the GGUF reader (header, key-value pairs, arrays left in the file, tensor infos, split parts: none exist beside it) and the
//! format-neutral rules. When detection does not choose the format, its reader is also run on
//! the bytes directly (`Format::read` never panics).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::gguf::Gguf;

fuzz_target!(|data: &[u8]| {
    common::check_as(&Gguf, common::empty_dir().join("model.gguf"), data);
});
