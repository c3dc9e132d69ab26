//! `rtenx check` reports: one writer per output format, all over the same results.

pub mod baseline;
mod fold;
mod github;
mod json;
mod root;
mod sarif;
mod text;

pub use root::Root;
pub use sarif::uri;

use crate::analysis::Analysis;
use crate::check::{Counts, Finding, Item, Severity};
use crate::inventory::{FileFormat, FileId, Inventory};
use crate::source::OpenError;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::PathBuf;

/// The outcome for one file, reduced to what a report prints: the inventory is dropped once
/// the findings are placed, so a run over many models holds only their findings.
pub struct FileResult {
    /// The file as named or found.
    pub path: PathBuf,
    /// What checking it found, or why it could not be read.
    pub outcome: Result<Checked, OpenError>,
    /// With `--hash sha256`: the digest of the model and of each of its data files.
    pub hashes: Vec<FileHash>,
    /// For a remote file: its URL, what its server said of it, and what it cost.
    pub remote: Option<crate::source::Provenance>,
}

/// A file's SHA-256, and what `--expect-hub` holds it to besides.
pub struct FileHash {
    /// The file, as the OS names it.
    pub path: PathBuf,
    /// Lower-case hex.
    pub sha256: String,
    /// Its size in bytes, as hashed.
    pub size: u64,
    /// Its git blob id (lower-case hex), when asked for and small enough to be stored in
    /// git rather than LFS.
    pub git_blob: Option<String>,
}

/// A checked file's format and findings, each with its place in words.
pub struct Checked {
    /// Format name, such as `onnx`.
    pub format: &'static str,
    /// Whether rtenx read the file: one in a format it only recognises (RX017), or past a
    /// budget (RX018, RX019), was not checked, and makes the run fail as one that could not be
    /// read does.
    pub read: bool,
    /// Format version, such as `IR v10`.
    pub format_version: String,
    /// Findings, ordered by file and offset.
    pub findings: Vec<Finding>,
    /// What was read beside the model and what its loader would say, for a model that is
    /// more than one file or has a verdict ([`crate::inventory::display::checked_note`]).
    pub note: Option<String>,
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
    /// Whether the finding is about something loading runs as code ([`Trust::runs_code`](
    /// crate::inventory::Trust::runs_code)): an error of this kind makes the file unsafe.
    pub runs_code: bool,
}

