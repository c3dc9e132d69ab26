//! Any bytes, analysed as `model.keras`: the zip reader, Keras archives (`metadata.json`,
//! `config.json` read as a tree through the shared pull parser, every serialized object
//! judged, the layers as a graph), then the scope tree (the layers' recorded scopes placed);
//! also through the Keras reader directly when detection chooses another format.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::keras::Keras;

fuzz_target!(|data: &[u8]| {
    common::check_as(&Keras, "model.keras", data);
});
