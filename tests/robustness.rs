//! Hostile input: every truncation of every fixture, and many random byte flips. rtenx must
//! never panic, must report an error for every truncated file, and must report an error
//! whenever rten 0.27 refuses (or panics on) a mutated file.

mod common;

use rtenx::check::Item;
use rtenx::check::Severity;
use rtenx::source::ModelFile;
use rtenx::{analyze_file, Analysis};
use std::panic;

/// Errors rtenx reports on files that rten 0.27 still loads, each for a documented reason
/// (see the rule explanations): rten does not check these, and loads garbage or fails later.
const STRICTER: &[&str] = &[
    "RX002", // section overlap: rten reads tensor bytes out of the FlatBuffer
    "RX006", // an external tensor out of bounds is only checked when it is used
    "RX007", // inline length vs shape: rten panics later, at use
    "RX008", // shape overflow
    "RX012", // empty graph (rten-convert #851)
    "RT006", // tensor data inside the model data: garbage weights
    "RT014", // unknown attribute table: rten uses defaults where all attributes are optional
    "RT015", // attribute table of the wrong type: the same (Pad, CumSum, Shape, ...)
    "RT019", // graph ref out of range: rten fails in shape inference or at run time
    "RT020", // graph ref to an operator: rten fails in shape inference
    "RT027", // unknown enum value: rten 0.27 refuses some (Gelu approximate, scatter reduction,
             // dtypes) but silently substitutes a default for others (auto_pad, RNN direction,
             // NMS box order, resize modes), which changes what the model computes
];

fn analyze_bytes(bytes: Vec<u8>) -> Analysis {
    analyze_file(&ModelFile::in_memory("mutant.rten", bytes))
}

fn has_error(a: &Analysis) -> bool {
    a.findings.iter().any(|f| f.severity == Severity::Error)
}

/// Does rten 0.27 load the bytes? A panic counts as a refusal.
fn rten_loads(bytes: Vec<u8>) -> bool {
    let result = panic::catch_unwind(|| {
        rten::ModelOptions::with_all_ops()
            .enable_optimization(false)
            .shape_inference(rten::ShapeInferenceMode::Off)
            .load(bytes)
            .is_ok()
    });
    result.unwrap_or(false)
}

/// Mutants per fixture. Runs of 500,000 once met [`RTEN_HANGS`], which rten never finishes
/// loading; a longer run needs a time limit around `rten_loads`.
const ROUNDS: usize = 1500;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn every_truncation_is_reported_as_an_error() {
    for path in common::valid_rten() {
        let bytes = std::fs::read(&path).unwrap();
        for len in 0..bytes.len() {
            let a = analyze_bytes(bytes[..len].to_vec());
            assert!(
                has_error(&a),
                "{} cut to {len} bytes: no error",
                path.display()
            );
        }
    }
}

/// The contract between rtenx and rten on one file: rtenx does not panic, and reports an
/// error exactly when rten refuses the file (or, on files rten loads, only errors of
/// [`STRICTER`] rules). Returns whether rten refused it, or what broke the contract.
fn contract(bytes: &[u8]) -> Result<bool, String> {
    // rten's panics are silenced by the caller, so a panic in rtenx is caught and named.
    let a = panic::catch_unwind(|| analyze_bytes(bytes.to_vec()))
        .map_err(|_| "rtenx panics".to_owned())?;
    if rten_loads(bytes.to_vec()) {
        let extra: Vec<String> = a
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error && !STRICTER.contains(&f.rule.code))
            .map(|f| format!("{}: {}", f.rule.code, f.message))
            .collect();
        if extra.is_empty() {
            Ok(false)
        } else {
            Err(format!(
                "rten loads it, but rtenx reports {}",
                extra.join("; ")
            ))
        }
    } else if has_error(&a) {
        Ok(true)
    } else {
        let codes: Vec<_> = a.findings.iter().map(|f| f.rule.code).collect();
        Err(format!(
            "rten refuses it, but rtenx reports no error ({codes:?})"
        ))
    }
}

#[test]
fn byte_flips_never_panic_and_rten_refusals_are_errors() {
    panic::set_hook(Box::new(|_| {})); // rten's own panics are expected; keep the log clean.
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut refused = 0;
    let mut problems = Vec::new();
    for path in common::valid_rten() {
        let original = std::fs::read(&path).unwrap();
        for round in 0..ROUNDS {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(bytes.len());
                bytes[i] = match rng.below(3) {
                    0 => bytes[i] ^ (1 << rng.below(8)),
                    1 => rng.next() as u8,
                    _ => 0xff,
                };
            }
            match contract(&bytes) {
                Ok(was_refused) => refused += usize::from(was_refused),
                Err(why) => {
                    let edits: Vec<_> = (0..bytes.len())
                        .filter(|&i| bytes[i] != original[i])
                        .map(|i| (i, bytes[i]))
                        .collect();
                    let name = path.file_name().unwrap_or_default().to_string_lossy();
                    problems.push(format!(
                        "{name} round {round}: {why}\n  regression case: (\"{name}\", &{edits:?})"
                    ));
                }
            }
        }
    }
    let _ = panic::take_hook();
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems[..problems.len().min(25)].join("\n")
    );
    assert!(
        refused > 100,
        "mutations should often break files; only {refused} did"
    );
}

