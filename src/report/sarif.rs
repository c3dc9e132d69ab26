//! SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers.

use super::FileResult;
use crate::check::Severity;
use crate::formats::registry;
use serde_json::{json, Value};
use std::io::{self, Write};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub(super) fn write(w: &mut dyn Write, results: &[FileResult]) -> io::Result<()> {
    let rules: Vec<Value> = registry::rules()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.explanation },
                "defaultConfiguration": { "level": level(r.severity) },
                "help": { "text": format!("rtenx explain {}", r.code) },
            })
        })
        .collect();
    let mut out = Vec::new();
    let mut notifications = Vec::new();
    for result in results {
        if let Err(e) = &result.outcome {
            notifications.push(json!({ "level": "error", "message": { "text": e.to_string() } }));
        }
        for (f, place) in result.placed() {
            let mut physical = json!({ "artifactLocation": { "uri": place.path } });
            if let Some(offset) = f.offset {
                physical["region"] = json!({ "byteOffset": offset });
            }
            let mut loc = json!({ "physicalLocation": physical });
            if let Some(item) = &place.item {
                loc["logicalLocations"] = json!([{ "name": item }]);
            }
            out.push(json!({
                "ruleId": f.rule.code,
                "level": level(f.severity),
                "message": { "text": f.message },
                "locations": [loc],
            }));
        }
    }
    let doc = json!({
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
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    writeln!(w)
}
