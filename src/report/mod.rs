//! `rtenx check` reports: one writer per output format, all over the same results.

pub mod baseline;
mod fold;
mod github;
mod json;
mod sarif;
mod text;

use crate::analysis::Analysis;
use crate::check::{Counts, Finding};
use crate::inventory::{FileFormat, Inventory};
use crate::source::OpenError;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The outcome for one file, reduced to what a report prints: the inventory is dropped once
/// the findings are placed, so a run over many models holds only their findings.
pub struct FileResult {
    /// The file as named or found.
    pub path: PathBuf,
    /// What checking it found, or why it could not be read.
    pub outcome: Result<Checked, OpenError>,
    /// With `--hash sha256`: the digest of the model and of each of its data files.
    pub hashes: Vec<FileHash>,
}

/// A file's SHA-256.
pub struct FileHash {
    /// The file, as the OS names it.
    pub path: PathBuf,
    /// Lower-case hex.
    pub sha256: String,
}

/// A checked file's format and findings, each with its place in words.
pub struct Checked {
    /// Format name, such as `onnx`.
    pub format: &'static str,
    /// Whether the format is one rtenx reads: a file in a format it only recognises was
    /// not checked, and makes the run fail as one that could not be read does.
    pub read: bool,
    /// Format version, such as `IR v10`.
    pub format_version: String,
    /// Findings, ordered by file and offset.
    pub findings: Vec<Finding>,
    /// Where each finding is, in the same order.
    places: Vec<Place>,
}

/// Where a finding is: the path of its file and, when it has one, its item in words. Each
/// writer escapes both for its own reader.
pub struct Place {
    /// The file, as the OS names it.
    pub path: PathBuf,
    /// The node, tensor or other item, described with its name.
    pub item: Option<String>,
    /// The item by what identifies it across unrelated edits (names, not indices or offsets),
    /// for fingerprints; empty for a finding without an item, which its message identifies
    /// instead ([`baseline::fingerprint`]).
    pub identity: String,
    /// The finding's fingerprint, once [`baseline::fingerprint`] has set it: for a baseline,
    /// or for a report that shows it.
    pub fingerprint: String,
}

impl FileResult {
    /// The result for the file named `path`, placing each finding of its analysis. The
    /// inventory, which the report no longer needs, is handed back for the caller to free.
    pub fn new(path: PathBuf, outcome: Result<Analysis, OpenError>) -> (Self, Option<Inventory>) {
        let (outcome, inventory) = match outcome {
            Ok(a) => {
                let places = a.findings.iter().map(|f| place(&path, &a, f)).collect();
                let checked = Checked {
                    format: a.inventory.format.name(),
                    read: !matches!(a.inventory.format, FileFormat::NotRead(_)),
                    format_version: a.inventory.format_version.clone(),
                    findings: a.findings,
                    places,
                };
                (Ok(checked), Some(a.inventory))
            }
            Err(e) => (Err(e), None),
        };
        let result = FileResult {
            path,
            outcome,
            hashes: Vec::new(),
        };
        (result, inventory)
    }

    /// Adds `finding`, about the model file as a whole, in its place among its findings
    /// (which are ordered by file and offset). A file that could not be read has no
    /// findings: the finding is handed back.
    pub fn add(&mut self, finding: Finding) -> Result<(), Finding> {
        let Ok(checked) = &mut self.outcome else {
            return Err(finding);
        };
        let key = |f: &Finding| (f.file, f.offset.is_none(), f.offset, f.rule.code);
        let at = checked
            .findings
            .partition_point(|f| key(f) <= key(&finding));
        let place = Place {
            path: self.path.clone(),
            item: None,
            identity: String::new(),
            fingerprint: String::new(),
        };
        checked.findings.insert(at, finding);
        checked.places.insert(at, place);
        Ok(())
    }

    /// The findings, empty for unreadable files.
    pub fn findings(&self) -> &[Finding] {
        self.outcome.as_ref().map_or(&[], |c| &c.findings)
    }

    /// Each finding with its place.
    pub fn placed(&self) -> impl Iterator<Item = (&Finding, &Place)> {
        self.outcome
            .as_ref()
            .map(|c| c.findings.iter().zip(&c.places))
            .into_iter()
            .flatten()
    }
}

/// Totals over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Files looked at.
    pub files: u64,
    /// Files that could not be opened.
    pub unreadable: u64,
    /// Files in a format rtenx recognises but does not read, so not checked.
    pub unchecked: u64,
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
                Ok(c) => {
                    s.counts.merge(Counts::of(&c.findings));
                    s.unchecked += u64::from(!c.read);
                }
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
        /// Print every finding, instead of the first few of each rule per file.
        all: bool,
    },
    /// One JSON document.
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

/// Writes the report for `results` in `format`.
pub fn write(
    format: ReportFormat,
    w: &mut dyn Write,
    results: &mut [FileResult],
) -> io::Result<()> {
    write_with(format, w, results, None)
}

/// Like [`write`], with what comparing the findings with a baseline gave. The JSON and SARIF
/// reports carry fingerprints: findings that no baseline has fingerprinted get theirs here,
/// relative to the working directory. Text and GitHub reports need none, and skip the cost
/// (a SHA-256 per finding).
pub fn write_with(
    format: ReportFormat,
    w: &mut dyn Write,
    results: &mut [FileResult],
    baseline: Option<&baseline::Compared>,
) -> io::Result<()> {
    if matches!(format, ReportFormat::Json | ReportFormat::Sarif) {
        let unset = |r: &&mut FileResult| r.placed().any(|(_, place)| place.fingerprint.is_empty());
        for result in results.iter_mut().filter(unset) {
            baseline::fingerprint(std::slice::from_mut(result), Path::new("."));
        }
    }
    match format {
        ReportFormat::Text { color, all } => text::write(w, results, color, all, baseline),
        ReportFormat::Json => json::write(w, results, baseline),
        ReportFormat::Sarif => sarif::write(w, results, baseline),
        ReportFormat::Github => github::write(w, results, baseline),
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
        if self.unchecked > 0 {
            let was = if self.unchecked == 1 { "was" } else { "were" };
            let files = plural(self.unchecked, "file");
            write!(
                f,
                "; {files} in a format rtenx does not read {was} not checked"
            )?;
        }
        Ok(())
    }
}

/// Where `finding` of the analysis of the file named `path` is, in words.
fn place(path: &Path, analysis: &Analysis, finding: &Finding) -> Place {
    let path = analysis
        .inventory
        .files
        .get(finding.file)
        .map_or(path, |f| f.path.as_path());
    let inv = &analysis.inventory;
    Place {
        path: path.to_owned(),
        item: finding.item.map(|item| item.describe(inv)),
        identity: finding
            .item
            .map(|item| item.identity(inv))
            .unwrap_or_default(),
        fingerprint: String::new(),
    }
}
