//! Any bytes, analysed as `model.onnx` in an empty folder: detection, the ONNX wire views,
//! graph and tensor reading, external data locations (resolved against the empty folder, so
//! each is refused or missing) and the format-neutral rules. When detection does not choose
//! ONNX, the ONNX reader is also run on the bytes directly (`Format::read` never panics).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::check::{generic, Findings};
use rtenx::formats::{onnx::Onnx, Format, ReadOptions};
use rtenx::source::ModelFile;

fuzz_target!(|data: &[u8]| {
    let file = ModelFile::in_memory(common::empty_dir().join("model.onnx"), data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    if analysis.inventory.format.name() != Onnx.about().name {
        let mut findings = Findings::default();
        let inventory = Onnx.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = rtenx::Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        common::check_analysis(data, &forced);
    }
});
