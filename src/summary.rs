//! The text summary `rtenx inspect` prints when it is not on a terminal.

use crate::analysis::Analysis;
use crate::escape::sanitize;
use crate::inventory::display::describe;
use std::io::{self, Write};

/// How many findings the summary lists before it stops.
const MAX_FINDINGS: usize = 50;

/// Writes a summary of `analysis`.
pub fn write(w: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    for (i, part) in describe(&analysis.inventory).iter().enumerate() {
        if i > 0 {
            writeln!(w)?;
        }
        writeln!(w, "{}", part.heading)?;
        for line in &part.lines {
            writeln!(w, "  {line}")?;
        }
    }
    findings(w, analysis)
}

fn findings(w: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    let counts = crate::check::Counts::of(&analysis.findings);
    writeln!(
        w,
        "\nFindings: {} errors, {} warnings, {} infos",
        counts.errors, counts.warnings, counts.infos
    )?;
    for f in analysis.findings.iter().take(MAX_FINDINGS) {
        let at = f.offset.map(|o| format!(" @{o}")).unwrap_or_default();
        writeln!(
            w,
            "  {}[{}]{at} {}",
            f.severity,
            f.rule.code,
            sanitize(&f.message)
        )?;
    }
    if analysis.findings.len() > MAX_FINDINGS {
        writeln!(
            w,
            "  ... and {} more (run `rtenx check` for all)",
            analysis.findings.len() - MAX_FINDINGS
        )?;
    }
    Ok(())
}
