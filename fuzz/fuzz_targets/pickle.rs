//! Any bytes, analysed as `model.pkl`: detection, the pickle machine (every opcode of
//! protocols 0 to 5, the memo, joblib's arrays, the bytes after `STOP`), the verdict on its
//! imports, Paddle's tensor forms, and the format-neutral rules; also through the pickle
//! reader directly when detection chooses another format.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::pickle::Pickles;

fuzz_target!(|data: &[u8]| {
    common::check_as(&Pickles, "model.pkl", data);
});
