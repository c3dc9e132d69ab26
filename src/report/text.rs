//! Human-readable check output, in the style of compiler diagnostics.

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

/// Infos of one code printed per file before the rest are only counted.
const INFOS_SHOWN: usize = 3;

pub(super) fn write(
    w: &mut dyn Write,
    results: &[FileResult],
    color: bool,
    all_infos: bool,
) -> io::Result<()> {
    for result in results {
        if let Err(e) = &result.outcome {
            let label = paint(color, "1;31", "error");
            writeln!(w, "{label}: cannot read {}", sanitize(&e.to_string()))?;
            continue;
        }
        // Infos held back, by code, in the order their codes first appear.
        let mut held: Vec<(&str, usize)> = Vec::new();
        for (f, place) in result.placed() {
            if f.severity == Severity::Info && !all_infos {
                let index = match held.iter().position(|(code, _)| *code == f.rule.code) {
                    Some(i) => i,
                    None => {
                        held.push((f.rule.code, 0));
                        held.len() - 1
                    }
                };
                held[index].1 += 1;
                if held[index].1 > INFOS_SHOWN {
                    continue;
                }
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
        for (code, seen) in held {
            if seen > INFOS_SHOWN {
                let head = paint(
                    color,
                    severity_color(Severity::Info),
                    &format!("info[{code}]"),
                );
                let more = seen - INFOS_SHOWN;
                writeln!(
                    w,
                    "{head}: {more} more like this in this file (--all-infos shows them)"
                )?;
            }
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
    fn output(all_infos: bool) -> String {
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
        write(&mut out, &results, false, all_infos).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn infos_beyond_three_per_code_are_counted_unless_asked_for() {
        let short = output(false);
        assert!(
            short.contains("info 2") && !short.contains("info 3"),
            "{short}"
        );
        assert!(short.contains("info[OX023]: 2 more like this in this file"));
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
