//! Hostile Paddle files, made here by generators, each checked by the real binary in a
//! child process that must stay under 300 MB and 5 s (tests/common/bounded.rs): a PIR
//! program that is mostly one list, a name captured by thousands of blocks, a
//! `.pdiparams.info` memo bomb and one whose variables share a field dict, millions of
//! empty op slots, tens of thousands of per-variable files; PIR nesting as deep as real
//! programs go; and a `.pdiparams.info` swapped for a symlink out of the folder while it is
//! checked.
#![cfg(target_os = "linux")]

mod common;

use common::bounded::{run_in, Run};
use std::path::Path;

/// A PIR program whose top block holds `ops` (JSON op objects, comma-separated).
fn pir(ops: &str) -> String {
    format!(
        r##"{{"base_code":{{"magic":"pir","trainable":true,"version":4}},"program":{{"regions":[{{"#":"region_0","blocks":[{{"#":"block_0","args":[],"ops":[{ops}]}}]}}]}}}}"##
    )
}

/// A `1.data` op named `name` defining value `%id`.
fn data(name: &str, id: i64) -> String {
    format!(
        r##"{{"#":"1.data","A":[{{"AT":{{"#":"0.a_str","D":"{name}"}},"N":"name"}}],"I":[],"O":[{{"%":{id},"TT":{{"#":"0.t_dtensor","D":[{{"#":"0.t_f32"}},[1],"NCHW",[],0]}}}}]}}"##
    )
}

/// A `1.if` op reading `%input` whose one region's block holds `inner`.
fn with_region(input: i64, inner: &str) -> String {
    format!(
        r##"{{"#":"1.if","A":[],"I":[{{"%":{input}}}],"O":[],"regions":[{{"#":"region_0","blocks":[{{"#":"block_0","args":[],"ops":[{inner}]}}]}}]}}"##
    )
}

/// A `1.relu` op reading `%input`.
fn relu(input: i64) -> String {
    format!(r##"{{"#":"1.relu","A":[],"I":[{{"%":{input}}}],"O":[]}}"##)
}

/// Writes `bytes` to `name` in a new temporary folder and checks it there.
fn check(name: &str, bytes: &[u8]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), bytes).unwrap();
    run_in(dir.path(), &["check", name])
}

/// Asserts `run` stayed within the bounds, and says what it took.
fn bounded(run: &Run, what: &str) {
    eprintln!("{what}: {} MB, {:.2} s", run.rss_mb, run.seconds);
    run.assert_bounded(what);
}

fn codes(run: &Run) -> Vec<&str> {
    run.stdout
        .lines()
        .filter_map(|l| l.split_once('[')?.1.split_once(']').map(|(c, _)| c))
        .collect()
}

