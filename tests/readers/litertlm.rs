//! LiteRT-LM bundles written by Google's builder, litert-lm-builder 0.18.1
//! (tests/fixtures/litertlm, tests/fixtures/gen/make_litertlm_fixture.py): the header, the
//! system metadata and the section table are read, and the TFLite model inside is read as
//! `tests/fixtures/tflite/float.tflite`, which it is, byte for byte, at the section's offset.
//! tests/hostile.rs holds the hostile cases of litertlm/bad/; bad/verdicts.tsv records what
//! the builder's own reader says of each.

use crate::common;
use rtenx::check::Severity;
use rtenx::inventory::{FileFormat, SectionKind};

fn analyze(path: &str) -> rtenx::Analysis {
    rtenx::analyze(&common::fixtures().join(path)).unwrap()
}

/// Each tensor's name and where its bytes are.
fn placed(a: &rtenx::Analysis) -> Vec<(String, u64, u64)> {
    (a.inventory.tensors.iter())
        .filter_map(|t| Some((t.name.to_string(), t.data?.offset, t.data?.len)))
        .collect()
}

#[test]
fn the_bundled_model_reads_as_the_tflite_file_it_was_made_from() {
    let bundle = analyze("litertlm/model.litertlm");
    let tflite = analyze("tflite/float.tflite");
    assert_eq!(bundle.inventory.format, FileFormat::Read("litertlm"));
    assert_eq!(bundle.inventory.format_version, "1.7.0");
    assert!(bundle.findings.is_empty(), "{:?}", bundle.findings);
    // The builder put the model at the first 16 KiB boundary after the header.
    let base = 16384;
    let shifted: Vec<_> = (placed(&tflite).into_iter())
        .map(|(name, start, len)| (name, start + base, len))
        .collect();
    assert!(!shifted.is_empty());
    assert_eq!(placed(&bundle), shifted);
    let graphs: Vec<_> = bundle
        .inventory
        .graphs
        .iter()
        .map(|g| g.name.to_string())
        .collect();
    assert_eq!(graphs, ["sections[0]/main"]);
    assert_eq!(
        bundle.inventory.graphs[0].nodes.len(),
        tflite.inventory.graphs[0].nodes.len()
    );
}

#[test]
fn header_metadata_and_sections_are_laid_out() {
    let a = analyze("litertlm/tokenizer.litertlm");
    assert!(a.findings.is_empty(), "{:?}", a.findings);
    let kinds: Vec<_> = (a.inventory.sections.iter())
        .filter(|s| s.kind != SectionKind::Padding)
        .map(|s| (s.kind, s.range.start))
        .collect();
    assert_eq!(
        kinds,
        [
            (SectionKind::Header, 0),
            (SectionKind::ModelData, 32),
            (SectionKind::ModelData, 16384),
            (SectionKind::BlobData, 32768)
        ]
    );
    let meta: Vec<_> = (a.inventory.metadata.iter())
        .map(|m| (m.key.to_string(), m.value.to_string()))
        .collect();
    for (key, value) in [
        ("Authors", "rtenx fixture"),
        ("uuid", "00000000-0000-4000-8000-000000000000"),
        ("sections[0].model_type", "tf_lite_prefill_decode"),
    ] {
        assert!(
            meta.contains(&(key.into(), value.into())),
            "{key} in {meta:?}"
        );
    }
    let prop = |k: &str| {
        (a.inventory.properties.iter())
            .find(|p| p.key == k)
            .map(|p| p.value.clone())
    };
    assert_eq!(
        prop("sections[1]").as_deref(),
        Some("HF_Tokenizer_Zlib at 32768..32860")
    );
    assert_eq!(
        prop("sections[1] tokenizer").as_deref(),
        Some("84 bytes from 84")
    );
}

#[test]
fn every_bundle_the_builder_writes_is_clean_and_wholly_laid_out() {
    // Weights are bytes no tensor points into: they are still the bundle's, not trailing.
    for name in ["model", "tokenizer", "weights"] {
        let a = analyze(&format!("litertlm/{name}.litertlm"));
        assert!(a.findings.is_empty(), "{name}: {:?}", a.findings);
        let kinds: Vec<_> = a.inventory.sections.iter().map(|s| s.kind).collect();
        let laid_out = |k: &SectionKind| k.is_declared() || *k == SectionKind::Padding;
        assert!(kinds.iter().all(laid_out), "{name}: {kinds:?}");
        let last = a.inventory.sections.last().unwrap();
        assert_eq!(
            last.range.end(),
            a.inventory.files[0].size.unwrap(),
            "{name}"
        );
    }
}

#[test]
fn values_of_a_bundled_model_are_read_where_they_lie() {
    let values = |path: &str| {
        let (out, err, code) = common::rtenx(&["dump", "--values", path]);
        assert_eq!(code, 0, "{err}");
        let dump: serde_json::Value = serde_json::from_str(&out).unwrap();
        let tensors = dump["tensors"].as_array().unwrap().clone();
        (tensors.iter())
            .map(|t| t["values"].clone())
            .collect::<Vec<_>>()
    };
    let bundled = values("tests/fixtures/litertlm/model.litertlm");
    assert_eq!(bundled.len(), 5);
    assert!(bundled.iter().all(|v| v["count"].as_u64() > Some(0)));
    assert_eq!(bundled, values("tests/fixtures/tflite/float.tflite"));
}

#[test]
fn a_damaged_bundled_model_is_an_error_at_its_place_in_the_bundle() {
    let a = analyze("litertlm/bad/TF001-model-section.litertlm");
    let errors: Vec<_> = (a.findings.iter())
        .filter(|f| f.severity == Severity::Error)
        .map(|f| (f.rule.code, f.offset))
        .collect();
    assert_eq!(errors, [("TF001", Some(16384))]);
}
