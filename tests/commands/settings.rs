//! The trust model of settings (docs/security.md, "Trust model"): a folder being checked
//! cannot change how it is checked. Issue 37: a downloaded model folder that shipped an
//! `rtenx.toml` or a `pyproject.toml` allowing PK001, excluding its pickle or overriding its
//! rules passed its own malicious pickle with exit code 0.

use crate::common;

use common::rtenx_in;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A folder holding `model/` (the hostile pickle `model.pkl` and the settings file `name`
/// with `text`) and `elsewhere/`, an empty folder to run rtenx in, both by canonical path.
fn downloaded(name: &str, text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (model, elsewhere) = (root.join("model"), root.join("elsewhere"));
    std::fs::create_dir(&model).unwrap();
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::copy(
        common::fixtures().join("pickle/bad/PK001-global-os-system.pkl"),
        model.join("model.pkl"),
    )
    .unwrap();
    std::fs::write(model.join(name), text).unwrap();
    (dir, model, elsewhere)
}

/// `check --format json ARGS` run in `dir`: each finding as `code severity`, the messages of
/// RX021, and the exit code.
fn check(dir: &Path, args: &[&str]) -> (Vec<String>, Vec<String>, i32) {
    let (out, err, code) = rtenx_in(dir, &[&["check", "--format", "json"], args].concat());
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let all: Vec<&Value> = (report["files"].as_array().unwrap().iter())
        .flat_map(|f| f["findings"].as_array().unwrap())
        .collect();
    let codes = all
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["code"].as_str().unwrap(),
                f["severity"].as_str().unwrap()
            )
        })
        .collect();
    let notes = (all.iter())
        .filter(|f| f["code"] == "RX021")
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect();
    (codes, notes, code)
}

/// The settings a hostile model folder could ship to pass its own pickle.
const HOSTILE: [(&str, &str); 5] = [
    ("rtenx.toml", "allow = [\"PK001\"]\n"),
    ("rtenx.toml", "allow = [\"error\"]\n"),
    (
        "pyproject.toml",
        "[project]\nname = \"m\"\n\n[tool.rtenx]\nallow = [\"PK001\"]\n",
    ),
    ("rtenx.toml", "exclude = [\"*.pkl\"]\n"),
    (
        "rtenx.toml",
        "[[overrides]]\npaths = [\"**\"]\nwarn = [\"PK001\"]\n",
    ),
];

#[test]
fn a_model_folder_cannot_pass_its_own_pickle() {
    for (name, text) in HOSTILE {
        let (_dir, model, elsewhere) = downloaded(name, text);
        let shown = model.display().to_string();
        let file = format!("{shown}/model.pkl");
        // The folder, and the file, checked from another folder; the folder checked from
        // inside, as `cd model && rtenx check .`.
        for (cwd, path) in [
            (&elsewhere, shown.as_str()),
            (&elsewhere, "../model"),
            (&elsewhere, file.as_str()),
            (&model, "."),
        ] {
            let (codes, notes, code) = check(cwd, &[path]);
            let case = format!("{name} `{}` checked as {path}", text.trim());
            assert_eq!(code, 1, "{case}: {codes:?}");
            assert_eq!(codes, ["PK001 error", "RX021 info"], "{case}");
            assert_eq!(notes.len(), 1, "{case}");
            let settings = Path::new(path)
                .parent()
                .filter(|_| path.ends_with(".pkl"))
                .unwrap_or(Path::new(path))
                .join(name);
            let expected = format!("settings file {} was not applied", settings.display());
            assert!(notes[0].starts_with(&expected), "{case}: {}", notes[0]);
            assert!(
                notes[0].contains("a downloaded model cannot judge itself"),
                "{case}"
            );
        }
    }
}

#[test]
fn settings_of_the_working_directory_apply_to_the_folders_below_it() {
    let (_dir, model, _) = downloaded("pyproject.toml", "[project]\n");
    let root = model.parent().unwrap();
    std::fs::write(root.join("rtenx.toml"), "warn = [\"PK001\"]\n").unwrap();
    // A pyproject.toml without the table is no settings file: nothing to say about it.
    let (codes, _, code) = check(root, &["model"]);
    assert_eq!((codes, code), (vec!["PK001 warning".to_owned()], 0));
    // Also from a folder below, and for a file named.
    let (codes, _, code) = check(&model, &["model.pkl"]);
    assert_eq!((codes, code), (vec!["PK001 warning".to_owned()], 0));
    // A model's settings of its own are noted, but do not replace the working directory's.
    std::fs::write(model.join("rtenx.toml"), "allow = [\"PK001\"]\n").unwrap();
    let (codes, notes, code) = check(root, &["model"]);
    assert_eq!(codes, ["PK001 warning", "RX021 info"]);
    assert!(
        notes[0].starts_with("settings file model/rtenx.toml was not applied"),
        "{notes:?}"
    );
    assert_eq!(code, 0);
    // The working directory's settings can silence the note, and a folder's cannot.
    std::fs::write(
        root.join("rtenx.toml"),
        "warn = [\"PK001\"]\nallow = [\"settings-ignored\"]\n",
    )
    .unwrap();
    let (codes, _, _) = check(root, &["model"]);
    assert_eq!(codes, ["PK001 warning"]);
    // Named with --config, a folder's settings are the user's choice, and no note is made.
    let (codes, _, code) = check(root, &["--config", "model/rtenx.toml", "model"]);
    assert_eq!((codes, code), (vec![], 0));
    let (codes, _, code) = check(root, &["--isolated", "model"]);
    assert_eq!((codes, code), (vec!["PK001 error".to_owned()], 1));
}

