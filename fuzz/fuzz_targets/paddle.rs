//! Any bytes, analysed as `model.pdmodel` in an empty folder: detection, the Paddle readers
//! (ProgramDesc, PIR JSON through the shared pull parser, parameter streams, the
//! `.pdiparams.info` pickle subset), pairing (the parameter file beside it is missing) and the
//! format-neutral rules, then the scope tree (the operators' name scopes and call stacks
//! placed). When detection does not choose Paddle, the Paddle reader is also run on the bytes
//! directly (`Format::read` never panics).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::paddle::Paddle;

fuzz_target!(|data: &[u8]| {
    common::check_as(&Paddle, common::empty_dir().join("model.pdmodel"), data);
});
