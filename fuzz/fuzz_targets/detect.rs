//! Any bytes: format detection (`formats::registry::detect`), which runs the detector of every
//! format rtenx reads and of every format it only names (`formats::foreign`). The file name
//! only breaks ties between equally strong detections, so it is tried with a few extensions,
//! and each answer must be a detector's strongest claim.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rtenx::formats::foreign::FOREIGN;
use rtenx::formats::registry::{self, Detected, FORMATS};
use rtenx::formats::Detection;
use rtenx::source::ModelFile;

/// No extension, and extensions that two formats share or that break a tie between a
/// format rtenx reads and one it names. Each name runs every detector again, so the list is
/// short.
const NAMES: &[&str] = &["model", "model.onnx", "model.pb", "model.json"];

fuzz_target!(|data: &[u8]| {
    let strongest = FORMATS
        .iter()
        .map(|f| f.detect(data))
        .chain(FOREIGN.iter().map(|f| (f.detect)(data)))
        .max()
        .unwrap_or(Detection::No);
    for name in NAMES {
        let file = ModelFile::in_memory(*name, data.to_vec());
        let found = match registry::detect(&file) {
            Detected::Read(format) => format.detect(data),
            Detected::NotRead(foreign) => (foreign.detect)(data),
            Detected::Unknown => Detection::No,
        };
        assert_eq!(found, strongest, "{name}: detect chose a weaker claim");
    }
});
