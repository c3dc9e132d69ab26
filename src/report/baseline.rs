//! Fingerprints and baselines: which findings were already known.
//!
//! A fingerprint is the SHA-256 of the rule code, the file's path relative to a root (the
//! baseline's folder) and what the finding is about, cut to 32 hex digits, then `:` and the
//! finding's rank among the file's findings of that same triple (1 for the first). What a
//! finding is about is its item's identity ([`Item::identity`](crate::check::Item): a node or
//! tensor by name, an import by what it imports, a section by kind), or, for a finding with
//! no item, its message with the model's folder left out of the paths it names and every run
//! of ASCII digits written `#`: `os.system` and `argparse.Namespace` imported by one file are
//! two findings, while an offset that moves is not a new one. No byte offset enters it, so
//! adding a tensor, a node or a byte elsewhere in the file leaves the other findings'
//! fingerprints as they were.
//!
//! A baseline file is JSON: `{"version": 2, "generator", "findings": [{"fingerprint", "code",
//! "path", "item", "message"}]}`, sorted by path and code; any other field is refused. An
//! entry accepts exactly one finding: the one whose fingerprint, code and path are all the
//! entry's. `item` and `message` are there for people reading it. Version 1 matched by
//! fingerprint alone, and gave every finding without an item of one rule in one file the same
//! identity; it is refused, with the advice to write the baseline again.

use super::root::{absolute, folder_prefixes, leave_out, Root};
use super::FileResult;
use crate::check::Finding;
use crate::source::digest::sha256_hex;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Version of the baseline file layout.
pub const VERSION: u32 = 2;

/// A baseline file's content.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// [`VERSION`].
    pub version: u32,
    /// `rtenx <version>`, for people.
    #[serde(default)]
    pub generator: String,
    /// The accepted findings.
    pub findings: Vec<Entry>,
}

/// One accepted finding.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The finding's fingerprint: compared, with the code and the path.
    pub fingerprint: String,
    /// Rule code: compared.
    pub code: String,
    /// The file, relative to the baseline's folder, with `/` between components: compared.
    pub path: String,
    /// The item, described.
    #[serde(default)]
    pub item: Option<String>,
    /// The message when the baseline was written.
    #[serde(default)]
    pub message: String,
}

/// What comparing a run with a baseline found.
#[derive(Debug, Default)]
pub struct Compared {
    /// Findings of the run that the baseline holds: left out of the report and the counts.
    pub matched: u64,
    /// Baseline entries of files checked in this run that no finding matched any more.
    pub fixed: Vec<Entry>,
}

/// Sets the fingerprint of every finding in `results`, with paths relative to `root`.
pub fn fingerprint(results: &mut [FileResult], root: &Root) {
    for result in results {
        let Ok(checked) = &mut result.outcome else {
            continue;
        };
        let mut seen: HashMap<String, u32> = HashMap::new();
        // A file's findings are in a few files (the model, its data files): each path is
        // made relative once.
        let mut paths: HashMap<PathBuf, String> = HashMap::new();
        // The model's folder as messages name it, worked out for the first finding without
        // an item.
        let mut folders: Option<Vec<String>> = None;
        for (f, place) in checked.findings.iter().zip(&mut checked.places) {
            if !paths.contains_key(&place.path) {
                paths.insert(place.path.clone(), root.relative(&place.path));
            }
            let path = &paths[&place.path];
            let about = if place.item.is_some() {
                Cow::Borrowed(place.identity.as_str())
            } else {
                let folders = folders.get_or_insert_with(|| model_folder(&result.path));
                Cow::Owned(message_identity(f, folders))
            };
            let key = format!("{}\0{path}\0{about}", f.rule.code);
            let rank = seen.entry(key.clone()).or_default();
            *rank += 1;
            let mut fingerprint = sha256_hex(key.as_bytes());
            fingerprint.truncate(32);
            place.fingerprint = format!("{fingerprint}:{rank}");
        }
    }
}