/// Mutants that once broke the contract, found by long runs of the test above with more
/// rounds, as (fixture, [(offset, new byte)]).
const REGRESSIONS: &[(&str, &[(usize, u8)])] = &[
    // An unknown ConstantData tag (0xff), which the verifier skips, with a union offset
    // past the end: the generated accessor followed it and panicked.
    (
        "metadata.v1.rten",
        &[(472, 0x6c), (568, 0x79), (1108, 0xff), (1121, 0xff)],
    ),
    // The If operator's type changed to Expand, keeping its IfAttrs: rten never loads the
    // branches, which rtenx walked and reported (RT017) anyway.
    (
        "subgraphs.rten",
        &[(1323, 0x10), (1988, 0xff), (2790, 0x1b)],
    ),
];

#[test]
fn mutants_that_once_broke_the_contract_keep_it() {
    let broken: Vec<String> = REGRESSIONS
        .iter()
        .filter_map(|(name, edits)| {
            let mut bytes = std::fs::read(common::fixtures().join("rten").join(name)).unwrap();
            for &(at, value) in *edits {
                bytes[at] = value;
            }
            contract(&bytes)
                .err()
                .map(|why| format!("{name} {edits:?}: {why}"))
        })
        .collect();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Every `model.onnx` under the valid ONNX fixtures.
fn valid_onnx() -> Vec<std::path::PathBuf> {
    let mut models: Vec<_> = std::fs::read_dir(common::fixtures().join("onnx"))
        .unwrap()
        .map(|e| e.unwrap().path().join("model.onnx"))
        .filter(|p| p.exists())
        .collect();
    models.sort();
    assert!(
        models.len() >= 8,
        "expected the ONNX fixtures, found {models:?}"
    );
    models
}

/// One random edit: a bit flip, a byte set to a varint-significant value, a duplicated run
/// (repeated fields and lengths that now point elsewhere), or bytes cut out.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    if bytes.is_empty() {
        return;
    }
    let i = rng.below(bytes.len());
    match rng.below(4) {
        0 => bytes[i] ^= 1 << rng.below(8),
        1 => bytes[i] = [0x00, 0x7f, 0x80, 0xff][rng.below(4)],
        2 => {
            let run = bytes[i..(i + 1 + rng.below(64)).min(bytes.len())].to_vec();
            let at = rng.below(bytes.len() + 1);
            bytes.splice(at..at, run);
        }
        _ => {
            bytes.drain(i..(i + 1 + rng.below(16)).min(bytes.len()));
        }
    }
}

/// Protobuf has no fixed layout to check a truncation against: cutting a model at a field
/// boundary can leave a smaller valid model. So for ONNX every truncation and many byte
/// mutations (flips, duplicated runs, cuts) must simply be read without a panic, and a cut inside
/// the graph must be an error.
#[test]
fn onnx_truncations_and_flips_never_panic() {
    let mut rng = Rng(0x0bad_cafe_f00d_0001);
    for path in valid_onnx() {
        let bytes = std::fs::read(&path).unwrap();
        for len in 0..bytes.len() {
            analyze_bytes(bytes[..len].to_vec());
        }
        let graph_cut = analyze_bytes(bytes[..bytes.len() / 2].to_vec());
        assert!(
            has_error(&graph_cut),
            "{}: cut in half, no error",
            path.display()
        );
        for _ in 0..ROUNDS {
            let mut mutant = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut rng, &mut mutant);
            }
            analyze_bytes(mutant);
        }
    }
}

/// mlp.rten with two bytes changed: the magic becomes `RTE\xff`, so rten 0.27 tries the file
/// as ONNX, and byte 202 becomes 0xf2, on which rten-onnx's protobuf decoder loops without end
/// (found by a 500,000-round run; rten was still in `is_onnx_model` after minutes).
const RTEN_HANGS: &[(usize, u8)] = &[(3, 0xff), (202, 0xf2)];

#[test]
fn a_file_that_hangs_rten_is_refused_at_once() {
    let mut bytes = std::fs::read(common::fixtures().join("rten/mlp.rten")).unwrap();
    for &(at, value) in RTEN_HANGS {
        bytes[at] = value;
    }
    let a = analyze_bytes(bytes);
    let codes: Vec<_> = a.findings.iter().map(|f| f.rule.code).collect();
    assert_eq!(codes, ["RX001"], "{:?}", a.findings);
}

