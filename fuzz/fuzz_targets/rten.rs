//! Any bytes, analysed as a file named `model.rten`: detection, the RTen reader (header,
//! FlatBuffer verification, graph walk) and the format-neutral rules. When detection does not
//! choose RTen, the RTen reader is also run on the bytes directly, since `Format::read`
//! promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::rten::Rten;

fuzz_target!(|data: &[u8]| {
    common::check_as(&Rten, "model.rten", data);
});
