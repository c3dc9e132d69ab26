//! Hostile names through every output: terminal escapes, OSC 8 links, BEL, CR, LF, bidi
//! overrides, isolates and marks, zero-width characters, line and paragraph separators, tag
//! characters, bytes that are not UTF-8, workflow-command syntax and megabyte-long names, in
//! the model's file name, its data file's name, its folder, and the names inside it. Every
//! output must stay valid for its reader and hold no raw control characters.
#![cfg(unix)]

use crate::common;

use assert_cmd::Command;
use base64::Engine as _;
use prost::Message;
use rtenx::formats::onnx::proto::{
    GraphProto, ModelProto, NodeProto, StringStringEntryProto, TensorProto,
};
use serde_json::Value;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Characters that print as nothing or change how the text around them reads: zero-width
/// space, non-joiner, joiner, word joiner and no-break space (BOM); left-to-right,
/// right-to-left and Arabic letter marks; an embedding and an isolate; line and paragraph
/// separators; tag characters (a hidden "A" and the cancel tag).
const INVISIBLE: &str = "\u{200b}\u{200c}\u{200d}\u{2060}\u{feff}\u{200e}\u{200f}\u{61c}\u{202a}\u{2066}\u{2028}\u{2029}\u{e0041}\u{e007f}";

/// Every trick at once: clear screen, window title, an OSC 8 link, BEL, CR, LF, a right-to-left
/// override, a C1 CSI, DEL, the [`INVISIBLE`] characters, an escaped newline for workflow
/// commands, a workflow command, the property separators, what ends a URI's path, and a byte
/// that is not UTF-8.
fn hostile() -> Vec<u8> {
    [
        &b"\x1b[2J\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\n"[..],
        "\u{202e}\u{9b}\x7f".as_bytes(),
        INVISIBLE.as_bytes(),
        b"%0A::error::a,b:c #x?y%41\xff",
    ]
    .concat()
}

/// [`hostile`] as a file name: no `/`.
fn hostile_file(prefix: &str, suffix: &str) -> Vec<u8> {
    let middle = hostile().into_iter().filter(|&b| b != b'/');
    prefix.bytes().chain(middle).chain(suffix.bytes()).collect()
}

fn path(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(bytes))
}

/// A megabyte of valid UTF-8 that clears the screen and reverses text.
fn megabyte_text() -> Vec<u8> {
    "\x1b[2J\u{202e}".repeat((1 << 20) / 7).into_bytes()
}

/// A megabyte of bytes that are not UTF-8.
fn megabyte_bytes() -> Vec<u8> {
    hostile().repeat((1 << 20) / hostile().len())
}

/// A hostile model: the temporary folder, the model's path in it, and its data file's name.
struct Case {
    root: tempfile::TempDir,
    model: PathBuf,
    data_name: Vec<u8>,
}

