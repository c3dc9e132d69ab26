//! Remote files, read by byte ranges from a server on the loopback interface that plays the
//! Hub (`common/hub.rs`): every fixture reads the same remote as a local copy of it, for the
//! bytes the tests count; a server that misbehaves is an error that says so, never a download
//! of the whole file or a hang; the token goes to the Hub alone.
#![cfg(all(unix, feature = "remote"))]

mod common;

use common::hub::{Content, Hub, Misbehaviour, COMMIT};
use rtenx::remote::{Budgets, Session};
use rtenx::source::ModelFile;
use rtenx::{analyze_opened, Analysis, ReadOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a check reports, without the file's name: each finding's rule, severity, place and
/// message, and the inventory's format and tensor count.
fn verdict(a: &Analysis) -> Vec<String> {
    let mut lines = vec![format!(
        "{} {} tensors={}",
        a.inventory.format.name(),
        a.inventory.format_version,
        a.inventory.tensors.len()
    )];
    lines.extend(a.findings.iter().map(|f| {
        format!(
            "{} {:?} {:?} {:?} {}",
            f.rule.code, f.severity, f.offset, f.item, f.message
        )
    }));
    lines
}

fn session(hub: &Hub) -> Session {
    Session::new(&hub.endpoint, None, Budgets::DEFAULT)
}

/// Checks the file at `local`, alone in its folder, and served as `path` by `hub`: the two
/// analyses and the bytes fetched.
fn both(hub: &Hub, session: &Session, local: &Path, path: &str) -> (Analysis, Analysis, u64) {
    let options = ReadOptions::default();
    let here = analyze_opened(&ModelFile::open(local).unwrap(), &options).unwrap();
    hub.add(path, Content::File(local.to_owned()));
    let file = session.open(&Hub::hf(path)).unwrap();
    let there = analyze_opened(&file, &options).unwrap();
    let fetched = file.provenance().unwrap().fetched;
    assert_eq!(hub.served(path), fetched, "{path}: served and fetched");
    (here, there, fetched)
}

/// Every file below `dir` whose name ends with one of `extensions`.
fn files(dir: &str, extensions: &[&str]) -> Vec<PathBuf> {
    let root = common::fixtures().join(dir);
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            extensions.iter().any(|ext| name.ends_with(ext))
        })
        .collect();
    found.sort();
    found
}

/// Serves each of `fixtures` and asserts that its remote check equals the local one, fetching
/// at most the file; returns (files, bytes in them, bytes fetched).
fn same_remote_as_local(fixtures: &[PathBuf]) -> (usize, u64, u64) {
    let hub = Hub::start();
    let session = session(&hub);
    let (mut size, mut fetched) = (0, 0);
    for (i, local) in fixtures.iter().enumerate() {
        let name = local.file_name().unwrap().to_string_lossy();
        let path = format!("f{i}/{name}");
        let alone = tempfile::tempdir().unwrap();
        let copy = alone.path().join(&*name);
        std::fs::copy(local, &copy).unwrap();
        let (here, there, got) = both(&hub, &session, &copy, &path);
        // Paths beside the model are shown in its folder there, and in the copy's here.
        let here: Vec<String> = (verdict(&here).into_iter())
            .map(|line| {
                line.replace(
                    &format!("{}/", alone.path().display()),
                    &format!("hf://org/repo/f{i}/"),
                )
            })
            .collect();
        assert_eq!(here, verdict(&there), "{}", local.display());
        let len = std::fs::metadata(local).unwrap().len();
        assert!(got <= len, "{}: fetched {got} of {len}", local.display());
        size += len;
        fetched += got;
    }
    (fixtures.len(), size, fetched)
}

#[test]
fn every_safetensors_fixture_reads_the_same_remote_as_local() {
    let (n, size, fetched) = same_remote_as_local(&files("safetensors", &[".safetensors"]));
    assert!(
        n > 50 && fetched <= size,
        "{n} files, {fetched} of {size} bytes"
    );
}

#[test]
fn every_gguf_fixture_reads_the_same_remote_as_local() {
    let (n, size, fetched) = same_remote_as_local(&files("gguf", &[".gguf"]));
    assert!(
        n > 50 && fetched <= size,
        "{n} files, {fetched} of {size} bytes"
    );
}

#[test]
fn every_pytorch_zip_fixture_reads_the_same_remote_as_local() {
    let zips: Vec<PathBuf> = [".pt", ".pth", ".bin", ".pt2", ".ckpt", ".npz"]
        .iter()
        .flat_map(|ext| {
            let mut all = files("pickle", &[ext]);
            all.extend(files("hf", &[ext]));
            all.extend(files("fuzz/pytorch", &[ext]));
            all
        })
        .filter(|p| std::fs::read(p).unwrap().starts_with(b"PK\x03\x04"))
        .collect();
    let (n, size, fetched) = same_remote_as_local(&zips);
    assert!(
        n > 20 && fetched <= size,
        "{n} files, {fetched} of {size} bytes"
    );
}

#[test]
fn every_fixture_of_the_other_formats_reads_the_same_remote_as_local() {
    for (dir, extensions) in [
        ("rten", &[".rten"][..]),
        ("onnx", &[".onnx"]),
        ("executorch", &[".pte"]),
        ("paddle", &[".pdmodel", ".pdparams"]),
        ("tflite", &[".tflite"]),
        ("keras", &[".keras"]),
        ("pickle", &[".pkl", ".npy", ".joblib"]),
    ] {
        let fixtures = files(dir, extensions);
        let (n, size, fetched) = same_remote_as_local(&fixtures);
        assert!(
            n >= 5 && fetched <= size,
            "{dir}: {n} files, {fetched} of {size} bytes"
        );
    }
}

