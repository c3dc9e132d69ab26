//! Any bytes, analysed as `model.npy`: `.npy` headers (the Python literal parser), object
//! arrays' pickles, `.npz` archives with stored and deflated members; also through the NumPy
//! reader directly when detection chooses another format.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::numpy::NumPy;

fuzz_target!(|data: &[u8]| {
    common::check_as(&NumPy, "model.npy", data);
});
