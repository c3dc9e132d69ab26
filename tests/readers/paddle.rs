//! The Paddle reader against the files the real paddlepaddle 3.3.1 wheel wrote
//! (tests/fixtures/paddle, see its README.md): every record decoded by the generator's own
//! reader (records.tsv) is a tensor with the same name, dtype, shape and byte range; programs
//! have the ops their protobuf or JSON holds; and wherever Paddle refuses a model
//! (verdicts.tsv, bad/verdicts.tsv), rtenx reports an error.

use crate::common;

use prost::Message;
use rtenx::check::Severity;
use rtenx::formats::paddle::proto::ProgramDesc;
use rtenx::formats::ReadOptions;
use rtenx::inventory::{Inventory, NodeKind};
use rtenx::Analysis;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn paddle() -> PathBuf {
    common::fixtures().join("paddle")
}

/// The rows of a fixture TSV file, without comments and the header.
fn tsv(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut rows = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_owned).collect::<Vec<_>>());
    rows.next();
    rows.collect()
}

/// The program in `dir`: its `.pdmodel`, `.json` or `__model__`.
fn program_in(dir: &Path) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".pdmodel") || name.ends_with(".json") || name == "__model__"
        })
        .collect();
    assert_eq!(found.len(), 1, "{}: {found:?}", dir.display());
    found.remove(0)
}