/// A safetensors file of `tensors` tensors of 16 KiB each: a header of about 60 bytes a tensor.
fn safetensors(tensors: usize) -> Vec<u8> {
    let entries: Vec<String> = (0..tensors)
        .map(|i| {
            let (a, b) = (i * 16384, (i + 1) * 16384);
            format!(
                r#""layer.{i}.weight":{{"dtype":"F32","shape":[4096],"data_offsets":[{a},{b}]}}"#
            )
        })
        .collect();
    let header = format!("{{{}}}", entries.join(","));
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend(header.as_bytes());
    file.resize(file.len() + tensors * 16384, 0);
    file
}

#[test]
fn a_header_past_the_first_read_takes_one_more_and_no_tensor_bytes() {
    let hub = Hub::start();
    let bytes = safetensors(4000);
    let header = 8 + u64::from_le_bytes(bytes[..8].try_into().unwrap());
    assert!(header > 200_000);
    hub.add_bytes("big.safetensors", bytes.clone());
    let file = session(&hub).open(&Hub::hf("big.safetensors")).unwrap();
    let analysis = analyze_opened(&file, &ReadOptions::default()).unwrap();
    assert_eq!(analysis.inventory.tensors.len(), 4000);
    assert!(!analysis.has_errors());
    let provenance = file.provenance().unwrap();
    // The header, rounded up to a page, in two requests, and no tensor byte.
    assert_eq!(provenance.fetched, header.next_multiple_of(4096));
    assert_eq!(provenance.requests, 2);
    assert_eq!(provenance.commit.as_deref(), Some(COMMIT));
    assert_eq!(provenance.size, bytes.len() as u64);
    assert_eq!(provenance.sha256, Some(format!("{:064x}", bytes.len())));
    assert_eq!(hub.served("big.safetensors"), provenance.fetched);
    // Only the first request went through the Hub: the others went where it redirected.
    let to_hub = hub.seen().iter().filter(|s| s.host == "hub").count();
    assert_eq!(to_hub, 1);
}

