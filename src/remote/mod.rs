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
//! Tensor bytes are never fetched: what needs them (`--verify-checksums`, `--hash`) is refused
//! for a remote file.
//!
//! Sources, since no machine that builds rtenx reaches the Hub (the facts are gathered in
//! `../shared/reference/remote.md`): the URL forms and `HF_ENDPOINT`, `HF_TOKEN` and the token
//! file from `huggingface_hub`'s `HfFileSystem`, `constants.py` and `utils/_auth.py`; the
//! `resolve` answer (a `302` to a CDN or Xet bridge host carrying `X-Repo-Commit`,
//! `X-Linked-Etag` and `X-Linked-Size`, read without following the redirect) from
//! `huggingface_hub.file_download.get_hf_file_metadata`; the errors (`X-Error-Code`
//! `RepoNotFound`, `RevisionNotFound`, `EntryNotFound`, 401/403 for gated repositories, 429 with
//! `Retry-After`) from `huggingface_hub.utils._http.hf_raise_for_status` and the Hub's API
//! documentation; servers that answer `200` or short `206`s to ranges from datasets issues
//! #7685 and #7931 and hf-hub #144. docs/remote.md says the same for users.

mod http;
mod origin;
pub mod url;

pub use http::Budgets;

use crate::formats::registry::{self, Detected};
use crate::formats::scan;
use crate::source::sparse::Sparse;
use crate::source::{ModelFile, OpenError};
use http::Client;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use url::Remote;

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
    SESSION
        .get_or_init(|| Session::from_env(Budgets::DEFAULT))
        .open(given)
}

/// Remote reads against one Hub, with one token and one run's budget.
pub struct Session {
    client: Arc<Client>,
    endpoint: String,
}

impl Session {
    /// A session with the Hub at `endpoint`, sending `token` to it alone.
    pub fn new(endpoint: &str, token: Option<String>, budgets: Budgets) -> Self {
        Session {
            client: Arc::new(Client::new(endpoint, token, budgets)),
            endpoint: endpoint.to_owned(),
        }
    }

    /// A session with the Hub `HF_ENDPOINT` names (else `https://huggingface.co`) and the
    /// token `huggingface_hub` would send ([`token`]).
    pub fn from_env(budgets: Budgets) -> Self {
        let endpoint = std::env::var("HF_ENDPOINT")
            .ok()
            .filter(|e| !e.trim().is_empty())
            .unwrap_or_else(|| url::DEFAULT_ENDPOINT.to_owned());
        Session::new(&endpoint, token(), budgets)
    }

    /// Opens the remote file `given`: its first bytes, then what its format's fetch plan
    /// asks for. An error names the path and the cause.
    pub fn open(&self, given: &str) -> Result<ModelFile, OpenError> {
        // A cause that starts with the URL given says it once.
        let failed = |cause: String| OpenError::Remote {
            url: given.to_owned(),
            cause: (cause.strip_prefix(given))
                .and_then(|rest| rest.strip_prefix(": "))
                .map_or(cause.clone(), str::to_owned),
        };
        let remote = Remote::parse(given, &self.endpoint).map_err(failed)?;
        let Some(url) = remote.url() else {
            let files = self.list(given)?;
            return Err(failed(repository_message(&remote, &files)));
        };
        let first = origin::Remote::first(self.client.clone(), &url, FIRST_READ).map_err(failed)?;
        let origin = Arc::new(first.remote);
        let sparse = Sparse::new(origin.total, Box::new(origin.clone()))
            .map_err(|e| failed(format!("cannot make the temporary file: {e}")))?;
        sparse
            .seed(0, &first.head)
            .map_err(|e| failed(format!("cannot write the temporary file: {e}")))?;
        let file = ModelFile::remote(given, sparse);
        follow_plan(&file, self.client.budgets.file)?;
        Ok(file)
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
}

/// Files of a listing kept at most; a repository with more is an error.
pub const MAX_LISTED: usize = 100_000;

impl Session {
    /// The files of the repository `given` names (`hf://ORG/REPO[@REVISION]`, or the Hub's
    /// URL of it), as the Hub's tree API lists them (recursively, page after page as its
    /// `Link` headers lead), in path order.
    pub fn list(&self, given: &str) -> Result<Vec<Listed>, OpenError> {
        let failed = |cause: String| OpenError::Remote {
            url: given.to_owned(),
            cause,
        };
        let remote = Remote::parse(given, &self.endpoint).map_err(failed)?;
        let url::Target::Repository {
            kind,
            repo,
            revision,
        } = &remote.target
        else {
            return Err(failed("not a repository".to_owned()));
        };
        let mut next = Some(format!(
            "{}/api/{kind}/{repo}/tree/{}?recursive=true",
            self.endpoint,
            url::encode(revision, false)
        ));
        let mut files = Vec::new();
        let mut pages = std::collections::HashSet::new();
        while let Some(page) = next {
            if !pages.insert(page.clone()) {
                return Err(failed(format!("the listing's pages lead back to {page}")));
            }
            let (doc, after) = self.client.page(&page).map_err(failed)?;
            let entries = doc
                .as_array()
                .ok_or_else(|| failed(format!("{page}: the listing is not a JSON array")))?;
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
                let sha256 = (entry.get("lfs"))
                    .and_then(|lfs| lfs.get("oid")?.as_str())
                    .map(str::to_owned);
                files.push(Listed {
                    path: path.to_owned(),
                    size,
                    sha256,
                });
            }
            if files.len() > MAX_LISTED {
                return Err(failed(format!(
                    "the repository lists more than {MAX_LISTED} files: not read"
                )));
            }
            next = after;
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }
}

/// Model files named in a message at most.
const NAMED: usize = 10;

/// Why a repository is not checked, and the paths of the model files it holds, as a folder
/// scan would claim them by name.
fn repository_message(remote: &Remote, files: &[Listed]) -> String {
    let url::Target::Repository {
        kind,
        repo,
        revision,
    } = &remote.target
    else {
        return String::new();
    };
    let prefix = match *kind {
        "models" => String::new(),
        kind => format!("{kind}/"),
    };
    let at = match revision.as_str() {
        "main" => String::new(),
        rev => format!("@{rev}"),
    };
    let models: Vec<String> = (files.iter())
        .filter_map(|f| {
            let (format, _) = scan::claim_by_name(std::path::Path::new(&f.path))?;
            let size = humansize::format_size(f.size, humansize::BINARY);
            let name = crate::escape::sanitize(&f.path);
            Some(format!(
                "hf://{prefix}{repo}{at}/{name} ({}, {size})",
                format.about().name
            ))
        })
        .collect();
    let more = match models.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(", and {n} more"),
    };
    let shown = models.iter().take(NAMED).cloned().collect::<Vec<_>>();
    match models.len() {
        0 => format!("a whole repository is not checked yet, and its {} files hold no model file rtenx reads", files.len()),
        n => format!("a whole repository is not checked yet: name one of its {n} model files: {}{more}", shown.join(", ")),
    }
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
