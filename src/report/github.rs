//! GitHub Actions workflow commands: each finding becomes an annotation.

use super::baseline::Compared;
use super::fold::Folder;
use super::text::BaselineSummary;
use super::{FileResult, Root, Summary};
use crate::check::Severity;
use crate::escape::sanitize;
use std::io::{self, Write};

/// Escapes text for a workflow command as GitHub documents it: `%`, CR and LF as `%25`,
/// `%0D` and `%0A`, and in a property (`file=`, `title=`) also `:` and `,` as `%3A` and
/// `%2C`. Other control characters and bidi overrides are then escaped as in the text
/// report, so one annotation is one line and shows what the file holds.
fn escape(s: &str, property: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    sanitize(&out).into_owned()
}

/// A path as a `file=` property: relative to the root, as GitHub maps it to the repository.
fn file(root: &Root, path: &std::path::Path) -> String {
    escape(&root.show(path).to_string_lossy(), true)
}

pub(super) fn write(
    w: &mut dyn Write,
    results: &[FileResult],
    root: &Root,
    baseline: Option<&Compared>,
) -> io::Result<()> {
    for result in results {
        if let Err(e) = &result.outcome {
            let error = root.message(&e.to_string()).into_owned();
            writeln!(w, "::error title=rtenx::{}", escape(&error, false))?;
        }
        let mut folder = Folder::default();
        for (f, place) in result.placed() {
            if !folder.show(f, &place.path) {
                continue;
            }
            let command = command(f.severity);
            let mut message = root.message(&f.message).into_owned();
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
            if let Some(help) = f.rule.help() {
                message.push_str(&format!("\nhelp: {help}"));
            }
            writeln!(
                w,
                "::{command} file={},title={}::{}",
                file(root, &place.path),
                escape(&format!("{} {}", f.rule.code, f.rule.name), true),
                escape(&message, false)
            )?;
        }
        for held in folder.held() {
            writeln!(
                w,
                "::{} file={},title={}::{} more like this in this file (rtenx check --format json lists them all)",
                command(held.severity),
                file(root, held.path),
                escape(&format!("{} {}", held.rule.code, held.rule.name), true),
                held.count,
            )?;
        }
    }
    if let Some(compared) = baseline {
        writeln!(w, "rtenx: baseline: {}", BaselineSummary(compared))?;
    }
    writeln!(w, "rtenx: checked {}", Summary::of(results))
}

/// The workflow command for a severity.
fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_workflow_command_syntax_then_other_controls() {
        assert_eq!(escape("a:b,c%\n", true), "a%3Ab%2Cc%25%0A");
        assert_eq!(escape("a:b,c%\r", false), "a:b,c%25%0D");
        assert_eq!(
            escape("\x1b]0;t\x07\u{202e}%0A", false),
            "\\u{1b}]0;t\\u{7}\\u{202e}%250A"
        );
    }
}
