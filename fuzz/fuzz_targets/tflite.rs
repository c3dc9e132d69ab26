//! Any bytes, analysed as a file named `model.tflite`: detection, the TFLite reader
//! (FlatBuffer verification, operator codes, buffers inline and in the offset/size form,
//! subgraphs, sparsity, string tables, metadata, signatures) and the format-neutral rules,
//! then the scope tree. When detection does not choose TFLite, the TFLite reader is also run
//! on the bytes directly, since `Format::read` promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::check::{generic, Findings};
use rtenx::formats::{tflite::TfLite, Format, ReadOptions};
use rtenx::source::ModelFile;

fuzz_target!(|data: &[u8]| {
    let file = ModelFile::in_memory("model.tflite", data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    rtenx::inventory::ScopeTree::build(&analysis.inventory);
    if analysis.inventory.format.name() != TfLite.about().name {
        let mut findings = Findings::default();
        let inventory = TfLite.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = rtenx::Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        common::check_analysis(data, &forced);
    }
});