fn analyze(path: &Path) -> Analysis {
    rtenx::analyze(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn errors(a: &Analysis) -> Vec<String> {
    a.findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{}: {}", f.rule.code, f.message))
        .collect()
}

/// The inventory's element type name for records.tsv's `FP32(5)`.
fn dtype_name(data_type: &str) -> &'static str {
    match data_type.split('(').next().unwrap() {
        "FP32" => "f32",
        "FP16" => "f16",
        "BF16" => "bf16",
        "FP64" => "f64",
        "INT8" => "i8",
        "UINT8" => "u8",
        "BOOL" => "bool",
        "INT16" => "i16",
        "INT32" => "i32",
        "INT64" => "i64",
        "VOCAB" => "string",
        other => panic!("no fixture has {other}"),
    }
}

#[test]
fn every_record_is_a_tensor_with_its_exact_byte_range() {
    let rows = tsv(&paddle().join("records.tsv"));
    let mut by_file: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    for row in rows {
        by_file.entry(row[0].clone()).or_default().push(row);
    }
    let mut checked = 0;
    for (file, rows) in by_file {
        let path = paddle().join(&file);
        // Records of a program's parameters are read with the program; single files alone.
        let a = if file.starts_with("single/") {
            analyze(&path)
        } else {
            analyze(&program_in(path.parent().unwrap()))
        };
        for row in rows {
            let name = match row[2].as_str() {
                "(single)" => format!("record {}", row[1]),
                "(selected rows)" => "value".to_owned(),
                name => name.to_owned(),
            };
            let t = a
                .inventory
                .tensors
                .iter()
                .find(|t| t.name.as_str() == Some(name.as_str()))
                .unwrap_or_else(|| panic!("{file}: no tensor {name}"));
            let data = t.data.expect("a data range");
            let holder = &a.inventory.files[data.file].path;
            assert!(holder.ends_with(&file), "{name}: in {}", holder.display());
            assert_eq!(
                t.dtype.unwrap().name(),
                dtype_name(&row[9]),
                "{file} {name}"
            );
            if row[9].starts_with("VOCAB") {
                let count: u64 = row[10].trim_start_matches("count=").parse().unwrap();
                assert_eq!(t.shape, [count], "{name}");
                assert_eq!(data.end(), Some(row[13].parse().unwrap()), "{name}");
            } else {
                let dims: Vec<u64> = row[10]
                    .trim_matches(['[', ']'])
                    .split(',')
                    .filter(|d| !d.is_empty())
                    .map(|d| d.parse().unwrap())
                    .collect();
                assert_eq!(t.shape, dims, "{file} {name}");
                let expected = (row[11].parse().unwrap(), row[12].parse().unwrap());
                assert_eq!((data.offset, data.len), expected, "{file} {name}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "{checked} records");
}

/// Operators in every graph of an inventory.
fn operators(inv: &Inventory) -> usize {
    inv.graphs
        .iter()
        .flat_map(|g| &g.nodes)
        .filter(|n| matches!(n.kind, NodeKind::Operator(_)))
        .count()
}

#[test]
fn programs_hold_the_ops_their_files_hold() {
    let mut seen = 0;
    for row in tsv(&paddle().join("manifest.tsv")) {
        let (file, kind) = (&row[0], &row[1]);
        if file.starts_with("bad/") || !(kind == "pdmodel" || kind == "pir-json") {
            continue;
        }
        let path = paddle().join(file);
        let bytes = std::fs::read(&path).unwrap();
        let expected = if kind == "pdmodel" {
            let program = ProgramDesc::decode(&bytes[..]).unwrap();
            program.blocks.iter().map(|b| b.ops.len()).sum::<usize>()
        } else {
            // Every op of every block but the parameter ops, which define values.
            let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            json["program"]["regions"][0]["blocks"][0]["ops"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|op| op["#"] != "p")
                .count()
        };
        let a = analyze(&path);
        assert_eq!(operators(&a.inventory), expected, "{file}");
        assert!(!a.inventory.graphs[0].inputs.is_empty(), "{file}: inputs");
        assert!(!a.inventory.graphs[0].outputs.is_empty(), "{file}: outputs");
        seen += 1;
    }
    assert!(seen >= 10, "{seen} programs");
}

#[test]
fn rtenx_reports_an_error_wherever_paddle_refuses() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut refused = 0;
    for verdicts in ["verdicts.tsv", "bad/verdicts.tsv"] {
        for row in tsv(&paddle().join(verdicts)) {
            let model = repo.join(&row[0]);
            let model = if model.is_dir() {
                model.join("__model__")
            } else {
                model
            };
            let a = analyze(&model);
            let verdict = row[2].as_str();
            if verdict.starts_with("refuses") || verdict == "crash" {
                assert!(!errors(&a).is_empty(), "{}: Paddle says {verdict}", row[0]);
                refused += 1;
            } else if !row[0].contains("/bad/") {
                let noted: Vec<_> = a
                    .findings
                    .iter()
                    .filter(|f| f.severity > Severity::Info)
                    .collect();
                assert!(noted.is_empty(), "{}: {noted:?}", row[0]);
            }
        }
    }
    assert!(refused >= 5, "{refused} refusals");
}

#[test]
fn a_truncated_last_tensor_is_named_with_the_bytes_missing() {
    let a = analyze(&paddle().join("bad/PD008-truncated4/model.pdmodel"));
    let f = a.findings.iter().find(|f| f.rule.code == "PD008").unwrap();
    assert!(f.message.contains("\"fc_1.w_0\""), "{}", f.message);
    assert!(f.message.contains("4 bytes short"), "{}", f.message);
}

#[test]
fn a_parameter_file_alone_is_a_stream_of_unnamed_records() {
    let a = analyze(&paddle().join("mlp_legacy/model.pdiparams"));
    let names: Vec<_> = a
        .inventory
        .tensors
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["record 0", "record 1", "record 2", "record 3"]);
    assert!(a.inventory.graphs.is_empty());
    assert!(a.findings.is_empty(), "{:?}", a.findings);
}

fn with_data(model: &Path, data: &[PathBuf]) -> Analysis {
    let options = ReadOptions {
        data,
        ..Default::default()
    };
    rtenx::analyze_with(model, &options).unwrap()
}

#[test]
fn data_names_the_parameter_file_and_a_second_one_is_unused() {
    // The legacy and PIR savers wrote byte-identical parameters for the same weights.
    let model = paddle().join("mlp_pir/inference.json");
    let params = paddle().join("mlp_legacy/model.pdiparams");
    let a = with_data(&model, std::slice::from_ref(&params));
    assert!(a.findings.is_empty(), "{:?}", a.findings);
    assert_eq!(a.inventory.files[1].path, params);
    assert_eq!(a.inventory.tensors.len(), 4);
    let a = with_data(
        &model,
        &[params.clone(), paddle().join("lod/model.pdiparams")],
    );
    let codes: Vec<_> = a.findings.iter().map(|f| f.rule.code).collect();
    assert_eq!(codes, ["PD017"]);
}

#[test]
fn a_program_of_2_gib_is_too_large() {
    // A real program followed by a hole up to 2 GiB: a sparse file, no disk cost.
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join("huge.pdmodel");
    std::fs::copy(paddle().join("mlp_legacy/model.pdmodel"), &path).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1 << 31)
        .unwrap();
    let a = analyze(&path);
    let f = a.findings.iter().find(|f| f.rule.code == "PD013").unwrap();
    assert_eq!(f.offset, Some(0));
}

#[test]
fn pdiparams_info_gives_every_parameter_its_structured_name() {
    for program in [
        "mlp_legacy_jit/inference.pdmodel",
        "dtypes_legacy/model.pdmodel",
        "dtypes_legacy_nobf16/model.pdmodel",
    ] {
        let a = analyze(&paddle().join(program));
        let mut keys: Vec<String> = a
            .inventory
            .metadata
            .iter()
            .map(|m| m.key.to_string())
            .collect();
        let mut tensors: Vec<String> = a
            .inventory
            .tensors
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        keys.sort();
        tensors.sort();
        assert_eq!(keys, tensors, "{program}");
    }
    // make_paddle_fixtures.py's MLP names its layers fc1 and fc2.
    let a = analyze(&paddle().join("mlp_legacy_jit/inference.pdmodel"));
    let weight = a
        .inventory
        .metadata
        .iter()
        .find(|m| m.key.as_str() == Some("linear_0.w_0"));
    assert_eq!(weight.unwrap().value.as_str(), Some("fc1.weight"));
}

/// The names of the scopes directly inside `scope`, in order of first mention.
fn scope_names(tree: &rtenx::inventory::ScopeTree, scope: u32) -> Vec<String> {
    let children = tree.children(scope).iter();
    children
        .map(|&c| tree.scopes[c as usize].name.display().into_owned())
        .collect()
}

/// The scope tree of each program of make_paddle_scopes.py: its top level, the operators and
/// tensors in it, and the scopes the program records.
fn scopes_of(dir: &str) -> (Vec<String>, u64, u64, usize, rtenx::inventory::ScopeTree) {
    let a = analyze(&program_in(&paddle().join(dir)));
    assert_eq!(errors(&a), Vec::<String>::new(), "{dir}");
    let tree = rtenx::inventory::ScopeTree::build(&a.inventory);
    let placed = tree.children(0).iter().map(|&c| &tree.scopes[c as usize]);
    let (ops, tensors) = placed.fold((0, 0), |(o, t), s| (o + s.operators, t + s.tensors));
    let recorded = a.inventory.graphs[0].scopes.len();
    (scope_names(&tree, 0), ops, tensors, recorded, tree)
}

/// A PIR `jit.save` records `struct_name` on each op: the class names of the layers it runs
/// in (`/Block_1/LayerNorm/`), with Paddle's counters, which are the scope tree's top level,
/// each holding the parameters (`linear_0.w_0`) its ops read.
#[test]
fn a_pir_program_places_each_op_in_the_layers_its_struct_name_records() {
    let (top, ops, tensors, recorded, tree) = scopes_of("scopes_pir");
    assert_eq!(top, ["Linear", "Block", "Block_1", "Linear_1"]);
    assert_eq!(recorded, 12, "every op but data and fetch");
    assert_eq!((ops, tensors), (12, 12));
    let block = tree.children(0)[1];
    assert_eq!(scope_names(&tree, block), ["LayerNorm", "Linear"]);
}

/// A static program built under `paddle.static.name_scope` records it as `op_namescope`,
/// and the parameters of `static.nn.fc` (`fc_0.w_0`) are in the scope of the ops that read
/// them.
#[test]
fn a_program_desc_places_each_op_in_its_name_scope() {
    let (top, ops, tensors, recorded, tree) = scopes_of("scopes_static");
    assert_eq!(top, ["embed", "layers.0", "layers.1", "head"]);
    assert_eq!(recorded, 12);
    assert_eq!((ops, tensors), (12, 8));
    let layer = tree.children(0)[1];
    assert_eq!(scope_names(&tree, layer), ["ff"]);
}

/// A legacy `jit.save` records no scope (`op_namescope` is `/`, and only feed and fetch carry
/// a call stack, that of the save): the tree comes from the variable names alone, one scope
/// per layer as Paddle numbers them (`linear_0.w_0` is in `linear_0`), in the order the
/// program declares them (by name).
#[test]
fn a_legacy_jit_save_gets_its_scopes_from_the_variable_names() {
    let (top, _, tensors, recorded, _) = scopes_of("scopes_legacy_jit");
    assert_eq!(recorded, 0);
    assert_eq!(tensors, 12);
    assert_eq!(
        top,
        [
            "layer_norm_0",
            "layer_norm_1",
            "linear_0",
            "linear_1",
            "linear_2",
            "linear_3"
        ]
    );
}