/// The remote error of opening and checking `hf://org/repo/PATH` with `session`.
fn error(session: &Session, path: &str) -> String {
    let checked = session
        .open(&Hub::hf(path))
        .and_then(|file| analyze_opened(&file, &ReadOptions::default()));
    match checked {
        Ok(_) => panic!("{path} was read"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_misbehaving_server_is_an_error_that_says_how_never_a_download() {
    let hub = Hub::start();
    let bytes = safetensors(8000);
    let len = bytes.len() as u64;
    hub.add_bytes("m.safetensors", bytes);
    let small = Session::new(
        &hub.endpoint,
        None,
        Budgets {
            file: 1 << 20,
            timeout: Duration::from_secs(1),
            ..Budgets::DEFAULT
        },
    );
    // A checkpoint whose directory is at its end, 4 MiB in.
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("model.pt");
    rtenx::synth::pytorch::write(&zip, 4, 1 << 20).unwrap();
    hub.add("model.pt", Content::File(zip));
    let cases = [
        (Misbehaviour::LongBody, "longer than its Content-Range"),
        (
            Misbehaviour::NoContentRange,
            "answered 206 with Content-Range none",
        ),
        (Misbehaviour::WrongRange, "to a request for bytes 0-102399"),
        (
            Misbehaviour::SizeChanges,
            "changed between requests: its size went from",
        ),
        (Misbehaviour::RedirectLoop, "redirect loop"),
        (Misbehaviour::Stall, "no answer in time"),
        (
            Misbehaviour::Down,
            "the server failed, and still after retrying (503",
        ),
        (
            Misbehaviour::IgnoreRange,
            "the server ignores byte ranges (it answered 200",
        ),
        (Misbehaviour::ShortBody, "cut short"),
        (
            Misbehaviour::Trickle,
            "more than 4096 requests for this file",
        ),
    ];
    for (misbehaviour, expected) in cases {
        hub.misbehave(misbehaviour);
        // Ranges ignored cost nothing more while the bytes needed are at the start.
        let path = match misbehaviour {
            Misbehaviour::IgnoreRange => "model.pt",
            _ => "m.safetensors",
        };
        let before = hub.served(path);
        let message = error(&small, path);
        assert!(message.contains(expected), "{misbehaviour:?}: {message}");
        let named = format!("hf://org/repo/{path}: ");
        assert!(message.starts_with(&named), "{message}");
        // Never the whole file: the budget, and what the sockets' buffers took in before
        // the connection closed.
        let served = hub.served(path) - before;
        assert!(
            served < 32 << 20,
            "{misbehaviour:?}: served {served} of {len}"
        );
    }
}

#[test]
fn rate_limits_and_whole_answers_within_the_budget_still_read_the_same() {
    let hub = Hub::start();
    let bytes = safetensors(4000);
    hub.add_bytes("m.safetensors", bytes.clone());
    let session = session(&hub);
    let reference = {
        let file = session.open(&Hub::hf("m.safetensors")).unwrap();
        verdict(&analyze_opened(&file, &ReadOptions::default()).unwrap())
    };
    for misbehaviour in [Misbehaviour::RateLimited(2), Misbehaviour::IgnoreRange] {
        hub.misbehave(misbehaviour);
        let file = session.open(&Hub::hf("m.safetensors")).unwrap();
        let analysis = analyze_opened(&file, &ReadOptions::default()).unwrap();
        assert_eq!(verdict(&analysis), reference, "{misbehaviour:?}");
    }
    // The whole answer, within the budget, was read once and is the file.
    let file = session.open(&Hub::hf("m.safetensors")).unwrap();
    assert_eq!(file.bytes(), &bytes[..]);
}

#[test]
fn the_token_goes_to_the_hub_and_never_to_the_host_it_redirects_to() {
    let hub = Hub::start();
    hub.add_bytes("m.safetensors", safetensors(10));
    hub.require_token("hf_secret");
    let message = error(&session(&hub), "m.safetensors");
    assert!(
        message.contains("not allowed: a gated or private repository needs a token"),
        "{message}"
    );
    assert!(
        message.contains("(401 Unauthorized: Access to model org/repo is restricted"),
        "{message}"
    );
    let with_token = Session::new(&hub.endpoint, Some("hf_secret".into()), Budgets::DEFAULT);
    let file = with_token.open(&Hub::hf("m.safetensors")).unwrap();
    assert!(!analyze_opened(&file, &ReadOptions::default())
        .unwrap()
        .has_errors());
    let seen = hub.seen();
    let (to_hub, to_cdn): (Vec<_>, Vec<_>) = seen.iter().partition(|s| s.host == "hub");
    assert!(!to_cdn.is_empty());
    assert!(
        to_cdn.iter().all(|s| s.authorization.is_none()),
        "{to_cdn:?}"
    );
    let authorised = to_hub.iter().filter(|s| s.authorization.is_some()).count();
    assert!(
        authorised >= 1 && authorised == to_hub.len() - 1,
        "{to_hub:?}"
    );
    // Missing files and repositories say which.
    let message = error(&with_token, "missing.safetensors");
    assert!(
        message.contains("no such file in the repository (404"),
        "{message}"
    );
    let message = with_token
        .open("hf://other/repo/m.gguf")
        .err()
        .unwrap()
        .to_string();
    assert!(message.contains("no such repository"), "{message}");
}

#[test]
fn a_40_gb_file_is_checked_with_under_a_megabyte_fetched() {
    use rtenx::synth::{gguf, safetensors};
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // A llama of 80 blocks with a 32,000-token vocabulary, and a LlamaForCausalLM of 80
    // layers in one file, their tensor data holes (src/synth/).
    let gguf_path = a.path().join("llama40g.gguf");
    let spec = gguf::Spec {
        layers: 80,
        width: 8_192,
        vocabulary: 32_000,
        parts: 1,
    };
    gguf::write(&gguf_path, &spec).unwrap();
    let spec = safetensors::Spec {
        layers: 80,
        width: 6_144,
        shards: 1,
    };
    safetensors::write(b.path(), &spec).unwrap();
    // Alone in its folder, as the remote file is: its config.json is not fetched.
    std::fs::remove_file(b.path().join("config.json")).unwrap();
    let hub = Hub::start();
    let session = session(&hub);
    for local in [gguf_path, b.path().join("model.safetensors")] {
        let size = std::fs::metadata(&local).unwrap().len();
        assert!(size > 40_000_000_000, "{size}");
        let name = local.file_name().unwrap().to_string_lossy().into_owned();
        let (here, there, fetched) = both(&hub, &session, &local, &name);
        assert_eq!(verdict(&here), verdict(&there), "{name}");
        assert!(here.inventory.tensors.len() > 500, "{:?}", verdict(&here));
        assert!(fetched < 1 << 20, "{name}: {fetched} bytes fetched");
    }
}

/// Runs the `rtenx` binary against `hub`: stdout, stderr and the exit code.
fn rtenx(hub: &Hub, args: &[&str]) -> (String, String, i32) {
    rtenx_with(hub, "", args)
}

/// Runs the `rtenx` binary against `hub` with `RTENX_REMOTE_BUDGET` set to `budget` (unless
/// empty): stdout, stderr and the exit code.
fn rtenx_with(hub: &Hub, budget: &str, args: &[&str]) -> (String, String, i32) {
    let mut command = assert_cmd::Command::cargo_bin("rtenx").unwrap();
    if !budget.is_empty() {
        command.env("RTENX_REMOTE_BUDGET", budget);
    }
    let out = command
        .env("NO_COLOR", "1")
        .env("HF_ENDPOINT", &hub.endpoint)
        .env_remove("HF_TOKEN")
        .env("HF_HOME", "/nonexistent")
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        text(out.stdout),
        text(out.stderr),
        out.status.code().unwrap(),
    )
}

#[test]
fn check_inspect_and_dump_take_a_remote_path_and_report_what_the_hub_said() {
    let hub = Hub::start();
    let llama = common::fixtures().join("gguf/llama.gguf");
    let bytes = std::fs::read(&llama).unwrap();
    hub.add_bytes("llama.gguf", bytes.clone());
    let url = Hub::hf("llama.gguf");
    let (out, err, code) = rtenx(&hub, &["check", "--format", "json", &url]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["path"], url);
    assert_eq!(file["format"], "gguf");
    let remote = &file["remote"];
    let resolve = format!("{}/org/repo/resolve/main/llama.gguf", hub.endpoint);
    assert_eq!(remote["url"], resolve);
    assert_eq!(remote["commit"], COMMIT);
    assert_eq!(remote["sha256"], format!("{:064x}", bytes.len()));
    assert_eq!(remote["size"], bytes.len());
    assert_eq!(remote["fetched"], hub.served("llama.gguf"));
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/check.schema.json");
    let schema = std::fs::read_to_string(schema);
    let schema: serde_json::Value = serde_json::from_str(&schema.unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let (local, _, _) = common::rtenx(&["check", "--format", "json", llama.to_str().unwrap()]);
    let local: serde_json::Value = serde_json::from_str(&local).unwrap();
    assert_eq!(file["findings"], local["files"][0]["findings"]);

    let (out, err, code) = rtenx(&hub, &["check", &url]);
    assert_eq!(code, 0, "{err}");
    let fetched = "fetched 83.09 KiB of 83.09 KiB in 1 request (1 remote file)\nchecked 1 file";
    assert!(out.contains(fetched), "{out}");
    let (out, err, code) = rtenx(&hub, &["inspect", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!("{url}\n  format   gguf v3")),
        "{out}"
    );
    let (out, err, code) = rtenx(&hub, &["dump", "--json", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"token_embd.weight\""), "{out}");

    // What cannot be read is exit 2 with the cause, and nothing reported clean.
    // The report is on standard output, the one file's error included.
    for (path, expected) in [
        (Hub::hf("gone.gguf"), "no such file in the repository (404"),
        (
            "http://example.com/m.gguf".into(),
            "plain http:// is refused",
        ),
    ] {
        let (out, err, code) = rtenx(&hub, &["check", &path]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            out.contains(&format!("error: cannot read {path}: ")),
            "{out}"
        );
        assert!(out.contains(expected), "{out}");
        assert!(out.contains("1 file could not be read"), "{out}");
    }
    // --hash takes the SHA-256 the Hub records rather than downloading the file.
    let (out, err, code) = rtenx(
        &hub,
        &["check", "--hash", "sha256", "--format", "json", &url],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("{:064x}", bytes.len())), "{out}");
    let (out, err, code) = rtenx_with(&hub, "16KiB", &["check", &url]);
    assert_eq!(code, 2, "{out}{err}");
    let expected = "more than its budget of 16384 bytes (RTENX_REMOTE_BUDGET raises it)";
    assert!(out.contains(expected), "{out}");
    let (out, err, code) = rtenx_with(&hub, "lots", &["check", &url]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("RTENX_REMOTE_BUDGET: `lots` is not a size"),
        "{out}"
    );
}

/// Copies the files of the fixture folder `from` into `to`.
fn copy_fixture(from: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(common::fixtures().join(from)).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A repository as a folder: a sharded LlamaForCausalLM of 3 shards with its config.json
/// at the root, a llama split into 3 GGUF parts, an ONNX model with a data file per tensor,
/// an ExecuTorch program with its `.ptd`, a Paddle program with its `.pdiparams` and one
/// told apart by content (`model.json`); the tensor data of the first two are holes of
/// hundreds of megabytes.
fn repository_folder() -> tempfile::TempDir {
    use rtenx::synth::{gguf, safetensors};
    let dir = tempfile::tempdir().unwrap();
    let spec = safetensors::Spec {
        layers: 6,
        width: 2_048,
        shards: 3,
    };
    safetensors::write(dir.path(), &spec).unwrap();
    std::fs::create_dir(dir.path().join("gguf")).unwrap();
    let spec = gguf::Spec {
        layers: 6,
        width: 2_048,
        vocabulary: 3_000,
        parts: 3,
    };
    gguf::write(&dir.path().join("gguf/llama-00001-of-00003.gguf"), &spec).unwrap();
    copy_fixture("onnx/external_per_tensor", &dir.path().join("onnx"));
    copy_fixture("executorch/external", &dir.path().join("executorch"));
    copy_fixture("paddle/lod", &dir.path().join("paddle"));
    copy_fixture("paddle/dtypes_pir", &dir.path().join("pir"));
    dir
}

/// The verdict of a local check, with the folder's canonical path shown as the
/// repository's, as a remote check shows it.
fn as_remote(analysis: &Analysis, dir: &Path) -> Vec<String> {
    let canonical = format!("{}/", std::fs::canonicalize(dir).unwrap().display());
    (verdict(analysis).into_iter())
        .map(|line| line.replace(&canonical, "hf://org/repo/"))
        .collect()
}

#[test]
fn a_repository_is_checked_as_a_local_copy_of_it_would_be() {
    let dir = repository_folder();
    let hub = Hub::start();
    hub.add_dir(dir.path());
    // Three entries a page: the listing takes several.
    hub.page_size(3);
    let repo = session(&hub).repository("hf://org/repo").unwrap();
    assert_eq!(repo.commit(), COMMIT);
    assert!(hub.pages() > 5, "{}", hub.pages());
    // The files a scan of the local copy checks, in the same order.
    let local = rtenx::formats::scan::models_in(dir.path());
    let local: Vec<String> = (local.files.iter())
        .map(|f| {
            f.path
                .strip_prefix(dir.path())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    let models = repo.models().unwrap();
    assert_eq!(models, local);
    assert_eq!(
        models,
        [
            "executorch/linear.pte",
            "gguf/llama-00001-of-00003.gguf",
            "model.safetensors.index.json",
            "onnx/model.onnx",
            "paddle/model.pdmodel",
            "pir/model.json"
        ]
    );
    let options = ReadOptions::default();
    let mut index = None;
    for model in &models {
        let here = analyze_opened(&ModelFile::open(&dir.path().join(model)).unwrap(), &options);
        let file = repo.open(model).unwrap();
        assert_eq!(file.path(), Path::new(&format!("hf://org/repo/{model}")));
        let there = analyze_opened(&file, &options).unwrap();
        let here = here.unwrap();
        if model.ends_with(".index.json") {
            index = Some(there.inventory.architecture.clone());
        }
        assert_eq!(as_remote(&here, dir.path()), verdict(&there), "{model}");
        // Every data file was read: the same files, shown by their remote paths.
        let files = |a: &Analysis| a.inventory.files.iter().map(|f| f.size).collect::<Vec<_>>();
        assert_eq!(files(&here), files(&there), "{model}");
        assert!(there.inventory.files.len() > 1, "{model}");
        for f in &there.inventory.files {
            assert!(f.path.starts_with("hf://org/repo/"), "{}", f.path.display());
        }
    }
    // The architecture held to config.json, read from the listing too.
    let arch = index.flatten().unwrap();
    assert!(arch.companions.iter().any(|c| c.checked), "{arch:?}");
    // Under a megabyte of each file, and no byte of any ONNX data file, whose size is the
    // listing's.
    for f in repo.files() {
        let served = hub.served(&f.path);
        assert!(served < 1 << 20, "{}: {served} bytes served", f.path);
        if f.path.ends_with(".weight.data") {
            assert_eq!(served, 0, "{}", f.path);
        }
    }
    let shard = std::fs::metadata(dir.path().join("model-00001-of-00003.safetensors"));
    assert!(shard.unwrap().len() > 100 << 20);
}

#[test]
fn check_takes_a_repository_and_reports_what_a_local_copy_would_give() {
    let dir = repository_folder();
    // A shard the index names is missing: an error in the report, exit 1.
    std::fs::remove_file(dir.path().join("model-00002-of-00003.safetensors")).unwrap();
    let hub = Hub::start();
    hub.add_dir(dir.path());
    let local = dir.path().to_str().unwrap();
    let (here, err, code) = common::rtenx(&["check", "--format", "json", "--root", local, local]);
    assert_eq!(code, 1, "{here}{err}");
    for given in [
        "hf://org/repo".to_owned(),
        format!("{}/org/repo", hub.endpoint),
        format!("{}/org/repo/tree/main", hub.endpoint),
    ] {
        let (there, err, remote_code) = rtenx(&hub, &["check", "--format", "json", &given]);
        assert_eq!(remote_code, code, "{there}{err}");
        let (here, there): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&here).unwrap(),
            serde_json::from_str(&there).unwrap(),
        );
        let (here, there) = (
            here["files"].as_array().unwrap(),
            there["files"].as_array().unwrap(),
        );
        assert_eq!(here.len(), there.len());
        // The findings, with paths shown in the repository (the local ones relative to
        // --root) and without their fingerprints, which hash the paths.
        let findings = |file: &serde_json::Value| {
            let mut findings = file["findings"].clone();
            for f in findings.as_array_mut().unwrap() {
                f.as_object_mut().unwrap().remove("fingerprint");
            }
            serde_json::to_string(&findings)
                .unwrap()
                .replace("hf://org/repo/", "")
        };
        for (a, b) in here.iter().zip(there) {
            let path = a["path"].as_str().unwrap();
            assert_eq!(b["path"], format!("hf://org/repo/{path}"));
            assert_eq!(b["remote"]["commit"], COMMIT);
            assert_eq!(findings(a), findings(b), "{path}");
        }
        let missing = there.iter().flat_map(|f| f["findings"].as_array().unwrap());
        let missing: Vec<_> = missing.filter(|f| f["code"] == "DX006").collect();
        assert_eq!(missing.len(), 1, "{missing:?}");
        let message = missing[0]["message"].as_str().unwrap();
        assert!(
            message.contains("hf://org/repo/model-00002-of-00003.safetensors does not exist"),
            "{message}"
        );
    }
    // --exclude takes the paths in the repository.
    let (out, err, code) = rtenx(
        &hub,
        &[
            "check",
            "--exclude",
            "*.json",
            "--exclude",
            "*.pte",
            "hf://org/repo",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("checked 3 files"), "{out}");
}

#[test]
fn the_ml_bom_of_a_repository_lists_its_data_files_with_the_listings_sha256() {
    let dir = repository_folder();
    let hub = Hub::start();
    hub.add_dir(dir.path());
    let (out, err, code) = rtenx(&hub, &["sbom", "hf://org/repo"]);
    assert_eq!(code, 0, "{err}");
    for shard in 1..=3 {
        let name = format!("model-0000{shard}-of-00003.safetensors");
        let len = std::fs::metadata(dir.path().join(&name)).unwrap().len();
        assert!(out.contains(&format!("hf://org/repo/{name}")), "{name}");
        assert!(out.contains(&format!("{len:064x}")), "{name}");
    }
    // Not a byte of tensor data: under a megabyte of each file.
    for name in [
        "model-00001-of-00003.safetensors",
        "gguf/llama-00003-of-00003.gguf",
    ] {
        let served = hub.served(name);
        assert!(served > 0 && served < 1 << 20, "{name}: {served}");
    }
}

#[test]
fn a_hub_file_reads_its_data_files_from_the_listing_of_its_folder() {
    let dir = repository_folder();
    let hub = Hub::start();
    hub.add_dir(dir.path());
    let session = session(&hub);
    let options = ReadOptions::default();
    for model in [
        "gguf/llama-00001-of-00003.gguf",
        "onnx/model.onnx",
        "model.safetensors.index.json",
    ] {
        let here = analyze_opened(&ModelFile::open(&dir.path().join(model)).unwrap(), &options);
        let there = analyze_opened(&session.open(&Hub::hf(model)).unwrap(), &options).unwrap();
        assert_eq!(
            as_remote(&here.unwrap(), dir.path()),
            verdict(&there),
            "{model}"
        );
    }
    // The listings asked for were of the model's folder.
    let trees: Vec<String> = (hub.seen().into_iter())
        .filter(|s| s.target.contains("/tree/"))
        .map(|s| s.target)
        .collect();
    assert!(
        trees
            .iter()
            .any(|t| t.contains(&format!("/tree/{COMMIT}/gguf?"))),
        "{trees:?}"
    );
    // A repository of one model opens that model; of several, names them.
    let message = session.open("hf://org/repo").err().unwrap().to_string();
    assert!(
        message.contains(
            "the repository holds 6 model files: name one (hf://org/repo/executorch/linear.pte, "
        ),
        "{message}"
    );
}

#[test]
fn a_hostile_listing_is_an_error_and_nothing_outside_the_repository_is_fetched() {
    let dir = repository_folder();
    for phantom in [
        "../x.safetensors",
        "/etc/passwd",
        "onnx/../../x",
        "a//b.gguf",
        "./m.gguf",
    ] {
        let hub = Hub::start();
        hub.add_dir(dir.path());
        hub.list_phantom(phantom);
        let message = session(&hub)
            .repository("hf://org/repo")
            .err()
            .unwrap()
            .to_string();
        assert!(
            message.contains("which is not a plain path inside the repository: not read"),
            "{phantom}: {message}"
        );
        let cdn = hub.seen().into_iter().filter(|s| s.host == "cdn").count();
        assert_eq!(cdn, 0, "{phantom}");
    }
    // A million files: given up on past the limit, a page at a time, with nothing fetched.
    let hub = Hub::start();
    hub.page_size(1_000);
    hub.list_made_up(1_000_000);
    let message = session(&hub)
        .repository("hf://org/repo")
        .err()
        .unwrap()
        .to_string();
    assert!(
        message.contains("lists more than 100000 files: not read"),
        "{message}"
    );
    assert_eq!(hub.pages(), 101);
    // A path listed twice, and a size the server does not serve.
    let hub = Hub::start();
    hub.add_dir(dir.path());
    hub.list_phantom("onnx/fc0.weight.data");
    let message = session(&hub)
        .repository("hf://org/repo")
        .err()
        .unwrap()
        .to_string();
    assert!(
        message.contains("names \"onnx/fc0.weight.data\" twice: not read"),
        "{message}"
    );
    let hub = Hub::start();
    hub.add_dir(dir.path());
    hub.list_size("gguf/llama-00002-of-00003.gguf", 4096);
    let (out, err, code) = rtenx(&hub, &["check", "hf://org/repo"]);
    assert_eq!(code, 2, "{out}{err}");
    let expected = "error: cannot read hf://org/repo/gguf/llama-00002-of-00003.gguf: the listing says the file has 4096 bytes, the server ";
    assert!(out.contains(expected), "{out}");
}

#[test]
fn sarif_and_the_ml_bom_carry_the_hubs_records_of_a_remote_file() {
    let hub = Hub::start();
    let bytes = std::fs::read(common::fixtures().join("gguf/llama.gguf")).unwrap();
    hub.add_bytes("llama.gguf", bytes.clone());
    let url = Hub::hf("llama.gguf");
    let sha = format!("{:064x}", bytes.len());
    let (out, err, code) = rtenx(&hub, &["check", "--format", "sarif", &url]);
    assert_eq!(code, 0, "{err}");
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let artifact = &sarif["runs"][0]["artifacts"][0];
    let resolve = format!("{}/org/repo/resolve/main/llama.gguf", hub.endpoint);
    assert_eq!(artifact["location"]["uri"], resolve);
    assert_eq!(artifact["hashes"]["sha-256"], sha);
    assert_eq!(artifact["properties"]["commit"], COMMIT);
    // The ML-BOM's hash of a remote file is the Hub's: nothing is downloaded to hash it.
    let (out, err, code) = rtenx(&hub, &["sbom", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&sha), "{out}");
    assert_eq!(hub.served("llama.gguf"), 2 * bytes.len() as u64);
}

/// Reading values, for [`analyze_opened`].
fn with_values() -> ReadOptions<'static> {
    ReadOptions {
        values: Some(rtenx::formats::ValueCheck {
            zero_tail: rtenx::formats::ZERO_TAIL,
            cancel: None,
        }),
        ..ReadOptions::default()
    }
}

#[test]
fn every_value_fixture_reads_the_same_values_remote_as_local() {
    let hub = Hub::start();
    let session = session(&hub);
    let fixtures = files(
        "values/bad",
        &[".gguf", ".safetensors", ".npy", ".onnx", ".pt"],
    );
    assert!(fixtures.len() >= 10, "{fixtures:?}");
    for (i, local) in fixtures.iter().enumerate() {
        let here = analyze_opened(&ModelFile::open(local).unwrap(), &with_values()).unwrap();
        let path = format!("v{i}/{}", local.file_name().unwrap().to_string_lossy());
        hub.add(&path, Content::File(local.clone()));
        let file = session.open(&Hub::hf(&path)).unwrap();
        let there = analyze_opened(&file, &with_values()).unwrap();
        assert_eq!(verdict(&here), verdict(&there), "{}", local.display());
        let values = |a: &Analysis| a.findings.iter().any(|f| f.rule.code.starts_with("VX"));
        assert!(values(&there), "{}: {:?}", local.display(), verdict(&there));
        // Every byte fetched once at most: the values are the rest of the file.
        let len = std::fs::metadata(local).unwrap().len();
        let fetched = file.provenance().unwrap().fetched;
        assert_eq!(hub.served(&path), fetched);
        assert!(
            fetched <= len + 8192,
            "{}: {fetched} of {len}",
            local.display()
        );
    }
}

/// A safetensors file of two f32 tensors of `mib` MiB each, holes but for a NaN as the very
/// last element of the second.
fn two_big_tensors(dir: &Path, mib: u64) -> PathBuf {
    use std::io::Write;
    let size = mib << 20;
    let header = format!(
        r#"{{"dead.weight":{{"dtype":"F32","shape":[{n}],"data_offsets":[0,{size}]}},"nan.weight":{{"dtype":"F32","shape":[{n}],"data_offsets":[{size},{end}]}}}}"#,
        n = size / 4,
        end = 2 * size
    );
    let path = dir.join("big.safetensors");
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    f.write_all(header.as_bytes()).unwrap();
    let start = 8 + header.len() as u64;
    f.set_len(start + 2 * size).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&f32::NAN.to_le_bytes(), start + 2 * size - 4)
        .unwrap();
    path
}

#[test]
fn values_of_a_remote_file_are_fetched_once_and_let_go_of_as_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let local = two_big_tensors(dir.path(), 96);
    let hub = Hub::start();
    hub.add("big.safetensors", Content::File(local.clone()));
    let session = session(&hub);
    let here = analyze_opened(&ModelFile::open(&local).unwrap(), &with_values()).unwrap();
    let file = session.open(&Hub::hf("big.safetensors")).unwrap();
    let structure = hub.served("big.safetensors");
    assert!(structure < 1 << 20, "{structure}");
    let there = analyze_opened(&file, &with_values()).unwrap();
    assert_eq!(verdict(&here), verdict(&there));
    let codes: Vec<&str> = there.findings.iter().map(|f| f.rule.code).collect();
    assert_eq!(codes, ["VX001"]);
    // Every byte once, past the per-file and per-run budgets (64 MiB, 1 GiB by default
    // here 192 MiB in all), and no more than a few pages of it still held.
    let len = std::fs::metadata(&local).unwrap().len();
    let served = hub.served("big.safetensors");
    assert!(
        served >= len - structure && served <= len + 8192,
        "{served} of {len}"
    );
    let held = file.fetched().unwrap().bytes();
    assert!(held < 4 << 20, "{held} bytes still held");

    // A server that goes down meanwhile: an error that names it, no verdict.
    let file = session.open(&Hub::hf("big.safetensors")).unwrap();
    hub.misbehave(Misbehaviour::Down);
    let Err(e) = analyze_opened(&file, &with_values()) else {
        panic!("read values from a server that is down");
    };
    let e = e.to_string();
    assert!(e.contains("big.safetensors") && e.contains("503"), "{e}");
}

#[test]
fn check_dump_and_diff_read_remote_values_as_they_read_local_ones() {
    let hub = Hub::start();
    let local = common::fixtures().join("values/bad/VX001-floats.safetensors");
    hub.add("floats.safetensors", Content::File(local.clone()));
    let url = Hub::hf("floats.safetensors");
    let local = local.to_str().unwrap();
    let findings = |out: &str| {
        let report: serde_json::Value = serde_json::from_str(out).unwrap();
        let mut findings = report["files"][0]["findings"].clone();
        for f in findings.as_array_mut().unwrap() {
            let f = f.as_object_mut().unwrap();
            f.remove("fingerprint");
            f.remove("path");
        }
        findings
    };
    let (here, _, code) = common::rtenx(&["check", "--values", "--format", "json", local]);
    assert_eq!(code, 1, "{here}");
    let (there, err, remote_code) = rtenx(&hub, &["check", "--values", "--format", "json", &url]);
    assert_eq!(remote_code, code, "{there}{err}");
    assert_eq!(findings(&here), findings(&there));

    let (here, _, _) = common::rtenx(&["dump", "--values", local]);
    let (there, err, code) = rtenx(&hub, &["dump", "--values", &url]);
    assert_eq!(code, 0, "{err}");
    let tensors =
        |out: &str| serde_json::from_str::<serde_json::Value>(out).unwrap()["tensors"].clone();
    assert_eq!(tensors(&here), tensors(&there));
    assert!(there.contains("\"nan\""), "{there}");

    let (out, err, code) = rtenx(&hub, &["diff", "--values", "--format", "json", local, &url]);
    assert_eq!(code, 0, "{out}{err}");
    let diff: serde_json::Value = serde_json::from_str(&out).unwrap();
    let values = &diff["values"];
    assert!(values["equal"].as_u64().unwrap() > 0, "{values}");
    assert_eq!(values["not_compared"], serde_json::json!([]), "{values}");

    // --verify-checksums hashes a remote data file as it hashes a local one.
    let onnx = common::fixtures().join("onnx/bad/DX009-checksum-wrong");
    hub.add_dir(&onnx);
    let (out, err, code) = rtenx(
        &hub,
        &["check", "--verify-checksums", &Hub::hf("model.onnx")],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error[DX009]"), "{out}");
}

#[test]
fn the_shards_and_parts_of_a_remote_model_are_fetched_side_by_side() {
    let dir = repository_folder();
    for model in [
        "model.safetensors.index.json",
        "gguf/llama-00001-of-00003.gguf",
    ] {
        let hub = Hub::start();
        hub.add_dir(dir.path());
        let file = session(&hub).open(&Hub::hf(model)).unwrap();
        assert_eq!(
            hub.most_in_flight(),
            1,
            "{model}: one request at a time so far"
        );
        // As over a network: each request waits, so fetches side by side overlap.
        hub.delay(Duration::from_millis(100));
        let there = analyze_opened(&file, &ReadOptions::default()).unwrap();
        let local = ModelFile::open(&dir.path().join(model)).unwrap();
        let here = analyze_opened(&local, &ReadOptions::default()).unwrap();
        assert_eq!(as_remote(&here, dir.path()), verdict(&there), "{model}");
        let most = hub.most_in_flight();
        assert!(most >= 2, "{model}: at most {most} requests at once");
        // What they cost is the model's too.
        let data = file.provenance().unwrap().data_files.unwrap();
        // The shards and config.json, or the other two parts.
        let shards = if model.starts_with("gguf") { 2 } else { 4 };
        assert_eq!(data.files, shards, "{data:?}");
        assert!(data.fetched > 0 && data.fetched < data.size, "{data:?}");
    }
}

/// On a terminal, a repository's check shows how many of its files are done, and clears it.
#[cfg(target_os = "linux")]
#[test]
fn a_repository_check_on_a_terminal_counts_its_files_as_they_are_fetched() {
    let dir = repository_folder();
    let hub = Hub::start();
    hub.add_dir(dir.path());
    hub.delay(Duration::from_millis(100));
    let bin = env!("CARGO_BIN_EXE_rtenx");
    let cmd = format!("stty cols 100 rows 30; {bin} check hf://org/repo");
    let out = std::process::Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .env("HF_ENDPOINT", &hub.endpoint)
        .env("HF_HOME", "/nonexistent")
        .env_remove("HF_TOKEN")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("util-linux `script` runs the binary in a pseudo-terminal");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("fetching [") && screen.contains("/6 files"),
        "{screen}"
    );
    assert!(screen.contains("checked 6 files"), "{screen}");
}

#[test]
fn a_local_copy_is_held_to_what_the_hub_records() {
    let hub = Hub::start();
    let published = common::fixtures().join("hf/llama-sharded");
    hub.add_dir(&published);
    hub.true_digests();
    let copy = tempfile::tempdir().unwrap();
    copy_fixture("hf/llama-sharded", copy.path());
    let dir = copy.path().to_str().unwrap();
    let codes = |out: &str| -> Vec<(String, String)> {
        let report: serde_json::Value = serde_json::from_str(out).unwrap();
        let files = report["files"].as_array().unwrap().iter();
        let findings = files.flat_map(|f| f["findings"].as_array().unwrap().clone());
        findings
            .filter(|f| f["code"].as_str().unwrap().starts_with("HF00") && f["code"] != "HF002")
            .map(|f| {
                (
                    f["code"].as_str().unwrap().to_owned(),
                    f["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let args = [
        "check",
        "--format",
        "json",
        "--expect-hub",
        "hf://org/repo",
        dir,
    ];
    let (out, err, code) = rtenx(&hub, &args);
    assert_eq!((code, codes(&out)), (0, vec![]), "{out}{err}");

    // A flipped byte in a shard (an LFS file: its SHA-256), a changed index (a file stored in
    // git: its blob id), a file the repository lacks.
    let shard = copy.path().join("model-00002-of-00002.safetensors");
    let mut bytes = std::fs::read(&shard).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(&shard, bytes).unwrap();
    let index = copy.path().join("model.safetensors.index.json");
    let text = std::fs::read_to_string(&index).unwrap();
    std::fs::write(&index, text.replacen("total_size", "total_sizE", 1)).unwrap();
    std::fs::copy(
        common::fixtures().join("safetensors/dtypes.safetensors"),
        copy.path().join("extra.safetensors"),
    )
    .unwrap();
    let (out, err, code) = rtenx(&hub, &args);
    assert_eq!(code, 1, "{out}{err}");
    let found = codes(&out);
    let has = |code: &str, words: &[&str]| {
        found
            .iter()
            .any(|(c, m)| c == code && words.iter().all(|w| m.contains(w)))
    };
    assert!(
        has(
            "HF007",
            &[
                "model-00002-of-00002.safetensors: its SHA-256 is",
                "hf://org/repo/model-00002-of-00002.safetensors (commit"
            ]
        ),
        "{found:?}"
    );
    assert!(
        has(
            "HF007",
            &["model.safetensors.index.json: its git blob id is"]
        ),
        "{found:?}"
    );
    assert!(
        has(
            "HF008",
            &["extra.safetensors is not in hf://org/repo/extra.safetensors"]
        ),
        "{found:?}"
    );
    assert_eq!(found.len(), 3, "{found:?}");

    // A repository that cannot be listed is a usage error, before anything is checked.
    let (out, err, code) = rtenx(&hub, &["check", "--expect-hub", "hf://org/gone", dir]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("hf://org/gone"), "{err}");
}
