//! Any bytes, analysed as a file named `model.litertlm`: detection, the LiteRT-LM reader
//! (the header, the metadata FlatBuffer read unverified with every offset checked, the section
//! table's bounds, overlaps and types, a compressed tokenizer's size, and each TFLite section
//! read in place by the TFLite reader) and the format-neutral rules, then the scope tree. When
//! detection does not choose LiteRT-LM, its reader is also run on the bytes directly, since
//! `Format::read` promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::litertlm::LiteRtLm;

fuzz_target!(|data: &[u8]| {
    common::check_as(&LiteRtLm, "model.litertlm", data);
});
