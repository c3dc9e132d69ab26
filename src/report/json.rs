//! The JSON check report.
//!
//! Top level: `{"version": 1, "files": [...], "summary": {...}}`. Each file has `path`,
//! `format`, `format_version`, `error` (null unless unreadable) and `findings`, each with
//! `code`, `name`, `severity`, `path`, `offset`, `item`, `item_description`, `message` and
//! `fingerprint`; with `--hash`, a file has `hashes`; a remote file has `remote` (its URL,
//! the Hub's commit and SHA-256, its size, the bytes and requests it cost); with `--baseline` the report has
//! `baseline`. The summary counts findings by severity and files by verdict.
//! Paths are relative to the root where they are below it, and otherwise kept byte for byte
//! ([`JsonPath`]). `schemas/check.schema.json` describes it. New fields may be added in a
//! version; removing or changing one bumps `version`.

use super::baseline::Compared;
use super::{FileResult, Root, Summary};
use crate::escape::JsonPath;
use serde_json::{json, Value};
use std::io::{self, Write};

/// Version of the check report layout.
pub const VERSION: u32 = 1;

pub(super) fn write(
    w: &mut dyn Write,
    results: &[FileResult],
    root: &Root,
    baseline: Option<&Compared>,
) -> io::Result<()> {
    let files: Vec<Value> = results.iter().map(|r| file(r, root)).collect();
    let mut doc = json!({ "version": VERSION, "files": files, "summary": Summary::of(results) });
    if let Some(compared) = baseline {
        doc["baseline"] = json!({ "matched": compared.matched, "fixed": compared.fixed });
    }
    crate::escape::write_json(&mut *w, &doc, true)?;
    writeln!(w)
}

fn file(result: &FileResult, root: &Root) -> Value {
    let findings: Vec<Value> = result
        .placed()
        .map(|(f, place)| {
            json!({
                "code": f.rule.code,
                "name": f.rule.name,
                "severity": f.severity,
                "path": JsonPath(&root.show(&place.path)),
                "offset": f.offset,
                "item": f.item,
                "item_description": place.item,
                "message": root.message(&f.message),
                "fingerprint": place.fingerprint,
            })
        })
        .collect();
    let (format, version) = result.outcome.as_ref().map_or((None, None), |c| {
        (Some(c.format), Some(c.format_version.as_str()))
    });
    let mut entry = json!({
        "path": JsonPath(&root.show(&result.path)),
        "format": format,
        "format_version": version,
        "error": result.outcome.as_ref().err().map(|e| root.message(&e.to_string()).into_owned()),
        "findings": findings,
    });
    if !result.hashes.is_empty() {
        let hashes = result
            .hashes
            .iter()
            .map(|h| json!({ "path": JsonPath(&root.show(&h.path)), "sha256": h.sha256 }));
        entry["hashes"] = hashes.collect();
    }
    if let Some(remote) = &result.remote {
        entry["remote"] = json!(remote);
    }
    entry
}