/// The forms in which a message may name the folder of the model at `path`, each ending in
/// `/`, longest first: canonical, absolute, and as given.
fn model_folder(path: &Path) -> Vec<String> {
    let given = path.parent().unwrap_or(Path::new(""));
    let folder = if given.as_os_str().is_empty() {
        Path::new(".")
    } else {
        given
    };
    let mut forms = vec![absolute(folder)];
    forms.extend(std::fs::canonicalize(folder));
    // As given, unless it is only dots (`.`, `..`), which the text of other paths holds.
    if !given
        .components()
        .all(|c| matches!(c, Component::CurDir | Component::ParentDir))
    {
        forms.push(given.to_owned());
    }
    folder_prefixes(&forms)
}

/// What a finding without an item is about: its message, with the model's folder (any of
/// `folders`, where a path starts) left out of the paths it names, so that the identity does
/// not depend on where the repository is or where rtenx runs, and every run of ASCII digits
/// written `#`, so that offsets and sizes do not enter it.
fn message_identity(f: &Finding, folders: &[String]) -> String {
    let message = leave_out(&f.message, folders);
    let mut out = String::with_capacity(message.len());
    let mut in_digits = false;
    for c in message.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// The baseline of `results`, whose fingerprints are set, relative to `root`.
pub fn of(results: &[FileResult], root: &Root) -> Baseline {
    let mut findings: Vec<Entry> = results
        .iter()
        .flat_map(FileResult::placed)
        .map(|(f, place)| Entry {
            fingerprint: place.fingerprint.clone(),
            code: f.rule.code.to_owned(),
            path: root.relative(&place.path),
            item: place.item.clone(),
            message: root.message(&f.message).into_owned(),
        })
        .collect();
    findings.sort_by(|a, b| {
        (&a.path, &a.code, &a.fingerprint).cmp(&(&b.path, &b.code, &b.fingerprint))
    });
    Baseline {
        version: VERSION,
        generator: concat!("rtenx ", env!("CARGO_PKG_VERSION")).to_owned(),
        findings,
    }
}

/// Writes `baseline` to `path` as JSON.
pub fn write(baseline: &Baseline, path: &Path) -> io::Result<()> {
    let value = serde_json::to_value(baseline).map_err(io::Error::other)?;
    let mut out = Vec::new();
    crate::escape::write_json(&mut out, &value, true)?;
    out.push(b'\n');
    std::fs::write(path, out)
}

/// Reads the baseline at `path`; an error names the file, and the line and column where the
/// JSON is wrong.
pub fn read(path: &Path) -> Result<Baseline, String> {
    /// The version alone, read first, so that an older layout is named as such rather than
    /// as a field this one refuses.
    #[derive(Deserialize)]
    struct Versioned {
        version: Option<u32>,
    }
    let shown = path.display();
    let text = std::fs::read(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let at = |e: serde_json::Error| format!("{shown}:{}:{}: {e}", e.line(), e.column());
    let versioned: Versioned = serde_json::from_slice(&text).map_err(at)?;
    match versioned.version {
        Some(VERSION) => {}
        Some(1) => {
            return Err(format!(
                "{shown}: a version 1 baseline, which matched findings by fingerprint alone and \
                 gave every finding without an item of one rule in one file the same one; this \
                 rtenx reads version {VERSION}: write it again with `rtenx check \
                 --write-baseline {shown} PATH...` and review what it accepts"
            ))
        }
        Some(found) => {
            return Err(format!(
                "{shown}: baseline version {found}; this rtenx reads {VERSION}"
            ))
        }
        None => return Err(format!("{shown}: not a baseline: it has no `version`")),
    }
    serde_json::from_slice(&text).map_err(at)
}

/// Drops from `results` (fingerprinted relative to `root`) every finding `baseline` holds,
/// and lists the entries of the files checked that match nothing now. An entry holds a
/// finding when its fingerprint, code and path are all the finding's.
pub fn apply(baseline: &Baseline, results: &mut [FileResult], root: &Root) -> Compared {
    let key = |e: &Entry| (e.fingerprint.clone(), e.code.clone(), e.path.clone());
    let accepted: HashSet<(String, String, String)> = baseline.findings.iter().map(key).collect();
    let mut present = HashSet::new();
    let mut checked_paths = HashSet::new();
    let mut compared = Compared::default();
    for result in results.iter_mut() {
        checked_paths.insert(root.relative(&result.path));
        let Ok(checked) = &mut result.outcome else {
            continue;
        };
        let mut paths: HashMap<PathBuf, String> = HashMap::new();
        let mut keep = Vec::with_capacity(checked.findings.len());
        for (f, place) in checked.findings.iter().zip(&checked.places) {
            if !paths.contains_key(&place.path) {
                paths.insert(place.path.clone(), root.relative(&place.path));
            }
            let path = paths[&place.path].clone();
            checked_paths.insert(path.clone());
            let found = (place.fingerprint.clone(), f.rule.code.to_owned(), path);
            keep.push(!accepted.contains(&found));
            present.insert(found);
        }
        compared.matched += keep.iter().filter(|k| !**k).count() as u64;
        let mut flags = keep.iter();
        checked
            .findings
            .retain(|_| flags.next().copied().unwrap_or(true));
        let mut flags = keep.iter();
        checked
            .places
            .retain(|_| flags.next().copied().unwrap_or(true));
    }
    compared.fixed = baseline
        .findings
        .iter()
        .filter(|e| checked_paths.contains(&e.path) && !present.contains(&key(e)))
        .cloned()
        .collect();
    compared
}

#[cfg(test)]
mod tests {
    use super::{message_identity, model_folder};
    use crate::check::{Finding, Place};
    use std::path::Path;

    fn identity(message: &str, model: &str) -> String {
        let rule = &crate::check::generic::UNKNOWN_FORMAT;
        let finding = Finding::new(rule, Place::FILE, message);
        message_identity(&finding, &model_folder(Path::new(model)))
    }

    #[test]
    fn a_finding_without_an_item_is_identified_by_its_message_without_numbers() {
        let at = |offset: u32, name: &str| {
            format!("{name} imported by GLOBAL at byte {offset}, called by REDUCE at byte 23")
        };
        assert_eq!(
            identity(&at(2, "os.system"), "m/a.pkl"),
            "os.system imported by GLOBAL at byte #, called by REDUCE at byte #"
        );
        assert_eq!(
            identity(&at(2, "os.system"), "m/a.pkl"),
            identity(&at(4000, "os.system"), "m/a.pkl")
        );
        assert_ne!(
            identity(&at(2, "os.system"), "m/a.pkl"),
            identity(&at(2, "argparse.Namespace"), "m/a.pkl")
        );
    }

    #[test]
    fn the_model_folder_named_in_a_message_does_not_enter_its_identity() {
        let cwd = std::env::current_dir().unwrap();
        let absolute = format!("data file {}/m/w-00002.bin does not exist", cwd.display());
        let given = "data file m/w-00002.bin does not exist";
        let expected = "data file w-#.bin does not exist";
        assert_eq!(identity(&absolute, "m/a.pkl"), expected);
        assert_eq!(identity(given, "m/a.pkl"), expected);
        let dotted = "data file ./m/w-00002.bin does not exist";
        assert_eq!(identity(dotted, "./m/a.pkl"), expected);
        // Only where a path starts: `m/` inside another name is left alone.
        assert_eq!(
            identity("location \"dim/x\" and m/x", "m/a.pkl"),
            "location \"dim/x\" and x"
        );
        // A model in the working directory: its absolute folder, never `./` inside `../`.
        let here = format!("{}/x.data and ../y.data", cwd.display());
        assert_eq!(identity(&here, "a.pkl"), "x.data and ../y.data");
    }
}