/// A copy of `external_one_file` in a hostile folder, under a hostile name, with its data
/// file under another. Its first tensor and first node have megabyte names (UTF-8 and not),
/// its first tensor a megabyte location, the others a wrong checksum (DX009, whose message
/// names the data file), and its metadata a hostile key and value.
fn case() -> Case {
    let fixture = common::fixtures().join("onnx/external_one_file");
    let root = tempfile::tempdir().unwrap();
    let folder = path(&hostile_file("d", ""));
    std::fs::create_dir(root.path().join(&folder)).unwrap();
    let data_name = hostile_file("w", ".data");
    let model = folder.join(path(&hostile_file("m", ".onnx")));
    std::fs::copy(
        fixture.join("weights.data"),
        root.path().join(&folder).join(path(&data_name)),
    )
    .unwrap();

    let original = std::fs::read(fixture.join("model.onnx")).unwrap();
    let mut m = ModelProto::decode(&original[..]).unwrap();
    let mut graph = GraphProto::decode(m.graph.clone().unwrap()).unwrap();
    let mut tensors: Vec<TensorProto> = graph
        .initializer
        .iter()
        .map(|t| TensorProto::decode(t.clone()).unwrap())
        .collect();
    let mut nodes: Vec<NodeProto> = graph
        .node
        .iter()
        .map(|n| NodeProto::decode(n.clone()).unwrap())
        .collect();
    let old = tensors[0].name.clone().unwrap();
    let new_name = bytes::Bytes::from(megabyte_text());
    tensors[0].name = Some(new_name.clone());
    for input in nodes.iter_mut().flat_map(|n| n.input.iter_mut()) {
        if *input == old {
            *input = new_name.clone();
        }
    }
    nodes[0].name = Some(megabyte_bytes().into());
    for (i, t) in tensors.iter_mut().enumerate() {
        for entry in &mut t.external_data {
            if entry.key.as_deref() == Some(&b"location"[..]) {
                let location = if i == 0 {
                    megabyte_bytes()
                } else {
                    data_name.clone()
                };
                entry.value = Some(location.into());
            }
        }
        t.external_data.push(StringStringEntryProto {
            key: Some("checksum".into()),
            value: Some("0000000000000000000000000000000000000000".into()),
        });
    }
    graph.initializer = tensors.iter().map(|t| t.encode_to_vec().into()).collect();
    graph.node = nodes.iter().map(|n| n.encode_to_vec().into()).collect();
    m.graph = Some(graph.encode_to_vec().into());
    m.metadata_props.push(StringStringEntryProto {
        key: Some(hostile().into()),
        value: Some(hostile().into()),
    });
    std::fs::write(root.path().join(&model), m.encode_to_vec()).unwrap();
    Case {
        root,
        model,
        data_name,
    }
}

/// Runs rtenx in `dir`.
fn rtenx(dir: &Path, args: &[&OsStr]) -> Output {
    Command::cargo_bin("rtenx")
        .unwrap()
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

/// `bytes` as text, which must be UTF-8 and hold no control character but LF, no bidi
/// override and none of the [`INVISIBLE`] characters.
fn clean(what: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8(bytes.to_vec()).unwrap_or_else(|e| panic!("{what}: {e}"));
    let bad = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            || INVISIBLE.contains(c)
    };
    if let Some(at) = text.find(bad) {
        let from: String = text[at..].chars().take(40).collect();
        panic!("{what}: raw control at byte {at}: {from:?}");
    }
    text
}

/// A path written the JSON way, back to its bytes.
fn json_path(v: &Value) -> Vec<u8> {
    match v {
        Value::String(s) => s.clone().into_bytes(),
        _ => base64::engine::general_purpose::STANDARD
            .decode(
                v["bytes_base64"]
                    .as_str()
                    .expect("a string or bytes_base64"),
            )
            .unwrap(),
    }
}

