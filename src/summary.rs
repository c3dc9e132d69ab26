//! The model's summary, part by part: the text `rtenx inspect` prints when it is not on a
//! terminal, and the browser's Overview.

use crate::analysis::Analysis;
use crate::check::Counts;
use crate::diff::Diff;
use crate::escape::sanitize;
use crate::inventory::display::{describe, Part};
use std::io::{self, Write};

/// How many findings the summary lists before it stops.
const MAX_FINDINGS: usize = 50;

/// The summary of `analysis`: the model described (with the findings counted under the file),
/// then the first findings; `rest` says where the others are. With `diff` (another model as
/// A, this one as B), what it found comes first.
pub fn parts(analysis: &Analysis, diff: Option<&Diff>, rest: &str) -> Vec<Part> {
    let counts = Counts::of(&analysis.findings);
    let counted = format!(
        "{} errors, {} warnings, {} infos",
        counts.errors, counts.warnings, counts.infos
    );
    let mut parts: Vec<Part> = diff.map(crate::diff::text::part).into_iter().collect();
    let start = parts.len();
    parts.extend(describe(&analysis.inventory));
    if let Some(file) = parts.get_mut(start) {
        file.lines.push(format!("findings {counted} (tab 6)"));
    }
    let mut lines: Vec<String> = (analysis.findings.iter().take(MAX_FINDINGS))
        .map(|f| {
            let at = f.offset.map(|o| format!(" @{o}")).unwrap_or_default();
            let message = sanitize(&f.message);
            format!("{}[{}]{at} {message}", f.severity, f.rule.code)
        })
        .collect();
    if analysis.findings.len() > MAX_FINDINGS {
        let more = analysis.findings.len() - MAX_FINDINGS;
        lines.push(format!("... and {more} more ({rest})"));
    }
    parts.push(Part {
        heading: format!("Findings: {counted}"),
        lines,
    });
    parts
}

/// Writes a summary of `analysis`.
pub fn write(w: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    write_compared(w, analysis, None)
}

/// Writes a summary of `analysis`, after what `diff` (as for [`parts`]) found.
pub fn write_compared(
    w: &mut dyn Write,
    analysis: &Analysis,
    diff: Option<&Diff>,
) -> io::Result<()> {
    for (i, part) in parts(analysis, diff, "run `rtenx check` for all")
        .iter()
        .enumerate()
    {
        if i > 0 {
            writeln!(w)?;
        }
        writeln!(w, "{}", part.heading)?;
        for line in &part.lines {
            writeln!(w, "  {line}")?;
        }
    }
    Ok(())
}
