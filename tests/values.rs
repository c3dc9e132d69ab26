//! `check --values` held to its oracles: llama.cpp's row validation (`ggml_validate_row_data`)
//! refuses exactly the GGUF tensors on which rtenx reports a value error, at the block it
//! names, and numpy's `isfinite` finds exactly the NaN and infinities rtenx counts, from the
//! same first element (tests/fixtures/values/, made by tests/fixtures/gen/). Then the command
//! line: the flag and the settings that turn the scan on, and the memory it takes.

mod common;

use rtenx::check::{Finding, Item, Severity};
use rtenx::formats::ReadOptions;
use rtenx::{analyze_with, Analysis};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn values() -> PathBuf {
    common::fixtures().join("values")
}

/// The rows of a TSV oracle, without its header and comments, by column.
fn tsv(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(values().join(name)).unwrap();
    (text.lines().skip(1))
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// The fixture checked with `--values`.
fn checked(case: &str) -> Analysis {
    let options = ReadOptions {
        values: Some(rtenx::formats::ValueCheck::default()),
        ..ReadOptions::default()
    };
    analyze_with(&values().join("bad").join(case), &options).unwrap()
}

/// The id of the tensor `name`, and the value errors (VX001, VX002) about it.
fn errors<'a>(a: &'a Analysis, name: &str) -> (usize, Vec<&'a Finding>) {
    let inv = &a.inventory;
    let id = (inv.tensors.iter())
        .position(|t| t.name.to_string() == name)
        .unwrap_or_else(|| panic!("no tensor {name}"));
    let found = (a.findings.iter())
        .filter(|f| f.item == Some(Item::Tensor { tensor: id }))
        .filter(|f| f.severity == Severity::Error && ["VX001", "VX002"].contains(&f.rule.code))
        .collect();
    (id, found)
}

/// Where tensor `id`'s elements start, and the bytes of one of its elements (or blocks).
fn start_and_unit(a: &Analysis, id: usize) -> (u64, u64) {
    let files = rtenx::values::Files::open(&a.inventory, None);
    let start = files.range(id).unwrap().offset;
    let unit = match a.inventory.tensors[id].dtype.unwrap() {
        rtenx::inventory::DType::Blocks(block) => block.bytes,
        dtype => dtype.byte_size(1).unwrap(),
    };
    (start, unit)
}

#[test]
fn llama_cpp_refuses_exactly_the_tensors_with_value_errors_at_the_block_named() {
    let rows = tsv("llama_validate.tsv");
    let mut by_file: BTreeMap<&str, Vec<&Vec<String>>> = BTreeMap::new();
    for row in &rows {
        by_file.entry(&row[0]).or_default().push(row);
    }
    let (mut refused, mut accepted) = (0, 0);
    for (file, rows) in by_file {
        let a = checked(file);
        for row in rows {
            let (tensor, verdict, message) = (&row[1], &row[3], &row[4]);
            let (id, errors) = errors(&a, tensor);
            assert_eq!(
                verdict == "refused",
                !errors.is_empty(),
                "{file} {tensor}: llama.cpp {verdict} ({message}), rtenx {errors:?}"
            );
            if verdict != "refused" {
                accepted += 1;
                continue;
            }
            refused += 1;
            // "found nan value at block N": block N of a block type, element N of a float one.
            if let Some(n) = message
                .rsplit("at block ")
                .next()
                .and_then(|n| n.parse::<u64>().ok())
            {
                let (start, unit) = start_and_unit(&a, id);
                let at = errors[0].offset.unwrap();
                assert!(
                    (start + n * unit..start + (n + 1) * unit).contains(&at),
                    "{file} {tensor}: llama.cpp says block {n}, rtenx points at byte {at} \
                     (data from {start}, {unit} bytes a block): {}",
                    errors[0].message
                );
            }
        }
    }
    // Every block type with a bad scale is refused, and a good one of each accepted.
    assert!(
        refused >= 27 && accepted >= 27,
        "{refused} refused, {accepted} accepted"
    );
}

#[test]
fn numpy_finds_exactly_the_nan_and_infinities_rtenx_counts() {
    let mut seen = 0;
    for row in tsv("numpy_isfinite.tsv") {
        let (file, tensor, elements, nonfinite, first) =
            (&row[0], &row[1], &row[3], &row[4], &row[5]);
        let a = checked(file);
        let (id, errors) = errors(&a, tensor);
        if nonfinite == "0" {
            assert!(
                errors.is_empty(),
                "{file} {tensor}: numpy finds none, rtenx {errors:?}"
            );
            continue;
        }
        assert_eq!(errors.len(), 1, "{file} {tensor}: numpy finds {nonfinite}");
        let message = &errors[0].message;
        assert!(
            message.starts_with(&format!("{nonfinite} of its {elements} elements")),
            "{file} {tensor}: numpy finds {nonfinite} of {elements}: {message}"
        );
        let (start, unit) = start_and_unit(&a, id);
        let first: u64 = first.parse().unwrap();
        assert_eq!(
            errors[0].offset,
            Some(start + first * unit),
            "{file} {tensor}: {message}"
        );
        seen += 1;
    }
    assert!(seen >= 30, "{seen} tensors with NaN or infinities");
}

