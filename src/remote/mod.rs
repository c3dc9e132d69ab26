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
            return Err(failed("a whole repository is not read yet: name one of its files (hf://ORG/REPO/PATH, or .../resolve/REVISION/PATH)".to_owned()));
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
