//! `rtenx completions` and `rtenx man`: what they write is generated from the real command line.

use crate::common;

use common::rtenx;

const COMMANDS: [&str; 8] = [
    "check",
    "explain",
    "dump",
    "diff",
    "inspect",
    "sbom",
    "completions",
    "man",
];

#[test]
fn completions_cover_every_shell_and_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (out, err, code) = rtenx(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for word in COMMANDS.iter().chain(&["verify-checksums"]) {
            assert!(out.contains(word), "{shell} completions lack `{word}`");
        }
        // These three also complete option values.
        if ["bash", "zsh", "fish"].contains(&shell) {
            assert!(
                out.contains("sarif"),
                "{shell} completions lack `--format sarif`"
            );
        }
    }
    let (_, err, code) = rtenx(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
}

#[test]
fn man_page_lists_every_command() {
    let (out, _, code) = rtenx(&["man"]);
    assert_eq!(code, 0);
    assert!(out.contains(".TH rtenx 1"), "{out}");
    for command in COMMANDS {
        assert!(out.contains(&format!("rtenx\\-{command}(1)")), "{command}");
    }
    // clap's own `help` subcommand is not a page.
    assert!(!out.contains("rtenx\\-help"));
}

#[test]
fn each_command_has_a_page_with_its_options() {
    let (out, _, code) = rtenx(&["man", "check"]);
    assert_eq!(code, 0);
    assert!(out.contains(".TH rtenx\\-check 1") || out.contains(".TH rtenx-check 1"));
    assert!(out.contains("\\fB\\-\\-verify\\-checksums\\fR"), "{out}");
    assert!(out.contains("[default: auto]"), "{out}");

    let (_, err, code) = rtenx(&["man", "frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("no command `frobnicate`"), "{err}");
}

#[test]
fn man_dir_writes_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let (_, err, code) = rtenx(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut expected: Vec<_> = COMMANDS.iter().map(|c| format!("rtenx-{c}.1")).collect();
    expected.push("rtenx.1".into());
    expected.sort();
    assert_eq!(names, expected);
    let (stdout_page, _, _) = rtenx(&["man", "dump"]);
    let written = std::fs::read_to_string(dir.path().join("rtenx-dump.1")).unwrap();
    assert_eq!(written, stdout_page);
}
