//! Any bytes, analysed as `model.safetensors` in an empty folder: detection, the safetensors reader (header length, the JSON header through the pull parser, the layout checks) and the
//! format-neutral rules. When detection does not choose the format, its reader is also run on
//! the bytes directly (`Format::read` never panics).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::check::{generic, Findings};
use rtenx::formats::{safetensors::Safetensors, Format, ReadOptions};
use rtenx::source::ModelFile;

fuzz_target!(|data: &[u8]| {
    let file = ModelFile::in_memory(common::empty_dir().join("model.safetensors"), data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    if analysis.inventory.format.name() != Safetensors.about().name {
        let mut findings = Findings::default();
        let inventory = Safetensors.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = rtenx::Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        common::check_analysis(data, &forced);
    }
});