/// `%XX` escapes decoded.
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn check_reports_stay_valid_and_hold_no_raw_controls() {
    let Case {
        root,
        model,
        data_name,
    } = case();
    let dir = root.path();
    let check = |format: &str| {
        let out = rtenx(
            dir,
            &[
                "check".as_ref(),
                "--verify-checksums".as_ref(),
                "--format".as_ref(),
                format.as_ref(),
                model.as_os_str(),
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{format}");
        clean(&format!("{format} stderr"), &out.stderr);
        clean(&format!("{format} report"), &out.stdout)
    };

    let json: Value = serde_json::from_str(&check("json")).unwrap();
    let file = &json["files"][0];
    assert_eq!(json_path(&file["path"]), model.as_os_str().as_bytes());
    let findings = file["findings"].as_array().unwrap();
    let dx009 = findings
        .iter()
        .find(|f| f["code"] == "DX009")
        .expect("a checksum mismatch");
    let data = json_path(&dx009["path"]);
    assert!(data.ends_with(&data_name), "{:?}", path(&data));

    let sarif: Value = serde_json::from_str(&check("sarif")).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    for (result, finding) in results.iter().zip(findings) {
        let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        let plain = |c: char| c.is_ascii_alphanumeric() || "-._~/%".contains(c);
        assert!(uri.chars().all(plain), "{uri}");
        assert_eq!(percent_decode(uri), json_path(&finding["path"]));
    }

    let github = check("github");
    let lines: Vec<&str> = github.lines().collect();
    assert_eq!(lines.len(), findings.len() + 1, "one line per annotation");
    for line in &lines[..findings.len()] {
        let (command, rest) = line.strip_prefix("::").unwrap().split_once(' ').unwrap();
        assert!(["error", "warning", "notice"].contains(&command), "{line}");
        let (properties, message) = rest.split_once("::").unwrap();
        let escapes = |s: &str, allowed: &[&str]| {
            s.match_indices('%')
                .all(|(at, _)| allowed.contains(&s.get(at + 1..at + 3).unwrap_or("")))
        };
        assert!(escapes(message, &["25", "0D", "0A"]), "{message}");
        let properties: Vec<&str> = properties.split(',').collect();
        assert_eq!(properties.len(), 2, "{line}");
        for p in &properties {
            assert!(escapes(p, &["25", "0D", "0A", "3A", "2C"]), "{p}");
        }
        let file = percent_decode(properties[0].strip_prefix("file=").unwrap());
        let file = String::from_utf8(file).unwrap();
        assert!(file.contains("\\u{1b}[2J") && file.contains("%0A::error::a,b:c"));
        assert!(file.contains('\r') && file.contains('\n'), "{file:?}");
    }
    assert!(lines[findings.len()].starts_with("rtenx: checked 1 file"));

    let text = check("text");
    assert!(text.contains("\\u{1b}]0;title\\u{7}"), "{text}");
    assert!(text.contains("\\u{202e}") && text.contains('\u{fffd}'));
    let invisible: String = INVISIBLE
        .chars()
        .map(|c| format!("\\u{{{:x}}}", u32::from(c)))
        .collect();
    assert!(text.contains(&invisible), "{text}");
}

#[test]
fn dump_writes_every_path_and_name_byte_for_byte() {
    let Case {
        root,
        model,
        data_name,
    } = case();
    let out = rtenx(root.path(), &["dump".as_ref(), model.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_str(&clean("dump", &out.stdout)).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(json_path(&files[0]["path"]), model.as_os_str().as_bytes());
    assert!(json_path(&files[1]["path"]).ends_with(&data_name));
    let named = |list: &Value, name: &[u8]| {
        let list = list.as_array().unwrap();
        list.iter().any(|item| json_path(&item["name"]) == name)
    };
    assert!(named(&doc["tensors"], &megabyte_text()));
    assert!(named(&doc["graphs"][0]["nodes"], &megabyte_bytes()));
    let metadata = doc["metadata"].as_array().unwrap();
    let entry = metadata.last().unwrap();
    assert_eq!(json_path(&entry["key"]), hostile());
}

#[test]
fn the_summary_and_complaints_hold_no_raw_controls() {
    let Case { root, model, .. } = case();
    let dir = root.path();
    let out = rtenx(dir, &["inspect".as_ref(), model.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    let summary = clean("summary", &out.stdout);
    assert!(summary.contains("\\u{1b}[2J"), "{summary}");

    // The folder holding the model, checked as a folder.
    let folder = model.parent().unwrap();
    let out = rtenx(dir, &["check".as_ref(), folder.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    clean("check DIR", &out.stdout);

    // A folder with no model, and a file that does not exist.
    let empty = path(&hostile_file("e", ""));
    std::fs::create_dir(dir.join(&empty)).unwrap();
    let out = rtenx(dir, &["check".as_ref(), empty.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = clean("check DIR stderr", &out.stderr);
    assert!(
        stderr.contains("no model files found under e\\u{1b}[2J"),
        "{stderr}"
    );
    let missing = path(&hostile_file("gone", ".onnx"));
    for command in ["dump", "inspect"] {
        let out = rtenx(dir, &[command.as_ref(), missing.as_os_str()]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = clean(&format!("{command} stderr"), &out.stderr);
        assert!(stderr.contains("gone\\u{1b}[2J"), "{stderr}");
    }
}
