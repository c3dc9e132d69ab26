//! Pickle-based files (tests/fixtures/pickle, made by tests/fixtures/gen/make_pickle_fixtures.py
//! with torch, numpy, paddle and joblib): rtenx lists exactly the tensors the real loaders
//! return, with their byte ranges (`tensors.tsv`), and agrees with
//! `torch.load(weights_only=True)` (`verdicts.tsv`): no error where it loads a file, an error
//! where it refuses an import outside the safe set. Hostile inputs too large to commit are
//! generated here and held to the memory and time bounds. What only torch writes (its zip's
//! records, tensor forms, refused sizes) is tests/readers/pytorch.rs's; the `.npy` format itself
//! tests/readers/numpy.rs's.

use crate::common;

use rtenx::check::Severity;
use rtenx::formats::shared::pickle::{classify, resolve};
use rtenx::inventory::{DType, Inventory, Tensor, Trust};
use std::collections::BTreeMap;
use std::path::Path;

fn dir() -> std::path::PathBuf {
    common::fixtures().join("pickle")
}

/// The rows of a fixture TSV: header names to values, comments skipped.
fn rows(name: &str) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|l| {
            let cells = l.split('\t').map(str::to_owned);
            header.iter().map(|h| h.to_string()).zip(cells).collect()
        })
        .collect()
}

/// rtenx's name for a torch dtype or a NumPy dtype string; `None` for types it has no
/// element type for (strings, structured). torch's types without an element type of rtenx's
/// are held to one of the same size: the opaque `bits*` to unsigned ints, the quantized ones
/// to their integer representation (`quint4x2` and `quint2x4`, packed, to `U4` and `U2`).
fn dtype(name: &str) -> Option<DType> {
    Some(match name.trim_matches('\'') {
        "float32" | "<f4" => DType::F32,
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        "float64" | "<f8" | ">f8" => DType::F64,
        "float8_e4m3fn" => DType::F8E4M3FN,
        "float8_e4m3fnuz" => DType::F8E4M3FNUZ,
        "float8_e5m2" => DType::F8E5M2,
        "float8_e5m2fnuz" => DType::F8E5M2FNUZ,
        "float8_e8m0fnu" => DType::F8E8M0,
        "float4_e2m1fn_x2" => DType::F4E2M1X2,
        "int64" | "<i8" => DType::I64,
        "int32" | "qint32" => DType::I32,
        "int16" | "<i2" => DType::I16,
        "int8" | "qint8" => DType::I8,
        "uint64" => DType::U64,
        "uint32" => DType::U32,
        "uint16" | "bits16" => DType::U16,
        "uint8" | "quint8" | "bits8" | "bits1x8" | "bits2x4" | "bits4x2" => DType::U8,
        "quint4x2" => DType::U4,
        "quint2x4" => DType::U2,
        "bool" | "|b1" => DType::Bool,
        "complex32" => DType::Complex32,
        "bcomplex32" => DType::BComplex32,
        "complex64" | "<c8" => DType::Complex64,
        "complex128" => DType::Complex128,
        _ => return None,
    })
}

fn shape(text: &str) -> Vec<u64> {
    let inner = text.trim_matches(['[', ']']);
    inner
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect()
}

/// The tensor of `inv` a row names: by key, or the only one for `-`.
fn find<'a>(inv: &'a Inventory, key: &str) -> Option<(usize, &'a Tensor)> {
    if key == "-" {
        return (inv.tensors.len() == 1).then(|| (0, &inv.tensors[0]));
    }
    inv.tensors
        .iter()
        .enumerate()
        .find(|(_, t)| t.name.as_str() == Some(key))
}

