//! Any bytes, analysed as a file named `model.litertlm`: detection, the LiteRT-LM reader
//! (the header, the metadata FlatBuffer read unverified with every offset checked, the section
//! table's bounds, overlaps and types, a compressed tokenizer's size, and each TFLite section
//! read in place by the TFLite reader) and the format-neutral rules, then the scope tree. When
//! detection does not choose LiteRT-LM, its reader is also run on the bytes directly, since
//! `Format::read` promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::check::{generic, Findings};
use rtenx::formats::{litertlm::LiteRtLm, Format, ReadOptions};
use rtenx::source::ModelFile;

fuzz_target!(|data: &[u8]| {
    let file = ModelFile::in_memory("model.litertlm", data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    rtenx::inventory::ScopeTree::build(&analysis.inventory);
    if analysis.inventory.format.name() != LiteRtLm.about().name {
        let mut findings = Findings::default();
        let inventory = LiteRtLm.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = rtenx::Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        common::check_analysis(data, &forced);
    }
});
