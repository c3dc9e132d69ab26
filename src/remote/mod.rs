//! Models read where they live: `hf://` and `https://` paths, fetched by byte ranges.
//!
//! A remote file becomes a [`ModelFile`] like any other: a sparse temporary file of the
//! remote file's size, into which the ranges fetched are written at their offsets
//! ([`crate::source::sparse`]), so every reader reads it unchanged and reports it by the
//! path given. What is fetched:
//!
//! 1. the first 100 KiB, which also tells the file's size (the `Content-Range` total of the
//!    `206`), as `huggingface_hub.get_safetensors_metadata` starts with `bytes=0-100000`;
//! 2. what the format's fetch plan asks for ([`Format::fetch_plan`](crate::formats::Format)),
//!    round after round while it asks for more: a safetensors header, a GGUF file up to the end
//!    of its tensor infos, a zip's end records, central directory, local headers and the
//!    members its reader reads, and for every other format the whole file within the budget;
//! 3. while reading, any page the reader reads that was not fetched (the sparse file records
//!    it), after which the file is read again (`analysis::analyze_opened`).
//!
//! Tensor bytes are fetched only when an option reads them (`--values`, `--verify-checksums`,
//! `diff --values`, the browser's value view), by range as they are read, and let go of once
//! read (`ModelFile::fetch_tensors`, `Sparse::forget`); `check --hash` and `sbom` take the
//! SHA-256 the Hub records. A repository
//! ([`Session::repository`]) is resolved to a commit, listed, and checked as a folder is; the
//! files beside a model are looked up in that listing ([`repository`]).
//!
//! Sources, since no machine that builds rtenx reaches the Hub (the facts are gathered in
//! `../shared/reference/remote.md`): the URL forms and `HF_ENDPOINT`, `HF_TOKEN` and the token
//! file from `huggingface_hub`'s `HfFileSystem`, `constants.py` and `utils/_auth.py`; the
//! `resolve` answer (a `302` to a CDN or Xet bridge host carrying `X-Repo-Commit`,
//! `X-Linked-Etag` and `X-Linked-Size`, read without following the redirect) from
//! `huggingface_hub.file_download.get_hf_file_metadata`; the errors (`X-Error-Code`
//! `RepoNotFound`, `RevisionNotFound`, `EntryNotFound`, 401/403 for gated repositories, 429 with
//! `Retry-After`) from `huggingface_hub.utils._http.hf_raise_for_status` and the Hub's API
//! documentation; the tree API and its `Link: <...>; rel="next"` pages from
//! `HfApi.list_repo_tree` and `utils._pagination.paginate`; servers that answer `200` or short `206`s to ranges from datasets issues
//! #7685 and #7931 and hf-hub #144. docs/remote.md says the same for users.

mod http;
mod origin;
mod repository;
pub mod url;

pub use http::Budgets;
pub use repository::{Repository, MAX_HEADS};

use crate::formats::registry::{self, Detected};
use crate::formats::shared::datafiles::remote_name;
use crate::source::sparse::Sparse;
use crate::source::{ModelFile, OpenError};
use http::Client;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use url::{Remote, Target};

/// What the first request asks for (huggingface_hub asks for 100,000 bytes).
pub const FIRST_READ: u64 = 100 << 10;
/// Rounds of a fetch plan; a plan that still asks for more after them is left to the reading.
const PLAN_ROUNDS: usize = 16;

static SESSION: OnceLock<Session> = OnceLock::new();

/// Sets the budgets of this process's remote reads ([`open`]); only before the first one.
pub fn set_budgets(budgets: Budgets) {
    let _ = SESSION.set(Session::from_env(budgets));
}

/// Opens the remote file `given` with the Hub, token and budgets of the environment
/// ([`Session::from_env`]).
pub fn open(given: &str) -> Result<ModelFile, OpenError> {
    session().open(given)
}

/// The repository `given` names, with the Hub, token and budgets of the environment:
/// its revision resolved to a commit and its files listed ([`Session::repository`]).
pub fn repository(given: &str) -> Result<Arc<Repository>, OpenError> {
    session().repository(given)
}

/// Whether `given` names a whole repository of the Hub of the environment, rather than a file.
pub fn names_repository(given: &str) -> bool {
    let remote = Remote::parse(given, &endpoint());
    remote.is_ok_and(|r| matches!(r.target, Target::Repository { .. }))
}

/// The Hub `HF_ENDPOINT` names, else `https://huggingface.co`.
fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| url::DEFAULT_ENDPOINT.to_owned())
}

fn session() -> &'static Session {
    SESSION.get_or_init(|| Session::from_env(Budgets::DEFAULT))
}

/// Remote reads against one Hub, with one token and one run's budget.
#[derive(Clone)]
pub struct Session {
    client: Arc<Client>,
    endpoint: String,
}

impl Session {
    /// A session with the Hub at `endpoint`, sending `token` to it alone.
    pub fn new(endpoint: &str, token: Option<String>, budgets: Budgets) -> Self {
        Session {
            client: Arc::new(Client::new(endpoint, token, budgets)),
            endpoint: endpoint.trim_end_matches('/').to_owned(),
        }
    }

