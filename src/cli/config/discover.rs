//! Finding the configuration of a path as ruff does: the nearest folder, from the path's own
//! upward, with an `rtenx.toml`, or a `pyproject.toml` with a `[tool.rtenx]` table (the former
//! wins in one folder). Each folder is looked at once per run, so a tree of 10,000 files costs
//! a lookup per folder, not per file.

use super::{parse, Config, ConfigError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file names looked for in each folder, in order of preference.
const NAMES: [&str; 2] = ["rtenx.toml", "pyproject.toml"];

/// Configurations found so far, by folder.
#[derive(Default)]
pub struct Discovery {
    by_dir: HashMap<PathBuf, Option<Arc<Config>>>,
}

impl Discovery {
    /// The configuration that applies to `path` (a file or a folder), if any.
    pub fn config_for(&mut self, path: &Path) -> Result<Option<Arc<Config>>, ConfigError> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        let start = if path.is_dir() {
            path.as_path()
        } else {
            path.parent().unwrap_or(&path)
        };
        let mut visited = Vec::new();
        let mut found = None;
        for dir in start.ancestors() {
            if let Some(known) = self.by_dir.get(dir) {
                found = known.clone();
                break;
            }
            visited.push(dir.to_owned());
            if let Some(config) = in_folder(dir)? {
                found = Some(Arc::new(config));
                break;
            }
        }
        for dir in visited {
            self.by_dir.insert(dir, found.clone());
        }
        Ok(found)
    }
}

/// The configuration file of `dir` itself, if it has one.
fn in_folder(dir: &Path) -> Result<Option<Config>, ConfigError> {
    for name in NAMES {
        let candidate = dir.join(name);
        if candidate.is_file() {
            if let Some(config) = parse::read(&candidate)? {
                return Ok(Some(config));
            }
        }
    }
    Ok(None)
}

/// Reads the configuration named by `--config`, which must be one.
pub fn named(path: &Path) -> Result<Arc<Config>, ConfigError> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    match parse::read(&absolute)? {
        Some(config) => Ok(Arc::new(config)),
        None => Err(ConfigError {
            path: path.to_owned(),
            at: None,
            message: "has no [tool.rtenx] table".to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_folder_with_a_config_wins_and_rtenx_toml_before_pyproject() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("a/b"),
            dir.path().join("a/b/c"),
        );
        std::fs::create_dir_all(&c).unwrap();
        std::fs::write(a.join("rtenx.toml"), "warn = [\"RX005\"]\n").unwrap();
        // A pyproject.toml without the table is passed over.
        std::fs::write(b.join("pyproject.toml"), "[tool.ruff]\n").unwrap();
        let mut discovery = Discovery::default();
        let found = discovery.config_for(&c.join("m.rten")).unwrap().unwrap();
        assert_eq!(found.path, a.join("rtenx.toml"));
        // Every folder on the way is remembered: a second file in c/ reads no file.
        assert!(discovery.by_dir.contains_key(&b) && discovery.by_dir.contains_key(&c));
        std::fs::write(c.join("rtenx.toml"), "not toml").unwrap();
        let again = discovery.config_for(&c.join("n.rten")).unwrap().unwrap();
        assert!(Arc::ptr_eq(&found, &again));
        // In one folder, rtenx.toml wins over pyproject.toml's [tool.rtenx].
        std::fs::write(
            b.join("pyproject.toml"),
            "[tool.rtenx]\nallow = [\"RX005\"]\n",
        )
        .unwrap();
        std::fs::write(b.join("rtenx.toml"), "deny = [\"RX005\"]\n").unwrap();
        let mut fresh = Discovery::default();
        assert_eq!(
            fresh.config_for(&b.join("m.rten")).unwrap().unwrap().path,
            b.join("rtenx.toml")
        );
    }
}
