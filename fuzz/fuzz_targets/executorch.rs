//! Any bytes, analysed as a file named `model.pte`: detection, the ExecuTorch reader
//! (headers, FlatBuffer verification, methods, segments, data-file pairing) and the
//! format-neutral rules, then the scope tree (the instructions' stack traces placed). When
//! detection does not choose ExecuTorch, the ExecuTorch reader is also run on the bytes
//! directly, since `Format::read` promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::check::{generic, Findings};
use rtenx::formats::{executorch::ExecuTorch, Format, ReadOptions};
use rtenx::source::ModelFile;

fuzz_target!(|data: &[u8]| {
    let file = ModelFile::in_memory("model.pte", data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    rtenx::inventory::ScopeTree::build(&analysis.inventory);
    if analysis.inventory.format.name() != ExecuTorch.about().name {
        let mut findings = Findings::default();
        let inventory = ExecuTorch.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = rtenx::Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        common::check_analysis(data, &forced);
    }
});
