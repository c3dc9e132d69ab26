//! Fingerprints and baselines: which findings were already known.
//!
//! A fingerprint is the SHA-256 of the rule code, the file's path relative to a root (the
//! baseline's folder) and the item's identity ([`Item::identity`](crate::check::Item)), cut to
//! 32 hex digits, then `:` and the finding's rank among the file's findings of that same
//! triple (1 for the first). No byte offset enters it, so adding a tensor, a node or a byte
//! elsewhere in the file leaves the other findings' fingerprints as they were.
//!
//! A baseline file is JSON: `{"version": 1, "generator", "findings": [{"fingerprint", "code",
//! "path", "item", "message"}]}`, sorted by path and code; only `fingerprint` is compared, the
//! rest is there for people reading it.

use super::FileResult;
use crate::source::digest::sha256_hex;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Version of the baseline file layout.
pub const VERSION: u32 = 1;

/// A baseline file's content.
#[derive(Debug, Serialize, Deserialize)]
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
pub struct Entry {
    /// What is compared.
    pub fingerprint: String,
    /// Rule code.
    pub code: String,
    /// The file, relative to the baseline's folder, with `/` between components.
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
pub fn fingerprint(results: &mut [FileResult], root: &Path) {
    let root = absolute(root);
    for result in results {
        let Ok(checked) = &mut result.outcome else {
            continue;
        };
        let mut seen: HashMap<String, u32> = HashMap::new();
        // A file's findings are in a few files (the model, its data files): each path is
        // made relative once.
        let mut paths: HashMap<PathBuf, String> = HashMap::new();
        for (f, place) in checked.findings.iter().zip(&mut checked.places) {
            if !paths.contains_key(&place.path) {
                paths.insert(place.path.clone(), relative(&place.path, &root));
            }
            let path = &paths[&place.path];
            let key = format!("{}\0{path}\0{}", f.rule.code, place.identity);
            let rank = seen.entry(key.clone()).or_default();
            *rank += 1;
            let mut fingerprint = sha256_hex(key.as_bytes());
            fingerprint.truncate(32);
            place.fingerprint = format!("{fingerprint}:{rank}");
        }
    }
}

/// The baseline of `results`, whose fingerprints are set, relative to `root`.
pub fn of(results: &[FileResult], root: &Path) -> Baseline {
    let root = absolute(root);
    let mut findings: Vec<Entry> = results
        .iter()
        .flat_map(FileResult::placed)
        .map(|(f, place)| Entry {
            fingerprint: place.fingerprint.clone(),
            code: f.rule.code.to_owned(),
            path: relative(&place.path, &root),
            item: place.item.clone(),
            message: f.message.clone(),
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
    let shown = path.display();
    let text = std::fs::read(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let baseline: Baseline = serde_json::from_slice(&text)
        .map_err(|e| format!("{shown}:{}:{}: {e}", e.line(), e.column()))?;
    if baseline.version != VERSION {
        let found = baseline.version;
        return Err(format!(
            "{shown}: baseline version {found}; this rtenx reads {VERSION}"
        ));
    }
    Ok(baseline)
}

/// Drops from `results` (fingerprinted relative to `root`) every finding `baseline` holds,
/// and lists the entries of the files checked that match nothing now.
pub fn apply(baseline: &Baseline, results: &mut [FileResult], root: &Path) -> Compared {
    let root = absolute(root);
    let accepted: HashSet<&str> = baseline
        .findings
        .iter()
        .map(|e| e.fingerprint.as_str())
        .collect();
    let mut present = HashSet::new();
    let mut checked_paths = HashSet::new();
    let mut compared = Compared::default();
    for result in results.iter_mut() {
        checked_paths.insert(relative(&result.path, &root));
        let Ok(checked) = &mut result.outcome else {
            continue;
        };
        let mut keep = Vec::with_capacity(checked.findings.len());
        for place in &checked.places {
            checked_paths.insert(relative(&place.path, &root));
            present.insert(place.fingerprint.clone());
            keep.push(!accepted.contains(place.fingerprint.as_str()));
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
        .filter(|e| checked_paths.contains(&e.path) && !present.contains(&e.fingerprint))
        .cloned()
        .collect();
    compared
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// `path` relative to the absolute folder `root`, worked out lexically (with `..` where
/// `path` is outside it), `/` between components.
fn relative(path: &Path, root: &Path) -> String {
    let path = absolute(path);
    let (mut a, mut b) = (path.components().peekable(), root.components().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        if x != y {
            break;
        }
        a.next();
        b.next();
    }
    let up = b
        .filter(|c| matches!(c, Component::Normal(_)))
        .map(|_| "..".to_owned());
    let down = a.map(|c| c.as_os_str().to_string_lossy().into_owned());
    up.chain(down).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::relative;
    use std::path::Path;

    #[test]
    fn paths_are_relative_to_the_root_with_slashes() {
        let root = Path::new("/r/repo");
        assert_eq!(relative(Path::new("/r/repo/m/a.onnx"), root), "m/a.onnx");
        assert_eq!(
            relative(Path::new("/r/other/b.rten"), root),
            "../other/b.rten"
        );
        assert_eq!(
            relative(Path::new("/r/repo/./m/../c.gguf"), root),
            "m/../c.gguf"
        );
    }
}
