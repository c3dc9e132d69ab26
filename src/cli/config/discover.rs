//! Where settings come from: the trust model (docs/security.md, "Trust model").
//!
//! The settings of a run are `--config FILE`, or else those of the working directory: the
//! nearest of it and its parents with an `rtenx.toml`, or a `pyproject.toml` with a
//! `[tool.rtenx]` table (the former wins in one folder). Never those of a folder being
//! checked: a folder at or below a checked folder is passed over, so `rtenx check .` in a
//! downloaded model's folder does not take the settings it ships. Settings found inside what
//! is checked are only reported ([`Ignored`]), as the info RX021, once per checked path.

use super::parse::{self, Source};
use super::{Config, ConfigError};
use rtenx::check::generic::SETTINGS_IGNORED;
use rtenx::check::{Finding, Place};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file names looked for in each folder, in order of preference.
const NAMES: [&str; 2] = ["rtenx.toml", "pyproject.toml"];

/// The settings of a run started in the canonical folder `cwd`: the nearest of `cwd` and its
/// parents with a settings file, passing over every folder at or below one of the canonical
/// `checked` folders.
pub fn discover(cwd: &Path, checked: &[PathBuf]) -> Result<Option<Arc<Config>>, ConfigError> {
    for dir in cwd.ancestors() {
        if checked.iter().any(|c| dir.starts_with(c)) {
            continue;
        }
        if let Some(config) = in_folder(dir)? {
            return Ok(Some(Arc::new(config)));
        }
    }
    Ok(None)
}

/// The configuration file of the canonical folder `dir` itself, if it has one.
fn in_folder(dir: &Path) -> Result<Option<Config>, ConfigError> {
    for name in NAMES {
        let candidate = dir.join(name);
        match std::fs::symlink_metadata(&candidate) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            _ => {}
        }
        if let Some(config) = parse::read(&candidate, Source::Found)? {
            return Ok(Some(config));
        }
    }
    Ok(None)
}

/// Reads the configuration named by `--config`, which must be one.
pub fn named(path: &Path) -> Result<Arc<Config>, ConfigError> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    match parse::read(&absolute, Source::Named)? {
        Some(config) => Ok(Arc::new(config)),
        None => Err(ConfigError {
            path: path.to_owned(),
            at: None,
            message: "has no [tool.rtenx] table".to_owned(),
        }),
    }
}

/// The settings file of `dir` that discovery would have read, judged without applying
/// anything: an `rtenx.toml` of any kind (even a symlink), or a `pyproject.toml` with a
/// `[tool.rtenx]` table.
fn settings_file(dir: &Path) -> Option<PathBuf> {
    let [rtenx, pyproject] = NAMES.map(|name| dir.join(name));
    if std::fs::symlink_metadata(&rtenx).is_ok() {
        Some(rtenx)
    } else {
        parse::has_rtenx_table(&pyproject).then_some(pyproject)
    }
}

/// The settings files that a checked path holds, none of them applied: in a checked folder,
/// those of the folder and of every folder a file it holds is in (and of the working
/// directory and its parents where they are inside it); beside a checked file, that of its
/// folder when the folder is not the working directory or one of its parents. Each folder is
/// looked at once.
#[derive(Debug, Default)]
pub struct Ignored {
    /// Folders looked at (as the paths name them), and the settings file each holds.
    by_dir: HashMap<PathBuf, Option<PathBuf>>,
}

impl Ignored {
    /// The settings files in the checked folder `folder` (as named on the command line, and
    /// canonical) and in the folders from it down to each of `files`, the files a scan of it
    /// found, and in the folders of `cwd` (canonical) and its parents that are inside it:
    /// the folder's own first, then by path.
    pub fn in_folder(
        &mut self,
        folder: &Path,
        canonical: &Path,
        files: &[&Path],
        cwd: &Path,
    ) -> Vec<PathBuf> {
        let mut dirs = BTreeSet::new();
        dirs.insert(folder.to_owned());
        for file in files {
            let parents = file.ancestors().skip(1);
            for dir in parents.take_while(|d| d.starts_with(folder) && *d != folder) {
                if !dirs.insert(dir.to_owned()) {
                    break;
                }
            }
        }
        for dir in cwd.ancestors() {
            if let Ok(below) = dir.strip_prefix(canonical) {
                dirs.insert(folder.join(below));
            }
        }
        dirs.into_iter().filter_map(|d| self.look(&d)).collect()
    }