    /// A session with the Hub `HF_ENDPOINT` names (else `https://huggingface.co`) and the
    /// token `huggingface_hub` would send ([`token`]).
    pub fn from_env(budgets: Budgets) -> Self {
        Session::new(&endpoint(), token(), budgets)
    }

    /// Opens the remote file `given`: its first bytes, then what its format's fetch plan
    /// asks for. A file of the Hub is read with its repository's listing, where its readers
    /// look beside it; a repository that holds one model opens that model. An error names
    /// the path and the cause.
    pub fn open(&self, given: &str) -> Result<ModelFile, OpenError> {
        let remote = Remote::parse(given, &self.endpoint).map_err(failed(given))?;
        let file = match &remote.target {
            Target::Repository { .. } => return self.open_only_model(given),
            Target::Hub(hub) => {
                let file = self.open_url(given, &remote.url().unwrap_or_default())?;
                let commit = (file.provenance().and_then(|p| p.commit))
                    .unwrap_or_else(|| hub.revision.clone());
                let beside = repository::Beside::of_file(self, hub, &commit);
                file.with_listing(Arc::new(beside))
            }
            Target::Url(url) => self.open_url(given, url)?,
        };
        Ok(file)
    }

    /// Opens the file at `url`, shown as `shown`: its first bytes, then what its format's
    /// fetch plan asks for.
    fn open_url(&self, shown: &str, url: &str) -> Result<ModelFile, OpenError> {
        let failed = failed(shown);
        let first = origin::Remote::first(self.client.clone(), url, FIRST_READ).map_err(&failed)?;
        let origin = Arc::new(first.remote);
        let sparse = Sparse::new(origin.total, Box::new(origin.clone()))
            .map_err(|e| failed(format!("cannot make the temporary file: {e}")))?;
        sparse
            .seed(0, &first.head)
            .map_err(|e| failed(format!("cannot write the temporary file: {e}")))?;
        let file = ModelFile::remote(shown, sparse);
        follow_plan(&file, self.client.budgets.file)?;
        Ok(file)
    }

    /// The repository `given` names (`hf://ORG/REPO[@REVISION]`, or the Hub's URL of it):
    /// its revision resolved to a commit, and its files at that commit as the Hub's tree API
    /// lists them.
    pub fn repository(&self, given: &str) -> Result<Arc<Repository>, OpenError> {
        let failed = failed(given);
        let remote = Remote::parse(given, &self.endpoint).map_err(&failed)?;
        let Target::Repository {
            kind,
            repo,
            revision,
        } = &remote.target
        else {
            return Err(failed("not a repository".to_owned()));
        };
        let commit = self.commit(kind, repo, revision).map_err(&failed)?;
        let listed = Repository::listed(self, (kind, repo, revision), &commit, "");
        Ok(Arc::new(listed.map_err(failed)?))
    }

    /// The commit `revision` of the repository resolves to, as the Hub's API says
    /// (`GET /api/KIND/REPO/revision/REVISION`, its `sha`: `HfApi.repo_info`).
    fn commit(&self, kind: &str, repo: &str, revision: &str) -> Result<String, String> {
        let at = format!(
            "{}/api/{kind}/{repo}/revision/{}",
            self.endpoint,
            url::encode(revision, false)
        );
        let (doc, _) = self.client.page(&at)?;
        let sha = doc.get("sha").and_then(|s| s.as_str());
        match sha.filter(|s| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())) {
            Some(sha) => Ok(sha.to_owned()),
            None => Err(format!("{at}: the answer names no commit (`sha`)")),
        }
    }

    /// Opens the one model of the repository `given`; one that holds several, or none, is
    /// an error that names them.
    fn open_only_model(&self, given: &str) -> Result<ModelFile, OpenError> {
        let repo = self.repository(given)?;
        let models = repo.models().map_err(failed(given))?;
        match models.as_slice() {
            [only] => repo.open(only),
            _ => Err(failed(given)(repository_message(&repo, &models))),
        }
    }

    /// The files of the repository `kind`/`repo` at `revision`, below the folder `dir`
    /// (the whole repository if empty), as the tree API lists them (recursively, page after
    /// page as its `Link` headers lead), in path order. A path that is not a plain path
    /// inside the repository, or more than [`MAX_LISTED`] files, is an error.
    fn tree(
        &self,
        kind: &str,
        repo: &str,
        revision: &str,
        dir: &str,
    ) -> Result<Vec<Listed>, String> {
        let below = match dir {
            "" => String::new(),
            dir => format!("/{}", url::encode(dir, true)),
        };
        let mut next = Some(format!(
            "{}/api/{kind}/{repo}/tree/{}{below}?recursive=true",
            self.endpoint,
            url::encode(revision, false)
        ));
        let mut files = Vec::new();
        let mut pages = std::collections::HashSet::new();
        while let Some(page) = next {
            if !pages.insert(page.clone()) {
                return Err(format!("the listing's pages lead back to {page}"));
            }
            let (doc, after) = self.client.page(&page)?;
            let entries = doc
                .as_array()
                .ok_or_else(|| format!("{page}: the listing is not a JSON array"))?;
            for entry in entries {
                let text = |key: &str| entry.get(key).and_then(|v| v.as_str());
                if text("type") != Some("file") {
                    continue;
                }
                let (Some(path), Some(size)) =
                    (text("path"), entry.get("size").and_then(|v| v.as_u64()))
                else {
                    continue;
                };
                if remote_name(std::path::Path::new(path)).as_deref() != Some(path) {
                    let path = crate::escape::sanitize(path);
                    return Err(format!("{page}: the listing names \"{path}\", which is not a plain path inside the repository: not read"));
                }
                let sha256 = (entry.get("lfs"))
                    .and_then(|lfs| lfs.get("oid")?.as_str())
                    .map(str::to_owned);
                // An LFS file's `oid` is its pointer's, not its content's.
                let git_oid = (sha256.is_none())
                    .then(|| text("oid").map(str::to_owned))
                    .flatten();
                files.push(Listed {
                    path: path.to_owned(),
                    size,
                    sha256,
                    git_oid,
                });
            }
            if files.len() > MAX_LISTED {
                return Err(format!(
                    "the repository lists more than {MAX_LISTED} files: not read"
                ));
            }
            next = after;
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(twice) = files.windows(2).find(|w| w[0].path == w[1].path) {
            let path = crate::escape::sanitize(&twice[0].path);
            return Err(format!("the listing names \"{path}\" twice: not read"));
        }
        Ok(files)
    }
}

