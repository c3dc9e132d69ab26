//! Human-readable check output, in the style of compiler diagnostics.

use super::{location, FileResult, Summary};
use crate::check::Severity;
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

pub(super) fn write(w: &mut dyn Write, results: &[FileResult], color: bool) -> io::Result<()> {
    for result in results {
        if let Err(e) = &result.outcome {
            let label = paint(color, "1;31", "error");
            writeln!(
                w,
                "{label}: cannot read {}",
                crate::text::sanitize(&e.to_string())
            )?;
            continue;
        }
        for f in result.findings() {
            let (path, item) = location(result, f);
            let head = paint(
                color,
                severity_color(f.severity),
                &format!("{}[{}]", f.severity, f.rule.code),
            );
            writeln!(w, "{head}: {}", crate::text::sanitize(&f.message))?;
            let place = match f.offset {
                Some(o) => format!("{path} @ {o} (0x{o:x})"),
                None => path,
            };
            let arrow = paint(color, "1;34", "-->");
            match item {
                Some(item) => writeln!(w, "  {arrow} {place}, {item}")?,
                None => writeln!(w, "  {arrow} {place}")?,
            }
        }
    }
    writeln!(w, "checked {}", Summary::of(results))
}
