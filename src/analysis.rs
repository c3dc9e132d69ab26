//! The pipeline: open, detect, read, run the format-neutral rules.

use crate::check::{generic, Counts, Finding, Findings, Place, Severity};
use crate::formats::registry::{self, Detected};
use crate::formats::ReadOptions;
use crate::inventory::{FileFormat, Inventory};
use crate::source::{ModelFile, OpenError};
use std::path::Path;

/// Everything known about one model file.
#[derive(Debug)]
pub struct Analysis {
    /// The inventory.
    pub inventory: Inventory,
    /// Findings, ordered by file and offset.
    pub findings: Vec<Finding>,
}

impl Analysis {
    /// How many findings there are of each severity.
    pub fn counts(&self) -> Counts {
        Counts::of(&self.findings)
    }

    /// Whether any finding is an error: what makes `rtenx check` exit with 1.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// Opens, reads and checks the model file at `path`, and the data files it refers to.
///
/// Problems in the model are findings, not errors: `Err` means the file could not be read at
/// all (it is missing, not a regular file, or changed while it was read).
pub fn analyze(path: &Path) -> Result<Analysis, OpenError> {
    analyze_with(path, &ReadOptions::default())
}

/// Like [`analyze`], with options: data files to pair with the model, checksum verification.
///
/// ```
/// use rtenx::{analyze_with, ReadOptions};
/// use std::path::Path;
///
/// // An ExecuTorch program whose weights live in a separate `.ptd` file.
/// let dir = Path::new("tests/fixtures/executorch/external");
/// let data = [dir.join("_default_external_constant.ptd")];
/// let options = ReadOptions { data: &data, ..ReadOptions::default() };
/// let analysis = analyze_with(&dir.join("linear.pte"), &options)?;
/// assert_eq!(analysis.inventory.files.len(), 2);
/// assert_eq!(analysis.counts().errors, 0);
/// # Ok::<(), rtenx::OpenError>(())
/// ```
pub fn analyze_with(path: &Path, options: &ReadOptions) -> Result<Analysis, OpenError> {
    analyze_opened(&ModelFile::open(path)?, options)
}

/// Times a remote file is read again for the holes its reading met (see
/// [`crate::source::sparse`]) before it is given up as needing more than its fetch plan.
const ROUNDS: usize = 32;

/// Like [`analyze_file_with`], and refuses what was read if the file changed meanwhile. A
/// remote file is read again, after fetching them, while its reading meets bytes that were
/// not fetched, so that nothing is judged from a hole.
///
/// A remote file's values (`--values`) are read once its reading needs nothing more, in a
/// last reading that fetches them range by range; one that still met a hole is an error.
pub fn analyze_opened(file: &ModelFile, options: &ReadOptions) -> Result<Analysis, OpenError> {
    let values = options.values.as_ref().filter(|_| file.is_remote());
    let structure = ReadOptions {
        values: None,
        ..*options
    };
    let unfetched = |why: String| OpenError::Remote {
        url: file.path().display().to_string(),
        cause: why,
    };
    for _ in 0..ROUNDS {
        let analysis = analyze_file_with(
            file,
            if values.is_some() {
                &structure
            } else {
                options
            },
        );
        // What was read from a file that changed meanwhile describes no file at all.
        if let Some(change) = file.changed() {
            return Err(change);
        }
        if file.fetch_touched()? {
            continue;
        }
        if values.is_none() {
            return Ok(analysis);
        }
        let analysis = analyze_file_with(file, options);
        return match file.fetch_touched()? {
            false => Ok(analysis),
            true => Err(unfetched(
                "reading its values met bytes not fetched; not checked".to_owned(),
            )),
        };
    }
    Err(unfetched(format!("its reading still met bytes not fetched after {ROUNDS} rounds of fetching them; not checked")))
}

/// Reads and checks an already opened model file.
pub fn analyze_file(file: &ModelFile) -> Analysis {
    analyze_file_with(file, &ReadOptions::default())
}

/// Like [`analyze_file`], with options.
pub fn analyze_file_with(file: &ModelFile, options: &ReadOptions) -> Analysis {
    let options = &ReadOptions {
        identify: registry::identify,
        ..*options
    };
    let mut findings = Findings::default();
    let inventory = match registry::detect(file) {
        Detected::Read(format) => {
            let mut inventory = format.read(file, options, &mut findings);
            // The structure is read: the checks below touch few of its pages again.
            file.release_all();
            inventory.sort_sections();
            if options.views {
                let standard = inventory.standard_sizes();
                inventory.sizes.extend(standard);
            }
            generic::run(&inventory, file.bytes(), &mut findings);
            if let Some(check) = &options.values {
                crate::values::check(&inventory, file, check, options.progress, &mut findings);
            }
            // A file the reader found nothing in to check (a zip of no model) is only that.
            let checked = matches!(inventory.format, FileFormat::Read(_));
            if let Some(message) = registry::misnamed(format, file.path()).filter(|_| checked) {
                findings.add(&generic::MISNAMED_FILE, Place::FILE, message);
            }
            inventory
        }
        Detected::NotRead(foreign) => {
            let message = match foreign.model {
                true => format!(
                    "this is {}, a format rtenx recognises but does not read: not checked",
                    foreign.title
                ),
                false => format!("not a model file: {}; check the folder", foreign.title),
            };
            findings.add(&generic::NOT_CHECKED, Place::at(0), message);
            unread(file, foreign_format(foreign))
        }
        Detected::Unknown => {
            findings.add(
                &generic::UNKNOWN_FORMAT,
                Place::at(0),
                unknown_message(file),
            );
            unread(file, FileFormat::Unknown)
        }
    };
    let mut findings = findings.into_vec();
    findings.sort_by_key(|f| (f.file, f.offset.is_none(), f.offset, f.rule.code));
    let mut inventory = inventory;
    if let Some(arch) = &mut inventory.architecture {
        // Any error stops the loader, not only those of the architecture's table; but not
        // what the values hold, which loaders do not read (llama.cpp only when asked).
        let values = crate::values::GROUP.prefix;
        let errors = (findings.iter())
            .filter(|f| f.severity == Severity::Error && !f.rule.code.starts_with(values));
        arch.settle(errors.count());
    }
    Analysis {
        inventory,
        findings,
    }
}

/// The format of a file in `foreign`, a format rtenx does not read.
fn foreign_format(foreign: &crate::formats::foreign::Foreign) -> FileFormat {
    match foreign.model {
        true => FileFormat::NotRead(foreign.name),
        false => FileFormat::NotModel(foreign.name),
    }
}

/// What can be known of the file at `path` at once, whatever its size: the file and its
/// format, detected from its first bytes, with nothing read and nothing checked. The browser
/// shows this while [`analyze`] runs.
pub fn preview(path: &Path) -> Result<Analysis, OpenError> {
    Ok(preview_of(&ModelFile::open(path)?))
}

/// Like [`preview`], of an already opened file.
pub fn preview_of(file: &ModelFile) -> Analysis {
    let format = match registry::detect(file) {
        Detected::Read(format) => FileFormat::Read(format.about().name),
        Detected::NotRead(foreign) => foreign_format(foreign),
        Detected::Unknown => FileFormat::Unknown,
    };
    Analysis {
        inventory: unread(file, format),
        findings: Vec::new(),
    }
}

/// The analysis of a file that was not read because it is past a budget (`rule`): its
/// format, detected from its first bytes, and one finding that says why.
pub fn not_read(file: &ModelFile, rule: &'static crate::check::Rule, message: String) -> Analysis {
    let mut analysis = preview_of(file);
    let mut findings = Findings::default();
    findings.add(rule, Place::FILE, message);
    analysis.findings = findings.into_vec();
    analysis
}

/// The inventory of a file no reader reads: the file and its format.
fn unread(file: &ModelFile, format: FileFormat) -> Inventory {
    Inventory::of_model(format, file)
}

fn unknown_message(file: &ModelFile) -> String {
    let bytes = file.bytes();
    let head: String = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
    match bytes.len() {
        0 => "the file is empty".to_owned(),
        n => format!("{n}-byte file starting with {head} matches no format rtenx knows"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(path: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(path)
    }

    #[test]
    fn views_are_built_unless_turned_off_and_change_no_finding() {
        let path = fixture("onnx/external_one_file/model.onnx");
        let full = analyze(&path).unwrap();
        let titles: Vec<&str> = full.inventory.sizes.iter().map(|t| t.title).collect();
        assert_eq!(
            titles,
            [
                "by element type",
                "by storage",
                "by file",
                "by operator type",
                "by scope",
                "of the largest tensors"
            ]
        );
        let options = ReadOptions {
            views: false,
            ..ReadOptions::default()
        };
        let lean = analyze_with(&path, &options).unwrap();
        assert!(lean.inventory.sizes.is_empty());
        let findings = |a: &Analysis| {
            let all = a.findings.iter();
            all.map(|f| (f.rule.code, f.message.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(findings(&full), findings(&lean));

        // The module paths a PyTorch export records on each node are left out as well.
        let path = fixture("onnx/torch_encoder/model.onnx");
        let (full, lean) = (
            analyze(&path).unwrap(),
            analyze_with(&path, &options).unwrap(),
        );
        assert!(!full.inventory.graphs[0].scopes.is_empty());
        assert!(lean.inventory.graphs[0].scopes.is_empty());
        assert_eq!(findings(&full), findings(&lean));
    }
}
