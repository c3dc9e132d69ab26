//! Any bytes, analysed as `model.h5`: the shared HDF5 reader (superblock, object headers and
//! their continuation blocks, attributes, symbol-table and link-message groups, global heap
//! strings, layouts) under the legacy Keras reader (`model_config` judged, datasets as
//! tensors), then the scope tree; also through the Keras reader directly when detection
//! chooses another format.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::keras::Keras;

fuzz_target!(|data: &[u8]| {
    common::check_as(&Keras, "model.h5", data);
});