    /// The settings file beside the checked file `file`, whose folder is canonically
    /// `canonical`, unless that folder is `cwd` (canonical) or one of its parents, whose
    /// settings are the run's own.
    pub fn beside(&mut self, file: &Path, canonical: &Path, cwd: &Path) -> Option<PathBuf> {
        if cwd.starts_with(canonical) {
            return None;
        }
        self.look(file.parent().unwrap_or(Path::new("")))
    }

    /// The settings file of `dir`, looked at once.
    fn look(&mut self, dir: &Path) -> Option<PathBuf> {
        if let Some(known) = self.by_dir.get(dir) {
            return known.clone();
        }
        let seen = if dir.as_os_str().is_empty() {
            settings_file(Path::new(".")).map(|p| PathBuf::from(p.file_name().unwrap_or_default()))
        } else {
            settings_file(dir)
        };
        self.by_dir.insert(dir.to_owned(), seen.clone());
        seen
    }

    /// The nearest settings file that was ignored in the folders from `file`'s up to the
    /// checked folder `top` (both as named), if any.
    pub fn nearest(&self, file: &Path, top: &Path) -> Option<&PathBuf> {
        let parents = file.ancestors().skip(1);
        let mut within = parents.take_while(|d| d.starts_with(top));
        within.find_map(|d| self.by_dir.get(d).and_then(Option::as_ref))
    }
}

/// What settings come from, said after each note.
const WHERE_FROM: &str = "a downloaded model cannot judge itself (settings come from --config, \
                          or from the working directory and its parents)";

/// RX021 for the checked folder `folder`, which holds the settings files `files` (at least
/// one), none of them applied.
pub fn ignored_inside(folder: &Path, files: &[PathBuf]) -> Finding {
    let first = files.first().map_or(folder, PathBuf::as_path);
    let more = match files.len().saturating_sub(1) {
        0 => String::new(),
        1 => " (and 1 more settings file in it)".to_owned(),
        n => format!(" (and {n} more settings files in it)"),
    };
    let message = format!(
        "settings file {} was not applied: it is inside the checked folder {}{more}, and {WHERE_FROM}",
        first.display(),
        folder.display()
    );
    Finding::new(&SETTINGS_IGNORED, Place::FILE, message)
}

