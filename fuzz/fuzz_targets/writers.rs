//! Any bytes, analysed (as `model` in an empty folder, so detection alone picks the format),
//! then written by every writer: `dump --json`, the `inspect` text summary and each `check`
//! report format. JSON output must parse and agree with the analysis; text output must hold
//! no character that `rtenx::escape::sanitize` would escape, other than newlines (and the
//! writer's own colour codes when colour is on).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::report::{self, FileResult, ReportFormat};
use rtenx::source::ModelFile;
use serde_json::Value;

#[derive(serde::Deserialize)]
struct Sarif {
    version: String,
    runs: Vec<SarifRun>,
}

#[derive(serde::Deserialize)]
struct SarifRun {
    results: Vec<serde::de::IgnoredAny>,
}

/// How a GitHub annotation that counts the findings held back ends, after the count.
const MORE_LIKE_THIS: &str =
    " more like this in this file (rtenx check --format json lists them all)";

fn parse(what: &str, out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"))
}

fn len(v: &Value) -> usize {
    v.as_array().map_or(usize::MAX, Vec::len)
}

fuzz_target!(|data: &[u8]| {
    let path = common::empty_dir().join("model");
    let file = ModelFile::in_memory(&path, data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    common::check_analysis(data, &analysis);
    let findings = analysis.findings.len();

    let mut out = Vec::new();
    rtenx::json_dump::write(&mut out, &analysis).expect("dump --json");
    let dump = parse("dump --json", &out);
    assert_eq!(dump["schema_version"], 1);
    assert_eq!(dump["files"][0]["size"], data.len() as u64);
    assert_eq!(len(&dump["findings"]), findings, "dump --json findings");
    assert_eq!(dump["format"], analysis.inventory.format.name());

    out.clear();
    rtenx::summary::write(&mut out, &analysis).expect("summary");
    common::check_text("summary", &out, false);

    let (result, _inventory) = FileResult::new(path, Ok(analysis));
    let mut results = [result];
    let formats = [
        ReportFormat::Text {
            color: false,
            all: true,
        },
        ReportFormat::Text {
            color: true,
            all: false,
        },
        ReportFormat::Json,
        ReportFormat::Sarif,
        ReportFormat::Github,
    ];
    for format in formats {
        out.clear();
        report::write(format, &mut out, &mut results).expect("report");
        let what = format!("{format:?}");
        match format {
            ReportFormat::Text { color, .. } => common::check_text(&what, &out, color),
            ReportFormat::Json => {
                let doc = parse(&what, &out);
                assert_eq!(doc["version"], 1);
                assert_eq!(len(&doc["files"]), 1);
                assert_eq!(
                    len(&doc["files"][0]["findings"]),
                    findings,
                    "{what} findings"
                );
                assert_eq!(doc["summary"]["files"], 1);
            }
            ReportFormat::Sarif => {
                // Typed, so that the fixed rule table is skipped rather than built: it is
                // the same for every input, and parsing it into a `Value` took a third of
                // each run.
                let doc: Sarif = serde_json::from_slice(&out)
                    .unwrap_or_else(|e| panic!("{what}: not SARIF JSON: {e}"));
                assert_eq!(doc.version, "2.1.0");
                assert_eq!(doc.runs.len(), 1);
                assert_eq!(doc.runs[0].results.len(), findings, "{what} results");
            }
            ReportFormat::Github => {
                common::check_text(&what, &out, false);
                let text = std::str::from_utf8(&out).unwrap();
                let lines: Vec<&str> = text.lines().collect();
                let (last, commands) = lines.split_last().expect("a summary line");
                assert!(last.starts_with("rtenx: checked 1 file"), "{what}: {last}");
                // The first few findings of a rule in a file are annotations of their own and
                // the rest one annotation that counts them: every finding is in one or the other.
                let mut annotated = 0;
                for line in commands {
                    assert!(
                        line.starts_with("::"),
                        "{what}: not a workflow command: {line}"
                    );
                    let message = line.splitn(3, "::").nth(2).unwrap_or_default();
                    annotated += message
                        .strip_suffix(MORE_LIKE_THIS)
                        .and_then(|count| count.parse::<usize>().ok())
                        .unwrap_or(1);
                }
                assert_eq!(
                    annotated, findings,
                    "{what}: every finding annotated or counted"
                );
            }
        }
    }
});