impl FileResult {
    /// The result for the file named `path`, placing each finding of its analysis. The
    /// inventory, which the report no longer needs, is handed back for the caller to free.
    pub fn new(path: PathBuf, outcome: Result<Analysis, OpenError>) -> (Self, Option<Inventory>) {
        let (outcome, inventory) = match outcome {
            Ok(a) => {
                let code = RunsCode::of(&a.inventory);
                let places = (a.findings.iter())
                    .map(|f| place(&path, &a, f, &code))
                    .collect();
                let checked = Checked {
                    format: a.inventory.format.name(),
                    read: !matches!(a.inventory.format, FileFormat::NotRead(_)),
                    format_version: a.inventory.format_version.clone(),
                    note: crate::inventory::display::checked_note(&a.inventory),
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
            remote: None,
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
            runs_code: false,
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

    /// What the findings make of the file.
    pub fn verdict(&self) -> Verdict {
        let checked = match &self.outcome {
            Ok(c) if c.read => c,
            _ => return Verdict::NotChecked,
        };
        let runs_code =
            |(f, place): (&Finding, &Place)| f.severity == Severity::Error && place.runs_code;
        if self.placed().any(runs_code) {
            return Verdict::Unsafe;
        }
        match checked.findings.iter().map(|f| f.severity).max() {
            Some(Severity::Error) => Verdict::Errors,
            Some(Severity::Warning) => Verdict::Warnings,
            _ => Verdict::Clean,
        }
    }
}

/// What a check makes of one file, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// An error says that loading it runs code.
    Unsafe,
    /// Errors, none of which says that.
    Errors,
    /// Warnings and no errors.
    Warnings,
    /// Nothing worse than infos.
    Clean,
    /// Not read: it could not be opened, is in a format rtenx does not read, or was past a
    /// budget.
    NotChecked,
}

/// Files by verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Verdicts {
    /// [`Verdict::Unsafe`].
    #[serde(rename = "unsafe")]
    pub unsafe_: u64,
    /// [`Verdict::Errors`].
    pub with_errors: u64,
    /// [`Verdict::Warnings`].
    pub with_warnings: u64,
    /// [`Verdict::Clean`].
    pub clean: u64,
    /// [`Verdict::NotChecked`].
    pub not_checked: u64,
}

impl Verdicts {
    fn add(&mut self, verdict: Verdict) {
        *match verdict {
            Verdict::Unsafe => &mut self.unsafe_,
            Verdict::Errors => &mut self.with_errors,
            Verdict::Warnings => &mut self.with_warnings,
            Verdict::Clean => &mut self.clean,
            Verdict::NotChecked => &mut self.not_checked,
        } += 1;
    }
}

/// The places of the imports of an inventory that run code, to tell which findings are
/// about one: by their item, or, for a finding whose item is something else (the array a
/// pickled object is in), by their byte.
struct RunsCode(HashSet<(FileId, u64)>);

impl RunsCode {
    fn of(inv: &Inventory) -> Self {
        let imports = inv.imports.iter().filter(|i| i.trust.runs_code());
        RunsCode(imports.map(|i| (i.file, i.offset)).collect())
    }

    fn about(&self, finding: &Finding, inv: &Inventory) -> bool {
        if let Some(Item::Import { import }) = finding.item {
            return inv.imports.get(import).is_some_and(|i| i.trust.runs_code());
        }
        (finding.offset).is_some_and(|at| self.0.contains(&(finding.file, at)))
    }
}

/// Totals over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Files looked at.
    pub files: u64,
    /// Files that could not be opened.
    pub unreadable: u64,
    /// Files opened but not read: in a format rtenx recognises but does not read, or past a
    /// budget.
    pub unchecked: u64,
    /// Findings by severity.
    #[serde(flatten)]
    pub counts: Counts,
    /// Files by verdict.
    pub verdicts: Verdicts,
}

impl Summary {
    /// Totals over `results`.
    pub fn of(results: &[FileResult]) -> Self {
        let mut s = Summary::default();
        for r in results {
            s.files += 1;
            s.verdicts.add(r.verdict());
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

/// Writes the report for `results` in `format`, with paths relative to the working directory.
pub fn write(
    format: ReportFormat,
    w: &mut dyn Write,
    results: &mut [FileResult],
) -> io::Result<()> {
    write_with(format, w, results, &Root::cwd(), None)
}

/// Like [`write`], with paths shown relative to `root`, and what comparing the findings with a
/// baseline gave. The JSON and SARIF reports carry fingerprints: findings that no baseline has
/// fingerprinted get theirs here, relative to `root`. Text and GitHub reports need none, and
/// skip the cost (a SHA-256 per finding).
pub fn write_with(
    format: ReportFormat,
    w: &mut dyn Write,
    results: &mut [FileResult],
    root: &Root,
    baseline: Option<&baseline::Compared>,
) -> io::Result<()> {
    if matches!(format, ReportFormat::Json | ReportFormat::Sarif) {
        let unset = |r: &&mut FileResult| r.placed().any(|(_, place)| place.fingerprint.is_empty());
        for result in results.iter_mut().filter(unset) {
            baseline::fingerprint(std::slice::from_mut(result), root);
        }
    }
    match format {
        ReportFormat::Text { color, all } => text::write(w, results, root, color, all, baseline),
        ReportFormat::Json => json::write(w, results, root, baseline),
        ReportFormat::Sarif => sarif::write(w, results, root, baseline),
        ReportFormat::Github => github::write(w, results, root, baseline),
    }
}

/// `n word`, with an `s` unless `n` is 1.
pub fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

impl std::fmt::Display for Summary {
    /// `1 file: 1 error, 2 warnings, 0 infos`, plus an unreadable or unchecked file; over
    /// several files, the files by verdict first: `3 files: 0 unsafe, 1 with errors, 1 with
    /// warnings, 1 clean (1 error, 2 warnings, 0 infos)`, plus the files not checked.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let findings = format!(
            "{}, {}, {}",
            plural(self.counts.errors, "error"),
            plural(self.counts.warnings, "warning"),
            plural(self.counts.infos, "info"),
        );
        let files = plural(self.files, "file");
        if self.files > 1 {
            let v = &self.verdicts;
            write!(
                f,
                "{files}: {} unsafe, {} with errors, {} with warnings, {} clean",
                v.unsafe_, v.with_errors, v.with_warnings, v.clean
            )?;
            if v.not_checked > 0 {
                write!(f, ", {} not checked", v.not_checked)?;
            }
            return write!(f, " ({findings})");
        }
        write!(f, "{files}: {findings}")?;
        if self.unreadable > 0 {
            write!(f, "; {} could not be read", plural(self.unreadable, "file"))?;
        }
        if self.unchecked > 0 {
            let was = if self.unchecked == 1 { "was" } else { "were" };
            write!(f, "; {} {was} not checked", plural(self.unchecked, "file"))?;
        }
        Ok(())
    }
}

/// Where `finding` of the analysis of the file named `path` is, in words.
fn place(path: &std::path::Path, analysis: &Analysis, finding: &Finding, code: &RunsCode) -> Place {
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
        runs_code: code.about(finding, inv),
    }
}
