//! Any bytes, analysed as `model.pdmodel` in an empty folder: detection, the Paddle readers
//! (ProgramDesc, PIR JSON through the shared pull parser, parameter streams, the
//! `.pdiparams.info` pickle subset), pairing (the parameter file beside it is missing) and the
//! format-neutral rules, then the scope tree (the operators' name scopes and call stacks
//! placed). When detection does not choose Paddle, the Paddle reader is also run on the bytes
//! directly (`Format::read` never panics).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::check::{generic, Findings};
use rtenx::formats::{paddle::Paddle, Format, ReadOptions};
use rtenx::source::ModelFile;

fuzz_target!(|data: &[u8]| {
    let file = ModelFile::in_memory(common::empty_dir().join("model.pdmodel"), data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    rtenx::inventory::ScopeTree::build(&analysis.inventory);
    if analysis.inventory.format.name() != Paddle.about().name {
        let mut findings = Findings::default();
        let inventory = Paddle.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = rtenx::Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        common::check_analysis(data, &forced);
    }
});