/// Inputs coverage-guided fuzzing found (tests/fixtures/fuzz/<target>/, see FUZZING.md):
/// each is read without a panic, every finding in the model points inside it and at an item
/// that exists, and the sections come sorted by file and offset.
#[test]
fn fuzzer_findings_stay_fixed() {
    let mut seen = 0;
    for entry in walkdir::WalkDir::new(common::fixtures().join("fuzz")) {
        let path = entry.unwrap().into_path();
        if !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let size = bytes.len() as u64;
        let analysis = analyze_file(&ModelFile::in_memory(path.clone(), bytes));
        for f in analysis.findings.iter().filter(|f| f.file == 0) {
            assert!(
                f.offset.is_none_or(|o| o <= size),
                "{}: {f:?}",
                path.display()
            );
        }
        let inv = &analysis.inventory;
        for f in &analysis.findings {
            let exists = match f.item {
                Some(Item::Tensor { tensor }) => tensor < inv.tensors.len(),
                Some(Item::Node { graph, node }) => inv
                    .graphs
                    .get(graph)
                    .is_some_and(|g| g.node(node).is_some()),
                Some(Item::Graph { graph }) => graph < inv.graphs.len(),
                _ => true,
            };
            assert!(exists, "{}: {f:?} names a missing item", path.display());
        }
        let sections = &analysis.inventory.sections;
        assert!(
            sections.is_sorted_by_key(|s| (s.file, s.range.start)),
            "{}: {sections:?}",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 3, "{seen} fuzzer findings");
}

/// Paddle programs made by paddlepaddle 3.3.1, each with its parameter file: (folder,
/// program, parameters).
const PADDLE: &[(&str, &str, &str)] = &[
    ("mlp_legacy", "model.pdmodel", "model.pdiparams"),
    ("mlp_pir", "inference.json", "inference.pdiparams"),
    ("dtypes_pir", "model.json", "model.pdiparams"),
    ("lod", "model.pdmodel", "model.pdiparams"),
    ("vocab", "inference.pdmodel", "inference.pdiparams"),
];

/// Every truncation of a tensor saved alone by `paddle.save(..., use_binary_format=True)`
/// (DenseTensor, with LoD, SelectedRows) is an error.
#[test]
fn every_truncation_of_a_single_paddle_tensor_is_an_error() {
    for name in [
        "weight.bin",
        "half.bin",
        "lod_tensor.bin",
        "selected_rows.bin",
    ] {
        let bytes = std::fs::read(common::fixtures().join("paddle/single").join(name)).unwrap();
        assert!(!has_error(&analyze_bytes(bytes.clone())), "{name} whole");
        for len in 0..bytes.len() {
            let a = analyze_bytes(bytes[..len].to_vec());
            assert!(has_error(&a), "{name} cut to {len} bytes: no error");
        }
    }
}

/// Every truncation of a Paddle parameter file read with its program is an error (the file
/// ends inside a record, or holds too few), and truncated or mutated programs and parameter
/// files are read without a panic. Cases run in a temporary folder, so each program finds
/// its damaged parameters by name.
#[test]
fn paddle_truncations_and_mutations_never_panic() {
    let mut rng = Rng(0x9add_1e00_0000_0001);
    for &(folder, program, params) in PADDLE {
        let dir = tempfile::tempdir().unwrap();
        let source = common::fixtures().join("paddle").join(folder);
        let (model_path, params_path) = (dir.path().join(program), dir.path().join(params));
        let model = std::fs::read(source.join(program)).unwrap();
        let weights = std::fs::read(source.join(params)).unwrap();
        let check = |model: &[u8], weights: &[u8]| {
            std::fs::write(&model_path, model).unwrap();
            std::fs::write(&params_path, weights).unwrap();
            rtenx::analyze(&model_path).unwrap()
        };
        for len in 0..weights.len() {
            let a = check(&model, &weights[..len]);
            assert!(
                has_error(&a),
                "{folder}/{params} cut to {len} bytes: no error"
            );
        }
        // JSON programs take longer to parse: every 29th length of those.
        let step = if program.ends_with(".json") { 29 } else { 1 };
        for len in (0..model.len()).step_by(step) {
            check(&model[..len], &weights);
        }
        for _ in 0..ROUNDS / 5 {
            let (mut m, mut w) = (model.clone(), weights.clone());
            for _ in 0..1 + rng.below(4) {
                let target = if rng.below(2) == 0 { &mut m } else { &mut w };
                mutate(&mut rng, target);
            }
            check(&m, &w);
        }
    }
}
