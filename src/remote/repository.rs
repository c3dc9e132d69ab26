//! A whole repository of the Hub, checked as a folder is: its revision resolved to a commit
//! once, its files listed at that commit, its model files grouped as a folder scan groups
//! them ([`crate::formats::scan`]), and every file fetched at that commit. The files beside
//! a model (shards, split parts, external data, `.ptd`, `.pdiparams`, `config.json`) are
//! looked up in the listing ([`Beside`], the [`Listing`] of the model's readers), never by a
//! name that leaves the repository.

use super::url::{self, Target};
use super::{Listed, Session};
use crate::formats::scan;
use crate::source::{Listing, ModelFile, OpenError};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// Files of a listing whose first bytes are read to tell what they are (`.json` files),
/// at most.
pub const MAX_HEADS: usize = 1_000;

/// A repository at one commit.
pub struct Repository {
    session: Session,
    /// `models`, `datasets` or `spaces`.
    kind: &'static str,
    /// `ORG/REPO`.
    repo: String,
    /// The commit the revision resolved to, which every file is read at.
    commit: String,
    /// How its files are shown: `hf://[KIND/]ORG/REPO[@REVISION]/`.
    shown: String,
    /// Its files by path.
    files: BTreeMap<String, Listed>,
}

impl Repository {
    /// The repository `kind`/`repo` named at `revision`, listed at the `commit` it resolved
    /// to, below the folder `dir` (all of it if empty).
    pub(super) fn listed(
        session: &Session,
        (kind, repo, revision): (&'static str, &str, &str),
        commit: &str,
        dir: &str,
    ) -> Result<Self, String> {
        let files = session.tree(kind, repo, commit, dir)?;
        Ok(Repository {
            session: session.clone(),
            kind,
            repo: repo.to_owned(),
            commit: commit.to_owned(),
            shown: shown_prefix(kind, repo, revision),
            files: files.into_iter().map(|f| (f.path.clone(), f)).collect(),
        })
    }

    /// The path the file `path` of the repository is shown by.
    pub fn shown(&self, path: &str) -> String {
        format!("{}{path}", self.shown)
    }

    /// The file at `path`, if it lists one.
    pub fn file(&self, path: &str) -> Option<&Listed> {
        self.files.get(path)
    }

    /// The commit its revision resolved to.
    pub fn commit(&self) -> &str {
        &self.commit
    }

    /// Its files, in path order.
    pub fn files(&self) -> impl Iterator<Item = &Listed> {
        self.files.values()
    }

    /// The paths of the files a check of a local copy of the repository would check, in
    /// path order: the files formats claim by name, and those claimed by content (`.json`)
    /// whose first bytes say so, without the data files a model of their format in their
    /// folder reads.
    pub fn models(&self) -> Result<Vec<String>, String> {
        let mut claimed = Vec::new();
        let mut undecided = Vec::new();
        for path in self.files.keys() {
            let Some(claim) = scan::claim(Path::new(path)) else {
                continue;
            };
            match claim.scan {
                crate::formats::Scan::ModelIfDetected => undecided.push((path, claim)),
                scan => claimed.push((path, claim.format, scan)),
            }
        }
        if undecided.len() > MAX_HEADS {
            return Err(format!("{} files of the repository can be told apart only by their first bytes, more than the {MAX_HEADS} rtenx reads: not read", undecided.len()));
        }
        let heads = super::parallel(&undecided, |(path, _)| self.head(path));
        for ((path, claim), head) in undecided.iter().zip(heads) {
            if let Some(format) = claim.detect(&head?) {
                claimed.push((path, format, crate::formats::Scan::Model));
            }
        }
        claimed.sort_by_key(|(path, ..)| *path);
        let keys: Vec<_> = (claimed.iter())
            .map(|(path, format, scan)| (Path::new(path.as_str()), *format, *scan))
            .collect();
        let keep = scan::checked(&keys);
        Ok((claimed.iter().zip(keep))
            .filter(|(_, keep)| *keep)
            .map(|((path, ..), _)| (*path).clone())
            .collect())
    }

    /// The URL of the file `path` at the commit.
    fn url(&self, path: &str) -> String {
        let target = Target::Hub(url::HubFile {
            kind: self.kind,
            repo: self.repo.clone(),
            revision: self.commit.clone(),
            path: path.to_owned(),
        });
        let remote = url::Remote {
            given: String::new(),
            target,
            endpoint: self.session.endpoint.clone(),
        };
        remote.url().unwrap_or_default()
    }

    /// The first bytes of the file `path`, to tell what it is.
    fn head(&self, path: &str) -> Result<Vec<u8>, String> {
        let client = &self.session.client;
        let mut answer = client.get(&self.url(path), 0, scan::HEAD as u64)?;
        answer.read(scan::HEAD as u64, &|n| client.pay(n))
    }

    /// Opens the file `path`, as a model whose readers look beside it in this listing.
    pub fn open(self: &Arc<Self>, path: &str) -> Result<ModelFile, OpenError> {
        let file = self.fetch(path)?;
        let beside = Beside::new(Source::Listed(self.clone()), path);
        Ok(file.with_listing(Arc::new(beside)))
    }

    /// Opens the file `path`, fetched as its format plans, and holds it to its listing.
    fn fetch(&self, path: &str) -> Result<ModelFile, OpenError> {
        let shown = self.shown(path);
        let file = self.session.open_url(&shown, &self.url(path))?;
        let listed = self.files.get(path).map(|f| f.size);
        let served = file.bytes().len() as u64;
        match listed {
            Some(size) if size != served => Err(OpenError::Remote {
                url: shown,
                cause: format!("the listing says the file has {size} bytes, the server {served}"),
            }),
            _ => Ok(file),
        }
    }
}

/// How the files of a repository are shown: `hf://[KIND/]ORG/REPO[@REVISION]/`.
fn shown_prefix(kind: &str, repo: &str, revision: &str) -> String {
    let at = match revision {
        "main" => String::new(),
        rev => format!("@{rev}"),
    };
    let prefix = match kind {
        "models" => "",
        "datasets" => "datasets/",
        _ => "spaces/",
    };
    format!("hf://{prefix}{repo}{at}/")
}

/// Where a model's repository listing comes from.
enum Source {
    /// Listed already: a repository being checked.
    Listed(Arc<Repository>),
    /// To be listed when first asked, below the model's folder: a file named alone. The
    /// session, the repository (kind, name, revision) and the commit its file was read at.
    Lazy {
        session: Session,
        repository: (&'static str, String, String),
        commit: String,
    },
}

/// What a remote model's readers find beside it: its repository's listing, and the files of
/// it they open, kept while the model is read so that a second reading (after fetching the
/// holes the first met) reads the same bytes.
pub struct Beside {
    source: Source,
    listed: OnceLock<Result<Arc<Repository>, String>>,
    /// The model's folder in the repository, with a trailing `/` (empty at the root).
    dir: String,
    /// The model's own path.
    own: String,
    opened: Mutex<HashMap<String, ModelFile>>,
    /// The first thing that could not be listed or fetched.
    failed: Mutex<Option<(String, String)>>,
}

impl Beside {
    fn new(source: Source, own: &str) -> Self {
        let dir = own.rsplit_once('/').map_or("", |(dir, _)| dir);
        Beside {
            source,
            listed: OnceLock::new(),
            dir: if dir.is_empty() {
                dir.to_owned()
            } else {
                format!("{dir}/")
            },
            own: own.to_owned(),
            opened: Mutex::new(HashMap::new()),
            failed: Mutex::new(None),
        }
    }

