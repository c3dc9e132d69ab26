//! `check --expect-hub hf://ORG/REPO[@REVISION]`: each local file the check hashes (each model
//! and data file) held to what the Hub records at the same path below the folder named on the
//! command line: size, and an LFS file's SHA-256 or a git file's blob id (HF007, HF008).

use rtenx::check::{Finding, Place};
use rtenx::formats::shared::hf::rules::{HUB_DIGEST_DIFFERS, NOT_ON_HUB};
use rtenx::report::{FileHash, FileResult};
use rtenx::source::OpenError;
use std::path::{Path, PathBuf};

/// The repository the local copy is held to, and the folders named on the command line
/// (canonical; a file's own folder for a file), below which paths are looked up.
pub struct Expected {
    repo: std::sync::Arc<rtenx::remote::Repository>,
    folders: Vec<PathBuf>,
}

impl Expected {
    /// The repository `given` names, listed at the commit its revision resolves to.
    pub fn open(given: &str, paths: &[PathBuf]) -> Result<Self, OpenError> {
        let repo = rtenx::remote::repository(given)?;
        let folders = (paths.iter())
            .filter_map(|p| match p.is_dir() {
                true => std::fs::canonicalize(p).ok(),
                false => std::fs::canonicalize(p).ok()?.parent().map(Path::to_owned),
            })
            .collect();
        Ok(Expected { repo, folders })
    }

    /// The HF007 and HF008 findings of each local result (by index) that has hashes.
    pub fn compare(&self, results: &[FileResult]) -> Vec<(usize, Finding)> {
        let mut found = Vec::new();
        for (i, result) in results.iter().enumerate() {
            if result.remote.is_some() {
                continue;
            }
            for hash in &result.hashes {
                if let Some(finding) = self.file(hash) {
                    found.push((i, finding));
                }
            }
        }
        found
    }

    /// What the Hub says of the local file `hash` describes: its size, SHA-256 and git blob
    /// id as hashed from the file checked. Its path is resolved (by name only) to find it
    /// below a folder named on the command line.
    fn file(&self, hash: &FileHash) -> Option<Finding> {
        let canonical = std::fs::canonicalize(&hash.path).ok()?;
        let relative = (self.folders.iter())
            .filter_map(|f| canonical.strip_prefix(f).ok())
            .min_by_key(|r| r.components().count())?;
        let name = rtenx::formats::shared::datafiles::remote_name(relative)?;
        let shown = rtenx::escape::path(&hash.path).into_owned();
        let at = format!("{} (commit {})", self.repo.shown(&name), self.repo.commit());
        let at = rtenx::escape::sanitize(&at).into_owned();
        let Some(listed) = self.repo.file(&name) else {
            let message = format!("{shown} is not in {at}");
            return Some(Finding::new(&NOT_ON_HUB, Place::FILE, message));
        };
        let differs = |what: &str, here: &str, there: &str| {
            let message =
                format!("{shown}: its {what} is {here}, but the Hub records {there} for {at}");
            Some(Finding::new(&HUB_DIGEST_DIFFERS, Place::FILE, message))
        };
        if hash.size != listed.size {
            let (here, there) = (hash.size, listed.size);
            return differs("size", &format!("{here} bytes"), &format!("{there} bytes"));
        }
        match (&listed.sha256, &listed.git_oid, &hash.git_blob) {
            (Some(recorded), _, _) if !recorded.eq_ignore_ascii_case(&hash.sha256) => {
                differs("SHA-256", &hash.sha256, recorded)
            }
            (None, Some(recorded), Some(here)) if !recorded.eq_ignore_ascii_case(here) => {
                differs("git blob id", here, recorded)
            }
            _ => None,
        }
    }
}
