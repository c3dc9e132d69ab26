//! Files in formats rtenx does not read (tests/fixtures/foreign, made by
//! tests/fixtures/gen/make_foreign_fixtures.py with each format's own package) are named for
//! what they are, whatever their extension, as not checked (RX017) and with no reader's
//! error; a file of no format at all is RX001.

use crate::common;

use rtenx::inventory::FileFormat;

#[test]
fn every_foreign_file_is_named_and_nothing_else_is_reported() {
    let dir = common::fixtures().join("foreign");
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    let mut failures = Vec::new();
    let mut rows = 0;
    for line in manifest.lines().skip(1) {
        let (file, expected) = line.split_once('\t').unwrap();
        let expected = expected.split('\t').next().unwrap();
        let analysis = rtenx::analyze(&dir.join(file)).unwrap();
        let codes: Vec<&str> = analysis.findings.iter().map(|f| f.rule.code).collect();
        let format = analysis.inventory.format;
        // A recognised format is not checked (RX017, exit code 2); anything else is unknown.
        let (named, code) = match format {
            FileFormat::NotRead(name) | FileFormat::NotModel(name) => (name == expected, "RX017"),
            FileFormat::Unknown => (expected == "unknown", "RX001"),
            FileFormat::Read(_) => (false, "-"),
        };
        if !named || codes != [code] {
            failures.push(format!(
                "{file}: expected {expected}, got {format:?} {codes:?}"
            ));
        }
        rows += 1;
    }
    // The pickle, NumPy and PyTorch files moved to pickle/handmade, and the TFLite and Keras
    // ones (legacy .h5 too) to their own folders, when rtenx began reading them.
    assert!(rows >= 21, "only {rows} foreign fixtures");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A file rtenx does not read is not checked, and `check` says so with exit code 2, "could
/// not check", never 0 and never 1, "found errors".
#[test]
fn a_file_that_is_not_read_is_not_checked_and_fails_the_run() {
    let (out, err, code) = common::rtenx(&["check", "tests/fixtures/foreign/model.mlmodel"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("info[RX017]: this is a Core ML model"),
        "{out}"
    );
    assert!(out.contains("1 file was not checked"), "{out}");
}

#[test]
fn the_message_says_what_the_file_is() {
    let file = common::fixtures().join("foreign/misnamed/hdf5/model.onnx");
    let analysis = rtenx::analyze(&file).unwrap();
    let message = &analysis.findings[0].message;
    assert!(
        message.contains("HDF5") && message.contains("does not read"),
        "{message}"
    );
}

/// Files made by the real paddlepaddle package (tests/fixtures/paddle, made by
/// tests/fixtures/gen/make_paddle_fixtures.py) are read as Paddle, the `.pdiparams.info` of
/// parameter names included (issue 22: it was an unread pickle); the `.pdparams` pickle is
/// named, not misread.
#[test]
fn paddle_files_are_read_as_paddle() {
    let dir = common::fixtures().join("paddle");
    let cases = [
        ("mlp_legacy/model.pdmodel", FileFormat::Read("paddle")),
        ("pervar/__model__", FileFormat::Read("paddle")),
        ("mlp_pir/inference.json", FileFormat::Read("paddle")),
        ("dtypes_pir/model.json", FileFormat::Read("paddle")),
        ("mlp_legacy/model.pdiparams", FileFormat::Read("paddle")),
        ("dtypes_pir/model.pdiparams", FileFormat::Read("paddle")),
        ("lod/model.pdiparams", FileFormat::Read("paddle")),
        ("single/weight.bin", FileFormat::Read("paddle")),
        ("single/lod_tensor.bin", FileFormat::Read("paddle")),
        ("single/selected_rows.bin", FileFormat::Read("paddle")),
        (
            "mlp_legacy_jit/inference.pdiparams.info",
            FileFormat::Read("paddle"),
        ),
        ("single/model.pdparams", FileFormat::Read("pickle")),
    ];
    for (file, expected) in cases {
        let analysis = rtenx::analyze(&dir.join(file)).unwrap();
        assert_eq!(analysis.inventory.format, expected, "{file}");
    }
}

/// The hand-built files of the formats rtenx now reads (tests/fixtures/pickle/handmade, made
/// by tests/fixtures/gen/make_foreign_fixtures.py), misnamed copies included, are read as
/// their format with no error.
#[test]
fn handmade_pickle_numpy_and_torch_files_are_read_by_content() {
    let dir = common::fixtures().join("pickle/handmade");
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let analysis = rtenx::analyze(&dir.join(cols[0])).unwrap();
        let format = analysis.inventory.format;
        assert!(
            matches!(format, FileFormat::Read(name) if name == cols[1]),
            "{}: {format:?}",
            cols[0]
        );
        assert!(
            !analysis.has_errors(),
            "{}: {:?}",
            cols[0],
            analysis.findings
        );
    }
}
