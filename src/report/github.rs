//! GitHub Actions workflow commands: each finding becomes an annotation.

use super::{FileResult, Summary};
use crate::check::Severity;
use std::io::{self, Write};

/// Escapes a message for a workflow command.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (also `:` and `,`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub(super) fn write(w: &mut dyn Write, results: &[FileResult]) -> io::Result<()> {
    for result in results {
        if let Err(e) = &result.outcome {
            writeln!(w, "::error title=rtenx::{}", escape_data(&e.to_string()))?;
        }
        for (f, place) in result.placed() {
            let command = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut message = f.message.clone();
            if let Some(offset) = f.offset {
                message.push_str(&format!(" (offset {offset}"));
                message.push_str(
                    &place
                        .item
                        .as_ref()
                        .map(|i| format!(", {i})"))
                        .unwrap_or_else(|| ")".into()),
                );
            }
            writeln!(
                w,
                "::{command} file={},title={}::{}",
                escape_property(&place.path),
                escape_property(&format!("{} {}", f.rule.code, f.rule.name)),
                escape_data(&message)
            )?;
        }
    }
    writeln!(w, "rtenx: checked {}", Summary::of(results))
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_workflow_command_syntax() {
        assert_eq!(super::escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
