//! Folder scans: time grows with the number of files as n log n at worst, and a file swapped
//! for a symlink after the walk saw it is never followed out of the folder.
#![cfg(target_os = "linux")]

mod common;

use std::path::Path;

/// Writes `count` empty files named `{stem}{i}.{ext}` in `dir`.
fn empty_files(dir: &Path, stem: &str, ext: &str, count: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..count {
        std::fs::write(dir.join(format!("{stem}{i}.{ext}")), b"").unwrap();
    }
}

/// 20,000 programs in one folder and 20,000 data files with no program in another: looking
/// for a program beside each data file among all the files claimed took past 60 s in a
/// release build (10,000 of each 18 s, while each half alone took 0.3 s).
#[test]
fn companions_are_paired_in_linear_time() {
    let root = tempfile::tempdir().unwrap();
    empty_files(&root.path().join("programs"), "p", "pte", 20_000);
    empty_files(&root.path().join("data"), "d", "ptd", 20_000);
    let run = common::bounded::run_in(root.path(), &["check", "--format", "json", "."]);
    run.assert_bounded("20,000 programs and 20,000 lone data files");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The lone data files are checked on their own, beside the programs.
    assert_eq!(report["summary"]["files"], 40_000, "{}", run.stderr);
}

/// What the file outside the scanned folder holds: a distinctive head and size, which no
/// output may ever quote (RX001 prints an unknown file's first 8 bytes and its size).
const SECRET: &[u8] = b"OUTSIDE!secret";
const SECRET_SIZE: usize = 4093;

/// A model in a scanned folder swapped, again and again, between a regular file and a
/// symlink to a file outside the folder while `rtenx check DIR` runs: the walk may see
/// either, but what it saw as a regular file is opened without following a symlink and must
/// still be that file, so the outside file is never read. Before, 81 runs in 1,500 printed
/// its head and size.
#[test]
fn a_file_swapped_for_a_symlink_is_never_followed_out_of_the_folder() {
    let root = tempfile::tempdir().unwrap();
    let (folder, outside) = (root.path().join("models"), root.path().join("outside.bin"));
    std::fs::create_dir(&folder).unwrap();
    let mut secret = SECRET.to_vec();
    secret.resize(SECRET_SIZE, b'x');
    std::fs::write(&outside, &secret).unwrap();
    let model = folder.join("m.onnx");
    std::fs::write(&model, b"inside, 16 bytes").unwrap();

    // The swapped-in symlink waits outside the folder; each exchange of it with the model
    // (one atomic `renameat2`) toggles what the model's name is.
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        let (model, link) = (c(&model), c(&link));
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // SAFETY: two NUL-terminated paths; the call touches nothing else.
                let rc = unsafe {
                    libc::renameat2(
                        libc::AT_FDCWD,
                        model.as_ptr(),
                        libc::AT_FDCWD,
                        link.as_ptr(),
                        libc::RENAME_EXCHANGE,
                    )
                };
                assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
                swaps += 1;
            }
            swaps
        })
    };
    let head: String = SECRET[..8].iter().map(|b| format!("{b:02x}")).collect();
    let mut changed = 0;
    for _ in 0..400 {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rtenx"))
            .current_dir(root.path())
            .env("NO_COLOR", "1")
            .args(["check", "models"])
            .output()
            .unwrap();
        let text = [out.stdout, out.stderr].concat();
        let text = String::from_utf8_lossy(&text);
        for quoted in [&head[..], "OUTSIDE", &SECRET_SIZE.to_string()] {
            assert!(!text.contains(quoted), "the outside file was read:\n{text}");
        }
        assert!(matches!(out.status.code(), Some(1 | 2)), "{text}");
        changed += usize::from(text.contains("changed since it was checked"));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("{swaps} swaps; {changed} of 400 runs saw the file change after the walk");
}

/// A symlink named on the command line is followed: the user chose it.
#[test]
fn a_symlink_named_on_the_command_line_is_followed() {
    let root = tempfile::tempdir().unwrap();
    let target = common::fixtures().join("rten/mlp.rten");
    std::os::unix::fs::symlink(&target, root.path().join("link.rten")).unwrap();
    let run = common::bounded::run_in(root.path(), &["check", "link.rten"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
}

/// A Hugging Face folder whose `pytorch_model.bin` beside `model.safetensors` is no torch zip
/// as the first bytes show it: a bare pickle (torch.load unpickles it before it refuses it),
/// a zip whose records are upper case, or one whose records come after 70 other members. A
/// folder scan checks each, and names the call loading it would make.
#[test]
fn every_pytorch_model_bin_in_a_folder_is_judged() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let safetensors = fixtures.join("safetensors/tiny_writer.safetensors");
    for hostile in [
        "PK001-opens-with-unicode.pkl",
        "PK001-global-os-system.pkl",
        "PK001-zip-uppercase-records.pt",
        "PK001-zip-records-after-70.pt",
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(&safetensors, dir.path().join("model.safetensors")).unwrap();
        let bad = fixtures.join("pickle/bad").join(hostile);
        std::fs::copy(bad, dir.path().join("pytorch_model.bin")).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rtenx"))
            .args(["check", "--format", "json"])
            .arg(dir.path())
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["summary"]["files"], 2, "{hostile}: {report}");
        let codes: Vec<&str> = (report["files"].as_array().unwrap().iter())
            .flat_map(|f| f["findings"].as_array().unwrap())
            .filter_map(|f| f["code"].as_str())
            .collect();
        assert!(codes.contains(&"PK001"), "{hostile}: {codes:?}");
        assert_eq!(out.status.code(), Some(1), "{hostile}");
    }
}