    /// Beside the Hub file `file`, read at `commit`: listed when first asked.
    pub(super) fn of_file(session: &Session, file: &url::HubFile, commit: &str) -> Self {
        let source = Source::Lazy {
            session: session.clone(),
            repository: (file.kind, file.repo.clone(), file.revision.clone()),
            commit: commit.to_owned(),
        };
        Beside::new(source, &file.path)
    }

    /// The repository, listed now if it was not; `None` (the failure kept) if it cannot be.
    fn repository(&self) -> Option<&Arc<Repository>> {
        let listed = self.listed.get_or_init(|| match &self.source {
            Source::Listed(repo) => Ok(repo.clone()),
            Source::Lazy {
                session,
                repository: (kind, repo, revision),
                commit,
            } => {
                let dir = self.dir.trim_end_matches('/');
                Repository::listed(session, (kind, repo, revision), commit, dir).map(Arc::new)
            }
        });
        match listed {
            Ok(repo) => Some(repo),
            Err(cause) => {
                self.fail(self.shown_dir(), cause.clone());
                None
            }
        }
    }

    /// The model's folder as shown, for a message about its listing.
    fn shown_dir(&self) -> String {
        match &self.source {
            Source::Listed(repo) => repo.shown(&self.dir),
            Source::Lazy {
                repository: (kind, repo, revision),
                ..
            } => format!("{}{}", shown_prefix(kind, repo, revision), self.dir),
        }
    }