/// An error about the remote path `given`; a cause that starts with it says it once.
fn failed(given: &str) -> impl Fn(String) -> OpenError + '_ {
    move |cause: String| OpenError::Remote {
        url: given.to_owned(),
        cause: (cause.strip_prefix(given))
            .and_then(|rest| rest.strip_prefix(": "))
            .map_or(cause.clone(), str::to_owned),
    }
}

/// A file of a repository, as the Hub's tree API lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its path in the repository.
    pub path: String,
    /// Its size.
    pub size: u64,
    /// An LFS file's SHA-256.
    pub sha256: Option<String>,
    /// A file stored in git: its blob id (SHA-1 of `blob SIZE\0` and the content).
    pub git_oid: Option<String>,
}

/// Files of a listing kept at most; a repository with more is an error.
pub const MAX_LISTED: usize = 100_000;

/// Model files named in a message at most.
const NAMED: usize = 10;

/// Why a repository `repo` cannot be opened as one model: the paths of its `models`.
fn repository_message(repo: &Repository, models: &[String]) -> String {
    let shown: Vec<String> = (models.iter().take(NAMED))
        .map(|path| crate::escape::sanitize(&repo.shown(path)).into_owned())
        .collect();
    let more = match models.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(", and {n} more"),
    };
    match models.len() {
        0 => format!("its {} files hold no model file rtenx reads", repo.files().count()),
        n => format!("the repository holds {n} model files: name one ({}{more}), or check them all with rtenx check", shown.join(", ")),
    }
}

/// `f` of each of `items`, with up to 8 at once, in order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..items.len().min(8) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                done.lock().unwrap_or_else(|e| e.into_inner()).push((i, r));
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The token `huggingface_hub` would send: `HF_TOKEN`, else the file it writes at login,
/// `$HF_HOME/token` (`HF_HOME` defaults to `$XDG_CACHE_HOME/huggingface`, then
/// `~/.cache/huggingface`).
fn token() -> Option<String> {
    let set = |name| {
        std::env::var(name)
            .ok()
            .filter(|v: &String| !v.trim().is_empty())
    };
    if let Some(token) = set("HF_TOKEN") {
        return Some(token.trim().to_owned());
    }
    let home = set("HF_HOME").map(PathBuf::from).or_else(|| {
        let cache = set("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(cache.join("huggingface"))
    })?;
    let text = std::fs::read_to_string(home.join("token")).ok()?;
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

/// Fetches what the file's format plans to read, round after round while it asks for more.
fn follow_plan(file: &ModelFile, budget: u64) -> Result<(), OpenError> {
    let len = file.bytes().len() as u64;
    for _ in 0..PLAN_ROUNDS {
        let Detected::Read(format) = registry::detect(file) else {
            break;
        };
        let Some(fetched) = file.fetched() else {
            break;
        };
        let wanted = format.fetch_plan(file.bytes(), &fetched);
        let missing: u64 = (wanted.iter())
            .flat_map(|r| fetched.missing(r.start, r.end().min(len)))
            .map(|r| r.len)
            .sum();
        if missing == 0 {
            break;
        }
        if fetched.bytes().saturating_add(missing) > budget {
            return Err(OpenError::Remote {
                url: file.path().display().to_string(),
                cause: format!("the {} reader reads {missing} more bytes of this {len}-byte file, past the per-file budget of {budget} bytes (RTENX_REMOTE_BUDGET raises it): not read", format.about().name),
            });
        }
        file.fetch(&wanted)?;
    }
    // What detection read beyond the plan (such as an HDF5 signature after a user block) is
    // read again by the analysis: fetched now, it costs the analysis no second round.
    file.fetch_touched()?;
    Ok(())
}
