//! Human-readable check output, in the style of compiler diagnostics.

use super::fold::Folder;
use super::{FileResult, Summary};
use crate::check::Severity;
use crate::escape::{self, sanitize};
use std::io::{self, Write};

fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

fn severity_color(s: Severity) -> &'static str {
    match s {
        Severity::Error => "1;31",
        Severity::Warning => "1;33",
        Severity::Info => "1;36",
    }
}

pub(super) fn write(
    w: &mut dyn Write,
    results: &[FileResult],
    color: bool,
    all: bool,
) -> io::Result<()> {
    for result in results {
        if let Err(e) = &result.outcome {
            let label = paint(color, "1;31", "error");
            writeln!(w, "{label}: cannot read {}", sanitize(&e.to_string()))?;
            continue;
        }
        let mut folder = Folder::default();
        for (f, place) in result.placed() {
            if !all && !folder.show(f, &place.path) {
                continue;
            }
            let head = paint(
                color,
                severity_color(f.severity),
                &format!("{}[{}]", f.severity, f.rule.code),
            );
            writeln!(w, "{head}: {}", sanitize(&f.message))?;
            let path = escape::path(&place.path);
            let at = match f.offset {
                Some(o) => format!("{path} @ {o} (0x{o:x})"),
                None => path.into_owned(),
            };
            let arrow = paint(color, "1;34", "-->");
            match &place.item {
                Some(item) => writeln!(w, "  {arrow} {at}, {}", sanitize(item))?,
                None => writeln!(w, "  {arrow} {at}")?,
            }
        }
        for held in folder.held() {
            let head = paint(
                color,
                severity_color(held.severity),
                &format!("{}[{}]", held.severity, held.rule.code),
            );
            writeln!(
                w,
                "{head}: {} more like this in {} (--all shows them)",
                held.count,
                escape::path(held.path)
            )?;
        }
    }
    writeln!(w, "checked {}", Summary::of(results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Finding, Place};
    use crate::formats::onnx::rules::{EXTERNAL_OFFSET_UNALIGNED, OPSET_MISSING};
    use crate::inventory::{FileEntry, FileFormat, FileRole, Inventory};

    /// Text output for one file with five infos of one code and two errors of another.
    fn output(all: bool) -> String {
        let main = FileEntry {
            path: "m.onnx".into(),
            size: Some(0),
            role: FileRole::Model,
            identity: None,
        };
        let mut findings: Vec<Finding> = (0..5)
            .map(|i| Finding::new(&EXTERNAL_OFFSET_UNALIGNED, Place::FILE, format!("info {i}")))
            .collect();
        findings.extend(
            (0..2).map(|i| Finding::new(&OPSET_MISSING, Place::FILE, format!("error {i}"))),
        );
        let analysis = crate::Analysis {
            inventory: Inventory::new(FileFormat::Read("onnx"), "", main),
            findings,
        };
        let results = [FileResult::new("m.onnx".into(), Ok(analysis)).0];
        let mut out = Vec::new();
        write(&mut out, &results, false, all).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn findings_beyond_three_per_rule_are_counted_unless_asked_for() {
        let short = output(false);
        assert!(
            short.contains("info 2") && !short.contains("info 3"),
            "{short}"
        );
        assert!(short.contains("info[OX023]: 2 more like this in m.onnx (--all shows them)"));
        assert!(short.contains("error 0") && short.contains("error 1"));
        assert!(
            short.ends_with("checked 1 file: 2 errors, 0 warnings, 5 infos\n"),
            "{short}"
        );
        let all = output(true);
        assert!(
            all.contains("info 4") && !all.contains("more like this"),
            "{all}"
        );
    }
}
