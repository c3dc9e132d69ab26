//! SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers.

use super::baseline::Compared;
use super::{FileResult, Root};
use crate::check::{Rule, Severity};
use crate::escape::sanitize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A rule as the tool's driver describes it.
fn rule(r: &Rule) -> Value {
    json!({
        "id": r.code,
        "name": r.name,
        "shortDescription": { "text": r.summary },
        "fullDescription": { "text": r.plain_explanation() },
        "defaultConfiguration": { "level": level(r.severity) },
        "help": {
            "text": format!("{}\n\nrtenx explain {}", r.plain_explanation(), r.code),
            "markdown": format!("{}\n\n`rtenx explain {}`", r.explanation(), r.code),
        },
    })
}

pub(super) fn write(
    w: &mut dyn Write,
    results: &[FileResult],
    root: &Root,
    baseline: Option<&Compared>,
) -> io::Result<()> {
    // Only the rules the results refer to, in the order they first appear.
    let mut rules = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    let mut notifications = Vec::new();
    for result in results {
        if let Err(e) = &result.outcome {
            let text = sanitize(&root.message(&e.to_string())).into_owned();
            notifications.push(json!({ "level": "error", "message": { "text": text } }));
        }
        for (f, place) in result.placed() {
            let rule_index = *index.entry(f.rule.code).or_insert_with(|| {
                rules.push(rule(f.rule));
                rules.len() - 1
            });
            let path = root.show(&place.path);
            let mut physical = json!({ "artifactLocation": { "uri": uri(&path) } });
            if let Some(offset) = f.offset {
                physical["region"] = json!({ "byteOffset": offset });
            }
            let mut loc = json!({ "physicalLocation": physical });
            if let Some(item) = &place.item {
                loc["logicalLocations"] = json!([{ "name": sanitize(item) }]);
            }
            let mut entry = json!({
                "ruleId": f.rule.code,
                "ruleIndex": rule_index,
                "level": level(f.severity),
                "message": { "text": sanitize(&root.message(&f.message)) },
                "locations": [loc],
                "partialFingerprints": { "rtenx/v2": place.fingerprint },
            });
            if baseline.is_some() {
                entry["baselineState"] = json!("new");
            }
            out.push(entry);
        }
    }
    let mut artifacts: Vec<Value> = results
        .iter()
        .flat_map(|r| &r.hashes)
        .map(|h| json!({ "location": { "uri": uri(&root.show(&h.path)) }, "hashes": { "sha-256": h.sha256 } }))
        .collect();
    // A remote file: its URL, and the SHA-256 and commit the Hub records for it.
    artifacts.extend(
        results
            .iter()
            .filter_map(|r| r.remote.as_ref())
            .map(|remote| {
                let mut artifact = json!({
                    "location": { "uri": remote.url },
                    "length": remote.size,
                    "properties": { "commit": remote.commit },
                });
                if let Some(sha) = &remote.sha256 {
                    artifact["hashes"] = json!({ "sha-256": sha });
                }
                artifact
            }),
    );
    let mut doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "rtenx",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": out,
        }],
    });
    if !artifacts.is_empty() {
        doc["runs"][0]["artifacts"] = Value::Array(artifacts);
    }
    crate::escape::write_json(&mut *w, &doc, true)?;
    writeln!(w)
}

/// `path` as a relative or absolute-path URI reference (RFC 3986): every byte but the
/// unreserved characters and `/` is percent-encoded, so a space, `#`, `?` or `%` stays part
/// of the path, a `:` cannot read as a scheme, and bytes that are not UTF-8 are kept.
pub fn uri(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;
    use std::path::Path;

    #[test]
    fn uris_are_percent_encoded_paths() {
        assert_eq!(
            uri(Path::new("m/a b#c?d%41.rten")),
            "m/a%20b%23c%3Fd%2541.rten"
        );
        assert_eq!(uri(Path::new("/abs/x:y")), "/abs/x%3Ay");
        assert_eq!(uri(Path::new("é")), "%C3%A9");
    }

    #[cfg(unix)]
    #[test]
    fn bytes_that_are_not_utf8_are_encoded_as_bytes() {
        use std::os::unix::ffi::OsStrExt;
        assert_eq!(
            uri(Path::new(std::ffi::OsStr::from_bytes(b"w\xff"))),
            "w%FF"
        );
    }
}
