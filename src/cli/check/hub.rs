//! `check --expect-hub hf://ORG/REPO[@REVISION]`: each local file the check hashes (each model
//! and data file) held to what the Hub records at the same path below the folder named on the
//! command line: size, and an LFS file's SHA-256 or a git file's blob id (HF007, HF008).

use rtenx::check::{Finding, Place};
use rtenx::formats::shared::hf::rules::{HUB_DIGEST_DIFFERS, NOT_ON_HUB};
use rtenx::report::FileResult;
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
                if let Some(finding) = self.file(&hash.path, &hash.sha256) {
                    found.push((i, finding));
                }
            }
        }
        found
    }

    /// What the Hub says of the local file `path`, whose SHA-256 is `sha256`.
    fn file(&self, path: &Path, sha256: &str) -> Option<Finding> {
        let canonical = std::fs::canonicalize(path).ok()?;
        let relative = (self.folders.iter())
            .filter_map(|f| canonical.strip_prefix(f).ok())
            .min_by_key(|r| r.components().count())?;
        let name = rtenx::formats::shared::datafiles::remote_name(relative)?;
        let shown = rtenx::escape::path(path).into_owned();
        let at = format!("{} (commit {})", self.repo.shown(&name), self.repo.commit());
        let at = rtenx::escape::sanitize(&at).into_owned();
        let Some(listed) = self.repo.file(&name) else {
            let message = format!("{shown} is not in {at}");
            return Some(Finding::new(&NOT_ON_HUB, Place::FILE, message));
        };
        let size = std::fs::metadata(&canonical).ok()?.len();
        let differs = |what: &str, here: &str, there: &str| {
            let message =
                format!("{shown}: its {what} is {here}, but the Hub records {there} for {at}");
            Some(Finding::new(&HUB_DIGEST_DIFFERS, Place::FILE, message))
        };
        if size != listed.size {
            return differs(
                "size",
                &format!("{size} bytes"),
                &format!("{} bytes", listed.size),
            );
        }
        if let Some(recorded) = &listed.sha256 {
            if !recorded.eq_ignore_ascii_case(sha256) {
                return differs("SHA-256", sha256, recorded);
            }
        } else if let Some(recorded) = &listed.git_oid {
            let here =
                rtenx::source::digest::git_blob_id(&rtenx::source::ModelFile::open(path).ok()?);
            if !recorded.eq_ignore_ascii_case(&here) {
                return differs("git blob id", &here, recorded);
            }
        }
        None
    }
}