    fn fail(&self, url: String, cause: String) {
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed.get_or_insert((url, cause));
    }

    /// The path in the repository of `name` beside the model.
    fn path(&self, name: &str) -> String {
        format!("{}{name}", self.dir)
    }
}

impl Listing for Beside {
    fn size(&self, name: &str) -> Option<u64> {
        Some(self.repository()?.files.get(&self.path(name))?.size)
    }

    fn names(&self) -> Vec<String> {
        let Some(repo) = self.repository() else {
            return Vec::new();
        };
        (repo.files.range(self.dir.clone()..))
            .map(|(path, _)| path)
            .take_while(|path| path.starts_with(&self.dir))
            .filter_map(|path| path.get(self.dir.len()..))
            .filter(|name| !name.contains('/'))
            .map(str::to_owned)
            .collect()
    }

    fn is_model(&self, name: &str) -> bool {
        self.path(name) == self.own
    }

    fn shown(&self, name: &str) -> String {
        match self.repository() {
            Some(repo) => repo.shown(&self.path(name)),
            None => format!("{}{name}", self.shown_dir()),
        }
    }

    fn sha256(&self, shown: &Path) -> Option<String> {
        let repo = self.repository()?;
        let path = shown.to_str()?.strip_prefix(&repo.shown)?;
        repo.files.get(path)?.sha256.clone()
    }

    fn open(&self, name: &str) -> Result<ModelFile, OpenError> {
        let path = self.path(name);
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(file) = opened.get(&path) {
            return Ok(file.again());
        }
        let repo = self.repository().ok_or_else(|| OpenError::Remote {
            url: self.shown(name),
            cause: "the repository could not be listed".to_owned(),
        })?;
        match repo.fetch(&path) {
            Ok(file) => {
                let again = file.again();
                opened.insert(path, file);
                Ok(again)
            }
            Err(e) => {
                if let OpenError::Remote { url, cause } = &e {
                    self.fail(url.clone(), cause.clone());
                }
                Err(e)
            }
        }
    }

    fn cost(&self) -> crate::source::Cost {
        let opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        let mut cost = crate::source::Cost::default();
        for file in opened.values().filter_map(ModelFile::provenance) {
            cost.add(&file);
        }
        cost
    }

    fn prefetch(&self, names: &[String]) {
        let Some(repo) = self.repository() else {
            return;
        };
        let mut wanted: Vec<String> = {
            let opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
            (names.iter().map(|name| self.path(name)))
                .filter(|path| !opened.contains_key(path) && repo.files.contains_key(path))
                .collect()
        };
        wanted.sort_unstable();
        wanted.dedup();
        let fetched = super::parallel(&wanted, |path| repo.fetch(path).ok());
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        for (path, file) in wanted.into_iter().zip(fetched) {
            if let Some(file) = file {
                opened.entry(path).or_insert(file);
            }
        }
    }

    fn fetch_touched(&self) -> Result<bool, OpenError> {
        if let Some((url, cause)) = self
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return Err(OpenError::Remote { url, cause });
        }
        let opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        let mut any = false;
        for file in opened.values() {
            any |= file.fetch_touched()?;
        }
        Ok(any)
    }
}