#[test]
fn a_pir_program_that_is_one_long_list_is_read_in_place() {
    // 16M zeros (32 MB) in one attribute: a JSON tree took 26 times the file; each kept
    // value now pays the budget, so the list stops at RX016.
    let zeros = "0,".repeat(16 << 20);
    let op = format!(
        r##"{{"#":"1.full","A":[{{"AT":{{"#":"0.a_array","D":[{zeros}0]}},"N":"value"}}],"I":[],"O":[]}}"##
    );
    let run = check("zeros.json", pir(&op).as_bytes());
    bounded(&run, "PIR attribute of 16M zeros");
    assert!(codes(&run).contains(&"RX016"), "{}", run.stdout);
    // The same zeros in a key nothing reads cost nothing at all.
    let junk = pir(&data("x", 1)).replacen(
        r#","program""#,
        &format!(r#","junk":[{zeros}0],"program""#),
        1,
    );
    let run = check("junk.json", junk.as_bytes());
    bounded(&run, "PIR program with 16M zeros under an unknown key");
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn a_long_name_captured_by_thousands_of_blocks_is_copied_once() {
    let name = "n".repeat(1 << 20);
    let mut ops = data(&name, 1);
    for _ in 0..3000 {
        ops.push(',');
        ops.push_str(&with_region(1, &relu(1)));
    }
    let run = check("captures.json", pir(&ops).as_bytes());
    bounded(&run, "a 1 MiB name captured by 3,000 blocks");
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

/// PIR nested `depth` regions deep, the innermost reading the program's input.
fn nested(depth: usize) -> String {
    let mut op = relu(1);
    for _ in 0..depth {
        op = with_region(1, &op);
    }
    pir(&format!("{},{op}", data("x", 1)))
}

#[test]
fn pir_nests_as_deep_as_paddle_reads_it() {
    // 25 nested regions went past serde_json's depth of 128; Paddle 3.3.1 loads and runs 300
    // (README, "PaddlePaddle programs and parameters").
    for depth in [25, 300, 1300] {
        let run = check("deep.json", nested(depth).as_bytes());
        bounded(&run, "deeply nested PIR");
        assert_eq!(run.code, Some(0), "{depth} regions: {}", run.stdout);
    }
    let run = check("deeper.json", nested(1400).as_bytes());
    bounded(&run, "PIR nested past the limit");
    assert!(
        run.stdout.contains("nested more than 8192 deep"),
        "{}",
        run.stdout
    );
}

/// A protobuf length-delimited field.
fn field(number: u8, payload: &[u8], out: &mut Vec<u8>) {
    out.push(number << 3 | 2);
    varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A ProgramDesc of one block (idx 0, parent -1) holding `vars` and `ops` (encoded messages).
fn program(vars: &[Vec<u8>], ops: &[Vec<u8>]) -> Vec<u8> {
    let mut block = vec![0x08, 0x00, 0x10];
    varint(u64::MAX, &mut block); // parent_idx -1
    vars.iter().for_each(|v| field(3, v, &mut block));
    ops.iter().for_each(|o| field(4, o, &mut block));
    let mut program = Vec::new();
    field(1, &block, &mut program);
    program
}

#[test]
fn millions_of_empty_op_slots_each_pay() {
    // 12M empty input slots (24 MB) in one op: they were collected unpaid (1 GB at 25M).
    let mut op = Vec::with_capacity(24 << 20);
    field(3, b"relu", &mut op);
    for _ in 0..12_000_000 {
        op.extend_from_slice(&[0x0a, 0x00]);
    }
    let run = check("model.pdmodel", &program(&[], &[op]));
    bounded(&run, "12M empty input slots");
    assert!(codes(&run).contains(&"RX016"), "{}", run.stdout);
}

/// The mlp_legacy_jit fixture copied into a new folder.
fn jit_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixtures().join("paddle/mlp_legacy_jit");
    for name in ["inference.pdmodel", "inference.pdiparams"] {
        std::fs::copy(src.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

#[test]
fn a_pdiparams_info_memo_bomb_shares_one_copy() {
    // One 1 MiB string, memoised 3,000 times: each memo entry copied it (2.2 GB at 2,000).
    let mut info = vec![0x80, 0x02, b'X'];
    info.extend_from_slice(&(1u32 << 20).to_le_bytes());
    info.extend(std::iter::repeat_n(b's', 1 << 20));
    info.extend(std::iter::repeat_n(0x94, 3000)); // MEMOIZE
    info.extend(std::iter::repeat_n([b'h', 0], 3000).flatten()); // BINGET 0
    info.push(b'.');
    let dir = jit_folder();
    std::fs::write(dir.path().join("inference.pdiparams.info"), &info).unwrap();
    let run = run_in(dir.path(), &["check", "inference.pdmodel"]);
    bounded(&run, "a .pdiparams.info memo bomb");
    // Not a dict (PD019), and the memo's expansion named (PK008).
    assert_eq!(codes(&run), ["PD019", "PK008"], "{}", run.stdout);
}

/// A pickle `BINUNICODE` string.
fn pickled_str(text: &str, out: &mut Vec<u8>) {
    out.push(b'X');
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(text.as_bytes());
}

#[test]
fn a_field_dict_shared_by_every_variable_is_searched_once() {
    // 40,000 variables whose field dicts are one dict of 40,000 fields, memoised, with
    // `structured_name` last (1 MB): it was searched again for each variable (1.6e9 key
    // comparisons, 6 s in a release build).
    let mut info = b"\x80\x02}(".to_vec();
    pickled_str("v", &mut info);
    info.push(b'}');
    pickled_str("structured_name", &mut info);
    pickled_str("s", &mut info);
    info.push(b's');
    pickled_str("v0", &mut info);
    info.extend(b"}q\x01(");
    for i in 0..40_000 {
        pickled_str(&format!("k{i}"), &mut info);
        info.push(0x88); // NEWTRUE
    }
    pickled_str("structured_name", &mut info);
    pickled_str("s", &mut info);
    info.push(b'u');
    for i in 1..40_000 {
        pickled_str(&format!("v{i}"), &mut info);
        info.extend(b"h\x01"); // BINGET 1
    }
    info.extend(b"u.");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("inference.pdiparams.info"), &info).unwrap();
    let run = run_in(dir.path(), &["inspect", "inference.pdiparams.info"]);
    bounded(&run, "a field dict shared by 40,000 variables");
    assert!(run.stdout.contains("Metadata (40001)"), "{}", run.stdout);
}

#[test]
fn tens_of_thousands_of_per_variable_files_are_read_in_one_pass_each() {
    // A 1.x program of 30,000 parameters, each in its own file: dropping each file's
    // whole-file section scanned every section (quadratic).
    let count = 30_000;
    let dir = tempfile::tempdir().unwrap();
    let mut record = vec![0; 16];
    record.extend([4, 0, 0, 0, 0x08, 0x05, 0x10, 0x01, 0, 0, 0, 0]);
    let mut tensor = vec![0x08, 0x05, 0x10, 0x01]; // FP32 [1]
    let mut dense = Vec::new();
    field(1, &tensor, &mut dense);
    tensor.clear();
    field(3, &dense, &mut tensor);
    let mut var_type = vec![0x08, 0x07]; // DENSE_TENSOR
    var_type.extend_from_slice(&tensor);
    let vars: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let name = format!("v{i:05}");
            std::fs::write(dir.path().join(&name), &record).unwrap();
            let mut var = Vec::new();
            field(1, name.as_bytes(), &mut var);
            field(2, &var_type, &mut var);
            var.extend_from_slice(&[0x18, 0x01]); // persistable
            var
        })
        .collect();
    std::fs::write(dir.path().join("__model__"), program(&vars, &[])).unwrap();
    let run = run_in(dir.path(), &["check", "__model__"]);
    bounded(&run, "30,000 per-variable files");
    // No op reads the parameters (RX012, RX014), but every file is found and read.
    let read = codes(&run).iter().all(|c| c.starts_with("RX"));
    assert!(read, "{}", run.stdout);
}

#[test]
fn a_pdiparams_info_checked_alone_is_paddles_parameter_names() {
    let info = common::fixtures().join("paddle/mlp_legacy_jit/inference.pdiparams.info");
    let run = common::bounded::run(&["inspect", info.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("parameter names (.pdiparams.info)"));
    assert!(run.stdout.contains("fc1.weight"), "{}", run.stdout);
    let run = common::bounded::run(&["check", info.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn a_stream_whose_first_record_is_damaged_is_still_paddles() {
    for (case, code, at) in [
        ("PD001-first-record", "PD001", "@ 0 "),
        ("PD004-desc-past-end", "PD004", "@ 16 "),
    ] {
        let params = common::fixtures().join(format!("paddle/bad/{case}/model.pdiparams"));
        let run = common::bounded::run(&["check", params.to_str().unwrap()]);
        assert_eq!(run.code, Some(1), "{case}");
        assert!(codes(&run).contains(&code), "{case}: {}", run.stdout);
        assert!(run.stdout.contains(at), "{case}: {}", run.stdout);
        assert!(!run.stdout.contains("RX001"), "{case}: {}", run.stdout);
    }
}

#[test]
fn a_pdiparams_info_swapped_for_a_symlink_is_never_followed() {
    // Outside the model's folder: an info that would name linear_0.w_0 "OUTSIDE-SECRET".
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.info");
    let mut pickle = b"\x80\x02}(X\x0c\x00\x00\x00linear_0.w_0}(X\x0f\x00\x00\x00".to_vec();
    pickle.extend_from_slice(b"structured_nameX\x0e\x00\x00\x00OUTSIDE-SECRETus.");
    std::fs::write(&secret, &pickle).unwrap();
    let dir = jit_folder();
    let real = common::fixtures().join("paddle/mlp_legacy_jit/inference.pdiparams.info");
    let info = dir.path().join("inference.pdiparams.info");
    std::fs::copy(&real, &info).unwrap();
    let swapped = dir.path().join("swap.tmp");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, info, real, secret, swapped) =
            (stop.clone(), info.clone(), real, secret, swapped);
        std::thread::spawn(move || {
            let mut link = false;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_file(&swapped);
                if link {
                    std::fs::copy(&real, &swapped).unwrap();
                } else {
                    std::os::unix::fs::symlink(&secret, &swapped).unwrap();
                }
                std::fs::rename(&swapped, &info).unwrap();
                link = !link;
            }
        })
    };
    let mut refused = 0;
    for i in 0..300 {
        let run = run_in(dir.path(), &["dump", "--json", "inference.pdmodel"]);
        assert!(
            !run.stdout.contains("OUTSIDE-SECRET") && !run.stderr.contains("OUTSIDE-SECRET"),
            "run {i} read the file outside the folder"
        );
        let dump: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let files = dump["files"].as_array().unwrap();
        let read_outside = files.iter().any(|f| {
            f["path"]
                .as_str()
                .is_some_and(|p| Path::new(p).starts_with(outside.path()))
        });
        assert!(
            !read_outside,
            "run {i} lists the file outside the folder as read"
        );
        let findings = dump["findings"].as_array().unwrap();
        if findings
            .iter()
            .any(|f| f["code"].as_str().is_some_and(|c| c.starts_with("DX")))
        {
            refused += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(
        refused > 0,
        "the symlink was never seen, so the race was not run"
    );
}