#[test]
fn tensors_are_those_the_loaders_return_with_their_byte_ranges() {
    let mut by_file: BTreeMap<String, Vec<BTreeMap<String, String>>> = BTreeMap::new();
    for row in rows("tensors.tsv") {
        by_file.entry(row["file"].clone()).or_default().push(row);
    }
    assert!(by_file.len() >= 20, "{} files", by_file.len());
    let mut failures = Vec::new();
    for (file, expected) in &by_file {
        let analysis = rtenx::analyze(&dir().join(file)).unwrap();
        let inv = &analysis.inventory;
        if inv.tensors.len() != expected.len() {
            let names: Vec<String> = inv.tensors.iter().map(|t| t.name.to_string()).collect();
            failures.push(format!(
                "{file}: {} tensors, expected {}: {names:?}",
                names.len(),
                expected.len()
            ));
            continue;
        }
        for row in expected {
            let key = &row["key"];
            let Some((id, t)) = find(inv, key) else {
                failures.push(format!("{file}: no tensor {key}"));
                continue;
            };
            let mut problems = Vec::new();
            if t.dtype != dtype(&row["dtype"]) {
                problems.push(format!("dtype {:?}, expected {}", t.dtype, row["dtype"]));
            }
            if t.shape != shape(&row["shape"]) {
                problems.push(format!("shape {:?}, expected {}", t.shape, row["shape"]));
            }
            let in_place = row["data_end"] != "-" && !row["notes"].contains("deflated");
            match (t.data, in_place) {
                (Some(d), true) => {
                    let range = (d.offset.to_string(), d.end().unwrap().to_string());
                    if range != (row["data_start"].clone(), row["data_end"].clone()) {
                        problems.push(format!(
                            "data {range:?}, expected {}..{}",
                            row["data_start"], row["data_end"]
                        ));
                    }
                }
                (None, false) => {}
                (data, _) => problems.push(format!(
                    "data {data:?}, expected {}..{}",
                    row["data_start"], row["data_end"]
                )),
            }
            let view = inv.views.iter().find(|v| v.tensor == id);
            if row["storage"] == "-" && view.is_some() {
                problems.push(format!("view {view:?}, expected none"));
            }
            if row["storage"] != "-" {
                let found = view.map(|v| {
                    let element = t.dtype.and_then(|d| d.byte_size(1)).unwrap();
                    let first = t.data.unwrap().offset + v.storage_offset * element;
                    (
                        v.strides.clone(),
                        v.storage_offset.to_string(),
                        v.storage.to_string(),
                        first.to_string(),
                    )
                });
                let wanted = (
                    shape(&row["stride"]),
                    row["storage_offset"].clone(),
                    row["storage"].clone(),
                    row["elem_start"].clone(),
                );
                if found.as_ref() != Some(&wanted) {
                    problems.push(format!("view {found:?}, expected {wanted:?}"));
                }
            }
            if !problems.is_empty() {
                failures.push(format!("{file} {key}: {}", problems.join("; ")));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The global a `torch.load(weights_only=True)` refusal names, if it refused an import.
fn refused_global(verdict: &str) -> Option<&str> {
    let rest = verdict.split("GLOBAL ").nth(1)?;
    let global = rest.split(' ').next()?;
    (verdict.contains("not an allowed global") || verdict.contains("is blocked")).then_some(global)
}

/// Files torch loads on which rtenx reports an error, and why rtenx is right.
const LOADS_BUT_HOSTILE: &[(&str, &str)] = &[(
    "bad/ZP003-zip-duplicate-datapkl-first.pt",
    "two archive/data.pkl members: torch reads the benign last one, but the first calls \
     os.system for any reader that takes the first (ZP003, PK001)",
)];

#[test]
fn rtenx_agrees_with_torch_weights_only_on_every_file() {
    let mut failures = Vec::new();
    let verdicts = rows("verdicts.tsv");
    assert!(verdicts.len() >= 85, "{} verdicts", verdicts.len());
    for row in verdicts {
        let file = &row["file"];
        let analysis = rtenx::analyze(&dir().join(file)).unwrap();
        let errors: Vec<&str> = (analysis.findings.iter())
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.rule.code)
            .collect();
        let torch = &row["torch_weights_only"];
        let excepted = LOADS_BUT_HOSTILE.iter().any(|(f, _)| f == file);
        if torch.starts_with("loads") && !errors.is_empty() && !excepted {
            failures.push(format!("{file}: torch loads it, rtenx reports {errors:?}"));
        }
        let Some(global) = refused_global(torch) else {
            continue;
        };
        // torch names builtins without their module, and Python 2 names as mapped.
        let global = if global.contains('.') {
            global.to_owned()
        } else {
            format!("builtins.{global}")
        };
        let (module, name) = global.rsplit_once('.').unwrap();
        let wanted = match classify(&resolve(module, name, 2)) {
            Trust::Unsafe => "PK001",
            Trust::Module => "PK002",
            Trust::Inert => "PK011",
            _ => continue,
        };
        if !analysis.findings.iter().any(|f| f.rule.code == wanted) {
            failures.push(format!(
                "{file}: torch refuses {global}, rtenx does not report {wanted}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What loading a file would import is in the inventory, each import judged; the files torch
/// loads import nothing unsafe.
#[test]
fn the_inventory_lists_what_loading_imports() {
    let analysis = rtenx::analyze(&dir().join("state_dict.pt")).unwrap();
    let imports = &analysis.inventory.imports;
    let names: Vec<&str> = imports.iter().filter_map(|i| i.name.as_str()).collect();
    assert!(
        names.contains(&"torch._utils._rebuild_tensor_v2"),
        "{names:?}"
    );
    assert!(
        imports.iter().all(|i| i.trust == Trust::Safe),
        "{imports:?}"
    );
    let analysis = rtenx::analyze(&dir().join("bad/PK001-global-os-system.pkl")).unwrap();
    let import = &analysis.inventory.imports[0];
    assert_eq!(
        (
            import.name.as_str(),
            import.kind,
            import.offset,
            import.trust
        ),
        (Some("os.system"), "GLOBAL", 2, Trust::Unsafe)
    );
    assert_eq!(
        import.call.map(|c| (c.kind, c.offset, c.count)),
        Some(("REDUCE", 23, 1))
    );
    let analysis = rtenx::analyze(&dir().join("scripted.pt")).unwrap();
    let code = analysis
        .inventory
        .imports
        .iter()
        .filter(|i| i.trust == Trust::Code)
        .count();
    assert_eq!(code, 4);
}

#[cfg(target_os = "linux")]
mod bounded {
    use super::common::bounded;
    use std::path::Path;

    fn check(dir: &Path, name: &str, bytes: &[u8], code: &str) {
        std::fs::write(dir.join(name), bytes).unwrap();
        let run = bounded::run_in(dir, &["check", name]);
        run.assert_bounded(name);
        assert!(run.stdout.contains(code), "{name}: {}", run.stdout);
    }

    /// A million lists nested in each other (2 MB): built without recursion, walked no
    /// deeper than the limit, reported once.
    #[test]
    fn a_million_deep_nesting_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let n = 1_000_000;
        let mut p = vec![0x80, 2];
        p.extend(std::iter::repeat_n(b']', n));
        p.extend(std::iter::repeat_n(b'a', n - 1));
        p.push(b'.');
        check(dir.path(), "deep.pkl", &p, "PK007");
    }

    /// A LONG4 that declares 2 GiB in a tiny file, and a real one of 64 MiB: neither is
    /// allocated or converted.
    #[test]
    fn huge_long4_integers_stay_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = vec![0x80, 2, 0x8b];
        p.extend(0x7fff_ffffu32.to_le_bytes());
        p.extend([1; 16]);
        check(dir.path(), "declared.pkl", &p, "PK004");
        let len = 64 << 20;
        let mut p = vec![0x80, 2, 0x8b];
        p.extend((len as u32).to_le_bytes());
        p.resize(p.len() + len, 0x55);
        p.push(b'.');
        check(dir.path(), "real.pkl", &p, "PK009");
    }

    /// A size tuple of 200,000 dimensions memoised once and given, with its stride, to
    /// 200,000 tensors of a legacy checkpoint (5 MB): 640 GB of shapes for a reader that keeps
    /// each; rtenx pays each tensor's dimensions from the budget and stops when it runs out.
    #[test]
    fn a_shape_shared_by_many_tensors_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let (tensors, dims) = (200_000, 200_000);
        let mut p = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.".to_vec();
        p.extend(b"\x80\x02M\xe9\x03.\x80\x02}.");
        // The object: {'0': _rebuild_tensor_v2(pid, 0, size, size, False, {}), '1': ...}.
        p.extend(b"\x80\x02}q\x00((");
        p.extend(b"K\x01".repeat(dims));
        p.extend(b"tq\x010(X\x07\x00\x00\x00storagectorch\nFloatStorage\n");
        p.extend(b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x01tq\x020");
        p.extend(b"ctorch._utils\n_rebuild_tensor_v2\nq\x030");
        for i in 0..tensors {
            let key = i.to_string();
            p.push(b'X');
            p.extend((key.len() as u32).to_le_bytes());
            p.extend(key.as_bytes());
            p.extend(b"h\x03(h\x02QK\x00h\x01h\x01\x89}tR");
        }
        p.extend(b"u.\x80\x02].");
        check(dir.path(), "shared-shape.pt", &p, "RX016");
    }

    /// A 1 MiB string memoised and fetched a million times (2 MB): a terabyte for a reader
    /// that copies each reference, one string for rtenx.
    #[test]
    fn a_memo_bomb_copies_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = vec![0x80, 4, b'X'];
        p.extend((1u32 << 20).to_le_bytes());
        p.resize(p.len() + (1 << 20), b'A');
        p.extend([b'q', 0, b']', b'(']);
        for _ in 0..1_000_000 {
            p.extend([b'h', 0]);
        }
        p.extend([b'e', b'.']);
        check(dir.path(), "bomb.pkl", &p, "PK008");
    }
}

/// Every prefix of a fixture, read by each pickle-based reader directly (as a fuzzer found
/// the empty file reported past its end): findings point inside the file and name items
/// that exist, and sections are sorted.
#[test]
fn every_prefix_read_by_every_reader_stays_inside_the_file() {
    use rtenx::check::{generic, Findings, Item};
    use rtenx::formats::{numpy::NumPy, pickle::Pickles, pytorch::PyTorch, Format, ReadOptions};
    use rtenx::source::ModelFile;
    let readers: [&dyn Format; 3] = [&PyTorch, &NumPy, &Pickles];
    for name in [
        "state_dict_legacy.pt",
        "arrays.npz",
        "model.pdparams",
        "bad/ZP002-zip-name-mismatch.pt",
        "object.npy",
        "sparse.pt",
        "quantized.pt",
    ] {
        let bytes = std::fs::read(dir().join(name)).unwrap();
        for len in (0..=bytes.len()).step_by(7) {
            let file = ModelFile::in_memory(name, bytes[..len].to_vec());
            for reader in readers {
                let mut out = Findings::default();
                let inv = reader.read(&file, &ReadOptions::default(), &mut out);
                generic::run(&inv, file.bytes(), &mut out);
                for f in out.iter() {
                    assert!(
                        f.offset.is_none_or(|o| o <= len as u64),
                        "{name}[..{len}] as {}: {f:?}",
                        reader.about().name
                    );
                    if let Some(Item::Tensor { tensor }) = f.item {
                        assert!(tensor < inv.tensors.len(), "{name}[..{len}]: {f:?}");
                    }
                }
                assert!(
                    inv.sections.is_sorted_by_key(|s| (s.file, s.range.start)),
                    "{name}[..{len}]"
                );
            }
        }
    }
}

/// A string that spells a global, and tensor bytes that are a pickle, are data.
#[test]
fn strings_and_tensor_bytes_are_never_imports() {
    for file in [
        "bad/ok-string-os-system.pkl",
        "bad/ok-tensor-bytes-cos-system.pt",
    ] {
        let analysis = rtenx::analyze(&dir().join(file)).unwrap();
        assert!(
            analysis.findings.is_empty(),
            "{file}: {:?}",
            analysis.findings
        );
        let unsafe_imports = analysis
            .inventory
            .imports
            .iter()
            .filter(|i| !i.trust.is_safe())
            .count();
        assert_eq!(unsafe_imports, 0, "{file}");
    }
    assert!(Path::new(&dir()).join("bad/manifest.tsv").is_file());
}

/// The message of the first finding of `code` at byte `offset` of fixture `file`.
fn message(file: &str, code: &str, offset: u64) -> String {
    let analysis = rtenx::analyze(&dir().join(file)).unwrap();
    let found = analysis
        .findings
        .iter()
        .find(|f| f.rule.code == code && f.offset == Some(offset));
    match found {
        Some(f) => f.message.clone(),
        None => panic!("{file}: no {code} at {offset}: {:?}", analysis.findings),
    }
}

/// An unsafe import's message says first what loading does (runs a shell command, starts a
/// process, runs Python code, opens a URL, imports a module, gets an attribute, or calls
/// it), with the call as Python writes it and the arguments the pickle passes, then where
/// the import and the call are.
#[test]
fn an_unsafe_call_says_what_loading_does_and_shows_its_arguments() {
    for (file, offset, wanted) in [
        (
            "bad/PK001-global-os-system.pkl",
            2,
            "loading runs a shell command: os.system('true') — os.system imported by GLOBAL at byte 2, called by REDUCE at byte 23; ",
        ),
        (
            "bad/PK001-os-system-command.pkl",
            2,
            "loading runs a shell command: os.system('echo rtenx-fixture | cat') — ",
        ),
        (
            "bad/PK001-posix-system.pkl",
            17,
            "loading runs a shell command: posix.system('true') — ",
        ),
        (
            "bad/PK001-subprocess-popen-args.pkl",
            2,
            "loading starts a process: subprocess.Popen(['sh', '-c', 'echo rtenx-fixture']) — ",
        ),
        (
            "bad/PK001-newobj-popen.pkl",
            2,
            "loading makes an object of a class that starts a process when called, with __new__ alone: subprocess.Popen.__new__(subprocess.Popen, ['true']) — ",
        ),
        (
            "bad/PK001-builtin-eval.pkl",
            2,
            "loading runs Python code: __builtin__.eval(\"print('rtenx-fixture')\") — __builtin__.eval (builtins.eval in Python 3) imported by GLOBAL",
        ),
        (
            "bad/PK001-urllib-urlopen.pkl",
            2,
            "loading opens a URL or a network connection: urllib.request.urlopen('http://example.invalid/rtenx-fixture') — ",
        ),
        (
            "bad/PK001-webbrowser-open.pkl",
            2,
            "loading opens a URL or a network connection: webbrowser.open('http://example.invalid/rtenx-fixture') — ",
        ),
        (
            "bad/PK001-getattr-chain.pkl",
            20,
            "loading imports a module: builtins.__import__('os') — ",
        ),
        (
            "bad/PK001-getattr-chain.pkl",
            2,
            "loading gets an attribute by name (a way to reach any function): builtins.getattr(builtins.__import__('os'), 'system') (arguments built at run time) — ",
        ),
        (
            "bad/PK001-runtime-argument.pkl",
            2,
            "loading runs a shell command: os.system(codecs.decode('rpub egrax-svkgher', 'rot13')) (arguments built at run time) — ",
        ),
        (
            "bad/PK001-runtime-argument.pkl",
            13,
            "loading calls codecs.decode('rpub egrax-svkgher', 'rot13') — ",
        ),
        (
            "bad/PK001-build-setstate.pkl",
            42,
            "loading runs a shell command: os.system('true') — os.system imported by GLOBAL at byte 42, called by BUILD at byte 64; ",
        ),
        (
            "bad/PK001-ext1.pkl",
            2,
            "loading calls <extension code 1>('true') — ",
        ),
        (
            "bad/PK001-replaced-rebuild-function.pkl",
            40,
            "loading imports os.system, which runs a shell command when called, without calling it — ",
        ),
        (
            "bad/PK001-replaced-rebuild-function.pkl",
            54,
            "loading calls an object reached through torch._utils, which the pickle changed: torch._utils._rebuild_tensor_v2('echo rtenx-fixture') — ",
        ),
    ] {
        let message = message(file, "PK001", offset);
        assert!(message.starts_with(wanted), "{file}:\n{message}\n{wanted}");
    }
    let paddle = message("bad/PY001-paddle-eval-other.pdparams", "PY001", 77);
    assert!(
        paddle.starts_with(
            "loading runs Python code: builtins.eval(\"__import__('os').system('true')\", {}) — "
        ),
        "{paddle}"
    );
}

/// A command with terminal escapes, a bidi override and 10 KiB of text is shown cut to a few
/// hundred characters, every control character escaped, in the finding and in the report.
#[test]
fn a_hostile_argument_is_shown_short_and_escaped() {
    let file = "bad/PK001-hostile-argument.pkl";
    let message = message(file, "PK001", 2);
    let call = message.split(" — ").next().unwrap();
    assert!(
        call.starts_with(r"loading runs a shell command: os.system('echo rtenx-fixture #\u{1b}[2J\u{1b}]0;rtenx\u{7}\u{1b}[31m\u{202e}AAAA"),
        "{call}"
    );
    assert!(call.ends_with("AAA…"), "{call}");
    assert!(call.chars().count() < 260, "{} characters", call.len());
    assert!(message.len() < 600, "{} bytes", message.len());
    assert!(
        !message.chars().any(rtenx::escape::needs_escape),
        "{message:?}"
    );
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_rtenx"))
        .arg("check")
        .arg(dir().join(file))
        .output()
        .unwrap();
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(stdout.contains(call), "{stdout}");
    let escaped = |c: char| c == '\n' || !rtenx::escape::needs_escape(c);
    assert!(stdout.chars().all(escaped), "{stdout:?}");
}

/// Every finding of the pickle, PyTorch, NumPy and Paddle-pickle rules on every pickle fixture
/// opens with what loading (or a loader, or a tool reading the file) does, before the detail.
#[test]
fn every_pickle_finding_opens_with_what_loading_does() {
    const OPENINGS: &[&str] = &[
        "loading ",
        "pickle.load ",
        "a second pickle.load ",
        "joblib.load ",
        "torch.load ",
        "torch.load(weights_only=True) ",
        "torch.load(weights_only=True), ",
        "torch.jit.load ",
        "torch.export.load ",
        "numpy.load ",
        "CPython's C unpickler ",
        "repr, copy and state-dict walks ",
        "a reader that copies ",
        "a scanner that ",
        "a tool that ",
    ];
    let mut files = Vec::new();
    for sub in ["", "bad", "handmade"] {
        for entry in std::fs::read_dir(dir().join(sub)).unwrap() {
            let path = entry.unwrap().path();
            let data = !path.extension().is_some_and(|e| e == "tsv" || e == "txt");
            if path.is_file() && data {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 150, "{} files", files.len());
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in files {
        let Ok(analysis) = rtenx::analyze(&path) else {
            continue;
        };
        for f in &analysis.findings {
            if !["PK", "PT", "NP", "PY"].contains(&&f.rule.code[..2]) {
                continue;
            }
            checked += 1;
            if !OPENINGS.iter().any(|o| f.message.starts_with(o)) {
                failures.push(format!("{}: {} {}", path.display(), f.rule.code, f.message));
            }
        }
    }
    assert!(checked > 140, "{checked} findings");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
