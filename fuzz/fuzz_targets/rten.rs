//! Any bytes, analysed as a file named `model.rten`: detection, the RTen reader (header,
//! FlatBuffer verification, graph walk) and the format-neutral rules. When detection does not
//! choose RTen, the RTen reader is also run on the bytes directly, since `Format::read`
//! promises never to panic on any input.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::check::{generic, Findings};
use rtenx::formats::{rten::Rten, Format, ReadOptions};
use rtenx::source::ModelFile;

fuzz_target!(|data: &[u8]| {
    let file = ModelFile::in_memory("model.rten", data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    if analysis.inventory.format.name() != Rten.about().name {
        let mut findings = Findings::default();
        let inventory = Rten.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = rtenx::Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        common::check_analysis(data, &forced);
    }
});