/// Each format that stores tensor bytes has a fixture whose NaN and infinities its own writer
/// wrote and numpy counted (numpy_isfinite.tsv); those of ONNX, ExecuTorch and Paddle also in
/// a data file beside the model (external data, a `.ptd`, a `.pdiparams`).
#[test]
fn every_format_that_stores_tensor_bytes_has_a_nan_fixture() {
    let mut seen = std::collections::BTreeSet::new();
    for row in tsv("numpy_isfinite.tsv") {
        let (file, tensor, nonfinite) = (&row[0], &row[1], &row[4]);
        if nonfinite == "0" {
            continue;
        }
        let a = checked(file);
        let (_, errors) = errors(&a, tensor);
        let format = a.inventory.format.name();
        seen.insert((format, errors[0].file > 0));
        seen.insert((format, false));
    }
    let formats = [
        "executorch",
        "gguf",
        "numpy",
        "onnx",
        "paddle",
        "pytorch",
        "rten",
        "safetensors",
        "tflite",
    ];
    for format in formats {
        assert!(seen.contains(&(format, false)), "{format}: {seen:?}");
    }
    for format in ["executorch", "onnx", "paddle"] {
        assert!(
            seen.contains(&(format, true)),
            "{format} data file: {seen:?}"
        );
    }
}

/// `rtenx` with `args` in the repository, its exit code and standard output.
fn rtenx(args: &[&str]) -> (i32, String) {
    let out = assert_cmd::Command::cargo_bin("rtenx")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    (out.status.code().unwrap(), stdout)
}

#[test]
fn only_the_flag_or_the_setting_reads_values() {
    let file = "tests/fixtures/values/bad/VX005-truncated.safetensors";
    let (code, out) = rtenx(&["check", "--isolated", file]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("[VX"), "{out}");
    // The default zero-tail (1 MiB) is longer than any of its runs: the all-zero weight only.
    let (code, out) = rtenx(&["check", "--isolated", "--values", file]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("[VX003]") && !out.contains("[VX005]"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rtenx.toml");
    std::fs::write(&config, "values = true\nzero-tail = \"4KiB\"\n").unwrap();
    let config = config.to_str().unwrap();
    let (_, out) = rtenx(&["check", "--config", config, "--format", "json", file]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<&str> = report["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes.iter().filter(|&&c| c == "VX005").count(),
        2,
        "{codes:?}"
    );
    let (code, _) = rtenx(&[
        "check",
        "--isolated",
        "--values",
        "tests/fixtures/values/bad/VX001-floats.gguf",
    ]);
    assert_eq!(code, 1);
}

#[test]
fn a_value_error_does_not_change_whether_the_loader_would_take_the_model() {
    let path = common::fixtures().join("gguf/arch/bad/weight-nan.gguf");
    let verdict = |values| {
        let options = ReadOptions {
            values,
            ..ReadOptions::default()
        };
        let a = analyze_with(&path, &options).unwrap();
        let errors = a.findings.iter().filter(|f| f.severity == Severity::Error);
        let codes: Vec<&str> = errors.map(|f| f.rule.code).collect();
        (a.inventory.architecture.unwrap().verdict, codes)
    };
    let (without, _) = verdict(None);
    let (with, codes) = verdict(Some(rtenx::formats::ValueCheck::default()));
    assert!(codes.contains(&"VX001"), "{codes:?}");
    assert_eq!(format!("{without:?}"), format!("{with:?}"));
}

/// A file of `mib` MiB of bf16 weights, written by hand in safetensors' layout: 64 tensors,
/// each a ramp of values, so that every byte is read and nothing is reported.
fn big_bf16(dir: &Path, mib: usize) -> PathBuf {
    let per = mib * (1 << 20) / 64;
    let mut header = String::from("{");
    for i in 0..64 {
        let (from, to) = (i * per, (i + 1) * per);
        let sep = if i == 0 { "" } else { "," };
        header += &format!(
            "{sep}\"w{i}\":{{\"dtype\":\"BF16\",\"shape\":[{},{}],\"data_offsets\":[{from},{to}]}}",
            per / 2 / 256,
            256
        );
    }
    header += "}";
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let path = dir.join("big.safetensors");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    use std::io::Write;
    out.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    out.write_all(header.as_bytes()).unwrap();
    let ramp: Vec<u8> = (0..per / 2)
        .flat_map(|i| (0x3c00u16 + (i % 0x300) as u16).to_le_bytes())
        .collect();
    for _ in 0..64 {
        out.write_all(&ramp).unwrap();
    }
    out.flush().unwrap();
    path
}

#[cfg(target_os = "linux")]
#[test]
fn reading_every_value_of_a_large_file_holds_a_few_chunks_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_bf16(dir.path(), 256);
    let run = common::bounded::run(&["check", "--isolated", "--values", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("0 errors, 0 warnings"),
        "{}",
        run.stdout
    );
    // 256 MiB read through the map, of which a few 4 MiB chunks are mapped at a time.
    assert!(run.rss_mb < 100, "peak RSS {} MB", run.rss_mb);
}

#[test]
fn the_timeout_still_bounds_a_file_whose_values_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_bf16(dir.path(), 64);
    let path = path.to_str().unwrap();
    let (code, out) = rtenx(&["check", "--isolated", "--values", "--timeout", "1ms", path]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("RX019"), "{out}");
}
