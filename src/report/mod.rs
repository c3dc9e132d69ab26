//! `rtenx check` reports: one writer per output format, all over the same results.

mod github;
mod json;
mod sarif;
mod text;

use crate::analysis::Analysis;
use crate::check::{Counts, Finding};
use crate::source::OpenError;
use std::io::{self, Write};
use std::path::PathBuf;

/// The outcome for one file.
pub struct FileResult {
    /// The file as named or found.
    pub path: PathBuf,
    /// Its analysis, or why it could not be read.
    pub outcome: Result<Analysis, OpenError>,
}

impl FileResult {
    /// The findings, empty for unreadable files.
    pub fn findings(&self) -> &[Finding] {
        self.outcome.as_ref().map_or(&[], |a| &a.findings)
    }
}

/// Totals over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Files looked at.
    pub files: u64,
    /// Files that could not be opened.
    pub unreadable: u64,
    /// Findings by severity.
    #[serde(flatten)]
    pub counts: Counts,
}

impl Summary {
    /// Totals over `results`.
    pub fn of(results: &[FileResult]) -> Self {
        let mut s = Summary::default();
        for r in results {
            s.files += 1;
            match &r.outcome {
                Ok(a) => s.counts.merge(Counts::of(&a.findings)),
                Err(_) => s.unreadable += 1,
            }
        }
        s
    }
}

/// Output formats of `rtenx check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// Human-readable text.
    Text {
        /// Use ANSI colours.
        color: bool,
        /// Print every info finding, instead of the first few of each code per file.
        all_infos: bool,
    },
    /// One JSON document.
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

/// Writes the report for `results` in `format`.
pub fn write(format: ReportFormat, w: &mut dyn Write, results: &[FileResult]) -> io::Result<()> {
    match format {
        ReportFormat::Text { color, all_infos } => text::write(w, results, color, all_infos),
        ReportFormat::Json => json::write(w, results),
        ReportFormat::Sarif => sarif::write(w, results),
        ReportFormat::Github => github::write(w, results),
    }
}

impl std::fmt::Display for Summary {
    /// `3 files: 1 error, 2 warnings, 0 infos`, plus unreadable files if any.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        write!(
            f,
            "{}: {}, {}, {}",
            plural(self.files, "file"),
            plural(self.counts.errors, "error"),
            plural(self.counts.warnings, "warning"),
            plural(self.counts.infos, "info"),
        )?;
        if self.unreadable > 0 {
            write!(f, "; {} could not be read", plural(self.unreadable, "file"))?;
        }
        Ok(())
    }
}

/// Where a finding is, in words: the file's path and, when it has one, the item.
fn location(result: &FileResult, finding: &Finding) -> (String, Option<String>) {
    let analysis = result.outcome.as_ref().ok();
    let path = analysis
        .and_then(|a| a.inventory.files.get(finding.file))
        .map_or_else(
            || result.path.display().to_string(),
            |f| f.path.display().to_string(),
        );
    let item = finding
        .item
        .zip(analysis)
        .map(|(item, a)| item.describe(&a.inventory));
    (crate::text::sanitize(&path).into_owned(), item)
}