#[test]
fn show_settings_says_which_settings_were_not_applied() {
    let (_dir, model, elsewhere) = downloaded("rtenx.toml", "allow = [\"PK001\"]\n");
    let (out, _, code) = rtenx_in(&elsewhere, &["check", "--show-settings", "../model"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "../model/model.pkl\n  config: none\n  ignored: ../model/rtenx.toml (inside what is \
         checked: never applied, see RX021)\n  max-size: none\n  timeout: none\n  values: no\n  \
         zero-tail: 1048576 bytes\n"
    );
    drop(model);
}

#[test]
fn a_folder_with_nothing_to_check_still_says_its_settings_were_not_applied() {
    let (_dir, model, elsewhere) = downloaded("rtenx.toml", "exclude = [\"**\"]\n");
    std::fs::remove_file(model.join("model.pkl")).unwrap();
    let (_, err, code) = rtenx_in(&elsewhere, &["check", "../model"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("rtenx: info[RX021]: settings file ../model/rtenx.toml was not applied"),
        "{err}"
    );
    assert!(err.contains("no model files found under ../model"), "{err}");
}

/// The settings that apply are read with the same care: a symlink out of their folder, a
/// file past 1 MiB or a path outside their folder is an error (exit 2), never followed.
#[cfg(unix)]
#[test]
fn the_settings_that_apply_are_read_with_care() {
    let (_dir, model, elsewhere) = downloaded("pyproject.toml", "[project]\n");
    let config = elsewhere.join("rtenx.toml");
    let error = |setup: &dyn Fn()| {
        let _ = std::fs::remove_file(&config);
        setup();
        let (_, err, code) = rtenx_in(&elsewhere, &["check", "../model"]);
        assert_eq!(code, 2, "{err}");
        err.replace(&elsewhere.display().to_string(), "CWD")
    };
    let secret = model.parent().unwrap().join("secret.toml");
    std::fs::write(&secret, "allow = [\"PK001\"]\n").unwrap();
    let err = error(&|| std::os::unix::fs::symlink(&secret, &config).unwrap());
    assert!(err.contains("CWD/rtenx.toml: is a symlink to"), "{err}");
    assert!(err.contains("outside its folder CWD: not read"), "{err}");
    let err = error(&|| std::fs::write(&config, "#".repeat(2 << 20)).unwrap());
    assert!(
        err.contains("CWD/rtenx.toml: is 2097152 bytes; a settings file is read only up to 1 MiB"),
        "{err}"
    );
    for (text, at) in [
        ("data = [\"/etc/passwd\"]\n", "1:9: data file `/etc/passwd`"),
        (
            "data = [\"../model/model.pkl\"]\n",
            "1:9: data file `../model/model.pkl`",
        ),
        ("baseline = \"../b.json\"\n", "1:12: baseline `../b.json`"),
    ] {
        let err = error(&|| std::fs::write(&config, text).unwrap());
        assert!(
            err.contains(&format!(
                "CWD/rtenx.toml:{at} is outside this settings file's folder CWD"
            )),
            "{err}"
        );
    }
}

/// `target = "rten"` in the working directory's settings holds the models below it to rten's
/// own rules, as `--target rten` does; without it, a healthy model gets no rten warning.
#[test]
fn the_target_setting_applies_the_runtimes_rules() {
    let fixture = common::fixtures().join("onnx/bad/OX024-one-file-two-tensors");
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), models.join(entry.file_name())).unwrap();
    }
    let rten = |codes: &[String]| codes.iter().any(|c| c.starts_with("OX024"));
    let (codes, _, _) = check(dir.path(), &["models"]);
    assert!(!rten(&codes), "{codes:?}");
    std::fs::write(dir.path().join("rtenx.toml"), "target = \"rten\"\n").unwrap();
    let (codes, _, _) = check(dir.path(), &["models"]);
    assert!(rten(&codes), "{codes:?}");
    std::fs::write(dir.path().join("rtenx.toml"), "target = \"tflite\"\n").unwrap();
    let (_, err, code) = rtenx_in(dir.path(), &["check", "models"]);
    assert_eq!(code, 2, "an unknown runtime is a settings error");
    assert!(err.contains("rtenx.toml:1:10"), "{err}");
}