/// RX021 for the checked file `checked`, beside which lies the settings file `file`, in a
/// folder that is not the working directory or one of its parents.
pub fn ignored_beside(checked: &Path, file: &Path) -> Finding {
    let message = format!(
        "settings file {} was not applied: it is beside the checked file {}, outside the \
         working directory and its parents, and {WHERE_FROM}",
        file.display(),
        checked.display()
    );
    Finding::new(&SETTINGS_IGNORED, Place::FILE, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder by its canonical path, as the working directory is known.
    fn canonical_tempdir() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = std::fs::canonicalize(dir.path()).unwrap();
        (dir, path)
    }

    #[test]
    fn the_nearest_folder_of_the_working_directory_wins_and_rtenx_toml_before_pyproject() {
        let (_dir, root) = canonical_tempdir();
        let (a, b, c) = (root.join("a"), root.join("a/b"), root.join("a/b/c"));
        std::fs::create_dir_all(&c).unwrap();
        std::fs::write(a.join("rtenx.toml"), "warn = [\"RX005\"]\n").unwrap();
        // A pyproject.toml without the table is passed over.
        std::fs::write(b.join("pyproject.toml"), "[tool.ruff]\n").unwrap();
        let found = discover(&c, &[]).unwrap().unwrap();
        assert_eq!(found.path, a.join("rtenx.toml"));
        // In one folder, rtenx.toml wins over pyproject.toml's [tool.rtenx].
        std::fs::write(
            b.join("pyproject.toml"),
            "[tool.rtenx]\nallow = [\"RX005\"]\n",
        )
        .unwrap();
        assert_eq!(
            discover(&c, &[]).unwrap().unwrap().path,
            b.join("pyproject.toml")
        );
        std::fs::write(b.join("rtenx.toml"), "deny = [\"RX005\"]\n").unwrap();
        assert_eq!(
            discover(&c, &[]).unwrap().unwrap().path,
            b.join("rtenx.toml")
        );
        // Folders below the working directory are never looked at.
        std::fs::create_dir(c.join("d")).unwrap();
        std::fs::write(c.join("d/rtenx.toml"), "not toml").unwrap();
        assert_eq!(
            discover(&c, &[]).unwrap().unwrap().path,
            b.join("rtenx.toml")
        );
    }

    #[test]
    fn a_config_inside_a_checked_folder_is_never_applied() {
        let (_dir, root) = canonical_tempdir();
        let model = root.join("model");
        std::fs::create_dir(&model).unwrap();
        std::fs::write(root.join("rtenx.toml"), "warn = [\"RX005\"]\n").unwrap();
        // The model's own settings, even broken ones, are passed over when it is checked
        // from inside: `cd model && rtenx check .`.
        std::fs::write(model.join("rtenx.toml"), "allow = [\"PK001\"]\nnot toml").unwrap();
        let found = discover(&model, std::slice::from_ref(&model)).unwrap();
        assert_eq!(found.unwrap().path, root.join("rtenx.toml"));
        // Checked from its parent, the model's folder is no candidate at all.
        let found = discover(&root, std::slice::from_ref(&model)).unwrap();
        assert_eq!(found.unwrap().path, root.join("rtenx.toml"));
        // A checked folder that holds the working directory passes over both.
        assert!(discover(&model, std::slice::from_ref(&root))
            .unwrap()
            .is_none_or(|c| !c.path.starts_with(&root)));
        // Not checked, the working directory's settings apply (and are read, so broken ones
        // are an error).
        assert!(discover(&model, &[]).is_err());
    }

    #[test]
    fn ignored_settings_are_found_in_the_checked_folder_and_the_folders_of_its_files() {
        let (_dir, root) = canonical_tempdir();
        let model = root.join("model");
        std::fs::create_dir_all(model.join("a/b")).unwrap();
        std::fs::create_dir_all(model.join("quiet")).unwrap();
        std::fs::write(model.join("a/pyproject.toml"), "[tool.rtenx]\nallow = []\n").unwrap();
        std::fs::write(model.join("quiet/pyproject.toml"), "[project]\n").unwrap();
        let files = [model.join("a/b/m.pkl"), model.join("quiet/n.pkl")];
        let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        let mut ignored = Ignored::default();
        assert_eq!(
            ignored.in_folder(&model, &model, &files, &root),
            [model.join("a/pyproject.toml")]
        );
        std::fs::write(model.join("rtenx.toml"), "").unwrap();
        let mut ignored = Ignored::default();
        assert_eq!(
            ignored.in_folder(&model, &model, &files, &root),
            [model.join("rtenx.toml"), model.join("a/pyproject.toml")]
        );
        assert_eq!(
            ignored.nearest(&model.join("a/b/m.pkl"), &model),
            Some(&model.join("a/pyproject.toml"))
        );
        assert_eq!(
            ignored.nearest(&model.join("quiet/n.pkl"), &model),
            Some(&model.join("rtenx.toml"))
        );
        // Beside a file: only outside the working directory and its parents.
        let mut ignored = Ignored::default();
        let file = model.join("m.pkl");
        assert_eq!(
            ignored.beside(&file, &model, &root),
            Some(model.join("rtenx.toml"))
        );
        assert_eq!(ignored.beside(&file, &model, &model), None);
        assert_eq!(ignored.beside(&file, &model, &model.join("a")), None);
    }
}
