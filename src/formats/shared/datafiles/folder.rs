//! Where a model's readers look beside it: the folder it is in on this machine, or the
//! listing of the remote repository it was read from ([`Listing`]). Every lookup a reader
//! makes beside its model (data files, split parts, a program's parameters, `config.json`)
//! goes through here, so that a remote model is checked as a local copy of its repository
//! would be. Names are resolved lexically; on this machine no symlink out of the folder is
//! followed ([`super::resolve`]), and a remote name is only ever looked up in the listing.

use super::location::{problem, show, Location, Problem};
use super::resolve::{self, Resolved};
use super::rules::{missing, DATA_FILE_MISSING};
use crate::source::{FileIdentity, Listing, ModelFile, OpenError};
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// What is beside a model.
#[derive(Clone)]
pub enum Folder {
    /// A folder on this machine: as the model's path names it, and its canonical path (or
    /// why there is none).
    Local {
        /// The folder as the model's path names it, for messages.
        named: PathBuf,
        /// Its canonical path, or why it could not be found.
        canonical: Result<PathBuf, String>,
    },
    /// A remote repository's listing.
    Remote(Arc<dyn Listing>),
    /// Nothing: a remote file whose server lists no files (a plain URL).
    Unlisted,
}

impl Folder {
    /// What is beside `model`.
    pub fn of(model: &ModelFile) -> Self {
        if let Some(listing) = model.listing() {
            return Folder::Remote(listing.clone());
        }
        if model.is_remote() {
            return Folder::Unlisted;
        }
        let named = (model.path().parent())
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned();
        let canonical =
            std::fs::canonicalize(&named).map_err(|e| format!("{}: {e}", named.display()));
        Folder::Local { named, canonical }
    }

    /// Whether something is at `name` beside the model, a symlink not followed.
    pub fn exists(&self, name: &str) -> bool {
        match self {
            Folder::Local { canonical, .. } => (canonical.as_ref())
                .is_ok_and(|dir| std::fs::symlink_metadata(dir.join(name)).is_ok()),
            Folder::Remote(listing) => remote_name(Path::new(name))
                .and_then(|name| listing.size(&name))
                .is_some(),
            Folder::Unlisted => false,
        }
    }

    /// Whether a regular file is at `name` beside the model, a symlink not followed.
    pub fn is_file(&self, name: &str) -> bool {
        match self {
            Folder::Local { canonical, .. } => canonical.as_ref().is_ok_and(|dir| {
                std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file())
            }),
            _ => self.exists(name),
        }
    }

    /// The names of the entries directly in the model's folder, of any type, that `keep`
    /// keeps, in no order, at most `limit` of them.
    pub fn names(&self, keep: impl Fn(&OsStr) -> bool, limit: usize) -> Vec<OsString> {
        let names: Box<dyn Iterator<Item = OsString>> = match self {
            Folder::Local { named, .. } => match std::fs::read_dir(named) {
                Ok(list) => Box::new(list.filter_map(Result::ok).map(|e| e.file_name())),
                Err(_) => return Vec::new(),
            },
            Folder::Remote(listing) => Box::new(listing.names().into_iter().map(OsString::from)),
            Folder::Unlisted => return Vec::new(),
        };
        names.filter(|n| keep(n)).take(limit).collect()
    }

    /// Fetches the files `names` beside a remote model side by side, for a reader about to
    /// open them all; nothing on this machine.
    pub fn prefetch(&self, names: &[String]) {
        if let Folder::Remote(listing) = self {
            let names: Vec<String> = (names.iter())
                .filter_map(|n| remote_name(Path::new(n)))
                .collect();
            listing.prefetch(&names);
        }
    }

    /// The path `name` beside the model is shown by.
    pub fn shown(&self, name: &Path) -> PathBuf {
        match self {
            Folder::Local { named, .. } => named.join(name),
            Folder::Remote(listing) => {
                PathBuf::from(listing.shown(&remote_name(name).unwrap_or_default()))
            }
            Folder::Unlisted => name.to_owned(),
        }
    }

    /// Where the lexically safe `location` leads, or why it leads nowhere usable.
    pub(super) fn resolve(&self, location: &Location<'_>) -> Result<Resolved, Problem> {
        let unresolved = |why: &str| {
            problem(
                &DATA_FILE_MISSING,
                format!(
                    "cannot resolve \"{}\": model folder {why}",
                    location.shown()
                ),
            )
        };
        match self {
            Folder::Local { canonical, .. } => match canonical {
                Ok(dir) => resolve::resolve(dir, location),
                Err(e) => Err(unresolved(e)),
            },
            Folder::Remote(listing) => {
                let name = location.path().and_then(remote_name);
                let shown = PathBuf::from(listing.shown(name.as_deref().unwrap_or_default()));
                match name.as_deref().map(|n| (n, listing.size(n))) {
                    Some((name, Some(size))) => Ok(Resolved {
                        path: shown,
                        size,
                        identity: None,
                        warnings: Vec::new(),
                        model: listing.is_model(name),
                    }),
                    // Named as the model names it, as a local folder's is.
                    _ => Err(problem(
                        &DATA_FILE_MISSING,
                        missing(
                            show(
                                &location
                                    .path()
                                    .map_or(shown, |p| Path::new(&listing.shown("")).join(p)),
                            ),
                            "does not exist",
                        ),
                    )),
                }
            }
            Folder::Unlisted => Err(unresolved(
                "is on a server that lists no files, so its data files are not fetched",
            )),
        }
    }

    /// Opens the data file that [`Folder::resolve`] resolved to `path` (as `identity`),
    /// named `name` beside the model: the same file, reached without following a symlink.
    pub fn open(
        &self,
        name: &Path,
        path: &Path,
        identity: Option<FileIdentity>,
    ) -> Result<ModelFile, OpenError> {
        match self {
            Folder::Remote(listing) => listing.open(&remote_name(name).unwrap_or_default()),
            _ => ModelFile::open_checked(path, identity),
        }
    }

    /// Opens the regular file `name` beside the model, if there is one there, following no
    /// symlink: for a file read whole, such as `config.json`.
    pub fn open_file(&self, name: &str) -> Result<Option<ModelFile>, OpenError> {
        match self {
            Folder::Local { canonical, .. } => {
                let Ok(dir) = canonical else { return Ok(None) };
                match ModelFile::open_checked(&dir.join(name), None) {
                    Ok(file) => Ok(Some(file)),
                    Err(OpenError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::NotFound =>
                    {
                        Ok(None)
                    }
                    Err(e) => Err(e),
                }
            }
            Folder::Remote(listing) => match self.is_file(name) {
                true => listing.open(name).map(Some),
                false => Ok(None),
            },
            Folder::Unlisted => Ok(None),
        }
    }
}

/// `name` as a listing names it: its plain components joined by `/`, or `None` if it has a
/// root, a `..` or no name at all.
pub fn remote_name(name: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for part in name.components() {
        match part {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}
