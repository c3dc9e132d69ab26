//! The transport: ranged GETs over HTTPS, redirects followed by hand, retries, budgets.
//!
//! Redirects are followed here rather than by ureq so that each hop is held to the rules
//! ([`super::url::check_scheme`]), a loop is told from a long chain, and the Hub's own headers
//! (`X-Repo-Commit`, `X-Linked-Etag`, `X-Linked-Size`) are read from its `302` as
//! `huggingface_hub` reads them. The token goes only to the Hub's origin, never to the host a
//! redirect leads to (a CDN or Xet bridge). The server is not trusted: every `206` must carry a
//! `Content-Range` for the range asked and the total first seen, a body is read only up to
//! what was asked, and every byte read is paid from the file's and the run's budgets.

use super::url::{self, check_scheme};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use ureq::http::{HeaderMap, Response, StatusCode};
use ureq::Body;

/// Redirects followed for one request; the Hub's `resolve` needs one (to its CDN).
pub const MAX_REDIRECTS: usize = 5;
/// Retries of a `429` or `5xx` answer, and the longest wait before one (a longer
/// `Retry-After` is cut to it).
const RETRIES: u32 = 3;
const LONGEST_WAIT: Duration = Duration::from_secs(10);
/// Connecting gives up after this.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Bytes of an error answer kept to say what the server said.
const ERROR_BODY: u64 = 512;
/// Bytes of one page of a listing (the Hub's pages hold at most 1,000 entries).
const MAX_PAGE: u64 = 16 << 20;

/// What a remote file may cost.
#[derive(Debug, Clone, Copy)]
pub struct Budgets {
    /// Bytes read from the network for one file.
    pub file: u64,
    /// Bytes read from the network in one run, all files together.
    pub run: u64,
    /// The longest wait for any one read from the server.
    pub timeout: Duration,
}

impl Budgets {
    /// 64 MiB a file (a format read whole, such as ONNX, up to that size; any header),
    /// 1 GiB a run, and 30 seconds a read.
    pub const DEFAULT: Budgets = Budgets {
        file: 64 << 20,
        run: 1 << 30,
        timeout: Duration::from_secs(30),
    };
}

/// What the Hub says of a file beside its bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HubHeaders {
    /// The commit the revision resolved to (`X-Repo-Commit`).
    pub commit: Option<String>,
    /// For an LFS file, its SHA-256 (`X-Linked-Etag`, unquoted).
    pub sha256: Option<String>,
    /// For an LFS file, its size (`X-Linked-Size`).
    pub linked_size: Option<u64>,
    /// The `ETag` of the first answer.
    pub etag: Option<String>,
}

/// One answer to a ranged GET, after redirects: its status, headers, and body.
pub struct Answer {
    /// The URL that answered (after redirects).
    pub url: String,
    /// `start`, `end` (exclusive) and total of a `206`'s `Content-Range`.
    pub range: Option<(u64, u64, u64)>,
    /// `Content-Length`, if given.
    pub length: Option<u64>,
    /// The Hub's headers met on the way.
    pub hub: HubHeaders,
    /// The `ETag` of the answer.
    pub etag: Option<String>,
    body: Body,
}

impl Answer {
    /// Reads up to `limit` bytes of the body, paying for them with `paid`. A body cut short
    /// after some bytes gives those, and the caller asks again for the rest.
    pub fn read(
        &mut self,
        limit: u64,
        paid: &dyn Fn(u64) -> Result<(), String>,
    ) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut reader = self.body.as_reader().take(limit);
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            let n = match reader.read(&mut chunk) {
                Ok(n) => n,
                Err(_) if !out.is_empty() => 0,
                Err(e) => {
                    let inner = e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>());
                    return Err(match inner {
                        Some(timeout @ ureq::Error::Timeout(_)) => {
                            format!("{}: {}", self.url, transport(timeout))
                        }
                        _ => format!("{}: the answer was cut short ({e})", self.url),
                    });
                }
            };
            if n == 0 {
                return Ok(out);
            }
            paid(n as u64)?;
            out.extend_from_slice(chunk.get(..n).unwrap_or_default());
        }
    }

    /// Whether the body has more bytes than were read (one more byte is read to tell).
    pub fn has_more(&mut self) -> bool {
        let mut one = [0u8; 1];
        matches!(self.body.as_reader().read(&mut one), Ok(1))
    }
}

/// A client for one run: its agents, the Hub's origin and token, and the run's budget.
pub struct Client {
    /// Through the proxy the environment names, if any.
    agent: ureq::Agent,
    /// Never through a proxy: the loopback interface.
    direct: ureq::Agent,
    hub_origin: String,
    token: Option<String>,
    /// Bytes read in this run.
    spent: AtomicU64,
    /// The budgets.
    pub budgets: Budgets,
}

impl Client {
    /// A client for the Hub at `endpoint`, sending `token` to it alone.
    pub fn new(endpoint: &str, token: Option<String>, budgets: Budgets) -> Self {
        let agent = |proxy: Option<ureq::Proxy>| {
            ureq::Agent::config_builder()
                .max_redirects(0)
                .http_status_as_error(false)
                .timeout_connect(Some(CONNECT_TIMEOUT))
                .timeout_per_read(Some(budgets.timeout))
                .user_agent(concat!("rtenx/", env!("CARGO_PKG_VERSION")))
                .proxy(proxy)
                .build()
                .new_agent()
        };
        Client {
            agent: agent(ureq::Proxy::try_from_env()),
            direct: agent(None),
            hub_origin: url::origin(endpoint),
            token,
            spent: AtomicU64::new(0),
            budgets,
        }
    }

    /// Pays `n` bytes from the run's budget.
    pub fn pay(&self, n: u64) -> Result<(), String> {
        let spent = self.spent.fetch_add(n, Ordering::Relaxed).saturating_add(n);
        match spent > self.budgets.run {
            true => Err(format!("this run has read {spent} bytes from the network, past its budget of {} (RTENX_REMOTE_BUDGET raises it)", self.budgets.run)),
            false => Ok(()),
        }
    }

    /// GETs `start..end` of `url` (`end` exclusive), following redirects.
    pub fn get(&self, url: &str, start: u64, end: u64) -> Result<Answer, String> {
        let range = format!("bytes={start}-{}", end.saturating_sub(1));
        let (at, mut answer, hub) = self.follow(url, Some(&range))?;
        self.answer(at, &mut answer, start, end, hub)
    }

    /// GETs a page of JSON at `url` (the tree API), following redirects: the document, and
    /// the next page's URL from its `Link` header. Pages are paid from the run's budget and
    /// each is read up to [`MAX_PAGE`] bytes.
    pub fn page(&self, url: &str) -> Result<(serde_json::Value, Option<String>), String> {
        let (at, mut answer, _) = self.follow(url, None)?;
        let headers = answer.headers().clone();
        if answer.status() != StatusCode::OK {
            return Err(refusal(&at, answer.status(), &headers, answer.body_mut()));
        }
        let mut text = Vec::new();
        let mut body = answer.body_mut().as_reader().take(MAX_PAGE + 1);
        body.read_to_end(&mut text)
            .map_err(|e| format!("{at}: the answer was cut short ({e})"))?;
        self.pay(text.len() as u64)?;
        if text.len() as u64 > MAX_PAGE {
            return Err(format!(
                "{at}: a page of the listing is longer than {MAX_PAGE} bytes"
            ));
        }
        let doc = serde_json::from_slice(&text)
            .map_err(|e| format!("{at}: the listing is not JSON ({e})"))?;
        let next = header(&headers, "link").and_then(|link| next_link(&link));
        Ok((doc, next.map(|next| join(&at, &next))))
    }

    /// Sends a GET of `url`, with `range` if given, following redirects by hand: the URL
    /// that answered, its answer, and the Hub's headers met on the way.
    fn follow(
        &self,
        url: &str,
        range: Option<&str>,
    ) -> Result<(String, Response<Body>, HubHeaders), String> {
        let mut at = url.to_owned();
        let mut seen = vec![at.clone()];
        let mut hub = HubHeaders::default();
        for _ in 0..=MAX_REDIRECTS {
            check_scheme(&at).map_err(|e| format!("{at}: {e}"))?;
            let answer = self.send(&at, range)?;
            let headers = answer.headers();
            if url::origin(&at) == self.hub_origin {
                hub.read(headers);
            }
            let status = answer.status();
            if !status.is_redirection() {
                return Ok((at, answer, hub));
            }
            let location = header(headers, "location")
                .ok_or_else(|| format!("{at} answered {status} with no Location"))?;
            at = join(&at, &location);
            if seen.contains(&at) {
                return Err(format!("redirect loop: {at} leads back to itself"));
            }
            seen.push(at.clone());
        }
        Err(format!(
            "more than {MAX_REDIRECTS} redirects from {url} (last: {at})"
        ))
    }

    /// Sends one GET, retrying `429` and `5xx` answers.
    fn send(&self, at: &str, range: Option<&str>) -> Result<Response<Body>, String> {
        let loopback = url::is_loopback(url::host(at));
        let agent = if loopback { &self.direct } else { &self.agent };
        let mut tries = 0;
        loop {
            let mut request = agent.get(at);
            if let Some(range) = range {
                request = request.header("Range", range);
            }
            if let Some(token) = self
                .token
                .as_ref()
                .filter(|_| url::origin(at) == self.hub_origin)
            {
                request = request.header("Authorization", format!("Bearer {token}"));
            }
            let answer = request
                .call()
                .map_err(|e| format!("{at}: {}", transport(&e)))?;
            let status = answer.status().as_u16();
            if (status == 429 || status >= 500) && tries < RETRIES {
                tries += 1;
                let wait = header(answer.headers(), "retry-after")
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .map_or(Duration::from_millis(500 << tries), Duration::from_secs);
                std::thread::sleep(wait.min(LONGEST_WAIT));
                continue;
            }
            return Ok(answer);
        }
    }

    /// Turns a final answer into an [`Answer`], or an error naming what the server said.
    fn answer(
        &self,
        at: String,
        answer: &mut Response<Body>,
        start: u64,
        end: u64,
        hub: HubHeaders,
    ) -> Result<Answer, String> {
        let status = answer.status();
        let headers = answer.headers().clone();
        let length = header(&headers, "content-length").and_then(|s| s.trim().parse().ok());
        let etag = header(&headers, "etag");
        let range = match status {
            StatusCode::PARTIAL_CONTENT => {
                let declared = header(&headers, "content-range");
                let parsed = declared.as_deref().and_then(content_range);
                let Some((from, to, total)) = parsed else {
                    let shown = declared.map_or("none".to_owned(), |d| {
                        format!("\"{}\"", crate::escape::sanitize(&d))
                    });
                    return Err(format!(
                        "{at} answered 206 with Content-Range {shown}, not bytes A-B/TOTAL"
                    ));
                };
                if from != start || to > end || to <= from {
                    return Err(format!("{at} answered bytes {from}-{} of {total} to a request for bytes {start}-{}", to - 1, end - 1));
                }
                Some((from, to, total))
            }
            StatusCode::OK => None,
            // An empty file has no range to give.
            StatusCode::RANGE_NOT_SATISFIABLE
                if header(&headers, "content-range").as_deref() == Some("bytes */0") =>
            {
                return Ok(Answer {
                    url: at,
                    range: None,
                    length: Some(0),
                    hub,
                    etag,
                    body: Body::builder().data(Vec::new()),
                });
            }
            StatusCode::RANGE_NOT_SATISFIABLE => {
                return Err(format!("{at} refused the range bytes={start}-{} (416): the file is shorter than it said", end.saturating_sub(1)));
            }
            _ => return Err(refusal(&at, status, &headers, answer.body_mut())),
        };
        Ok(Answer {
            url: at,
            range,
            length,
            hub,
            etag,
            body: std::mem::replace(answer.body_mut(), Body::builder().data(Vec::new())),
        })
    }
}

impl HubHeaders {
    fn read(&mut self, headers: &HeaderMap) {
        let unquote = |s: String| {
            s.trim()
                .trim_start_matches("W/")
                .trim_matches('"')
                .to_owned()
        };
        if let Some(commit) = header(headers, "x-repo-commit") {
            self.commit.get_or_insert(commit);
        }
        if let Some(sha) = header(headers, "x-linked-etag").map(unquote) {
            self.sha256.get_or_insert(sha);
        }
        if let Some(size) = header(headers, "x-linked-size").and_then(|s| s.trim().parse().ok()) {
            self.linked_size.get_or_insert(size);
        }
        if let Some(etag) = header(headers, "etag").map(unquote) {
            self.etag.get_or_insert(etag);
        }
    }
}

/// The URL of `rel="next"` in a `Link` header.
fn next_link(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        let next = params.split(';').any(|p| {
            let p = p.trim().replace(' ', "");
            p == "rel=\"next\"" || p == "rel=next"
        });
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        next.then(|| target.to_owned())
    })
}

/// A header's value as text, if it is text.
fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    Some(headers.get(name)?.to_str().ok()?.to_owned())
}

/// `bytes A-B/TOTAL` as `(A, B + 1, TOTAL)`, if well formed and consistent.
fn content_range(value: &str) -> Option<(u64, u64, u64)> {
    let rest = value.trim().strip_prefix("bytes ")?;
    let (span, total) = rest.split_once('/')?;
    let (a, b) = span.split_once('-')?;
    let (a, b, total): (u64, u64, u64) = (a.parse().ok()?, b.parse().ok()?, total.parse().ok()?);
    (a <= b && b < total).then_some((a, b + 1, total))
}

/// `location` resolved against `base`: absolute, or a path on the same origin.
fn join(base: &str, location: &str) -> String {
    let location = location.trim();
    if location.contains("://") {
        return location.to_owned();
    }
    let origin_end = base
        .find("://")
        .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j))
        .unwrap_or(base.len());
    let origin = &base[..origin_end];
    match location.strip_prefix('/') {
        Some(path) => format!("{origin}/{path}"),
        None => {
            let dir = base
                .rfind('/')
                .filter(|&i| i >= origin_end)
                .map_or(base, |i| &base[..i]);
            format!("{dir}/{location}")
        }
    }
}

/// What a transport error means, in words.
fn transport(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(t) => format!("no answer in time ({t})"),
        ureq::Error::HostNotFound => "host not found (offline?)".to_owned(),
        ureq::Error::ConnectionFailed => "connection failed (offline?)".to_owned(),
        ureq::Error::Io(io) => format!("connection failed: {io}"),
        other => other.to_string(),
    }
}

/// The error for an answer that is not the file: what the Hub or server said, with the
/// start of its body (the Hub answers errors as JSON `{"error": ...}`).
fn refusal(at: &str, status: StatusCode, headers: &HeaderMap, body: &mut Body) -> String {
    let code = header(headers, "x-error-code");
    let mut text = String::new();
    let _ = body.as_reader().take(ERROR_BODY).read_to_string(&mut text);
    let said = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("error")?.as_str().map(str::to_owned))
        .unwrap_or(text);
    let said = crate::escape::sanitize(said.trim()).into_owned();
    let why = match (status.as_u16(), code.as_deref()) {
        (401 | 403, _) => "not allowed: a gated or private repository needs a token (HF_TOKEN, or `huggingface-cli login`) with access",
        (404, Some("RepoNotFound")) => "no such repository (or it is private: set HF_TOKEN)",
        (404, Some("RevisionNotFound")) => "no such revision",
        (404, Some("EntryNotFound")) => "no such file in the repository",
        (404, _) => "not found",
        (429, _) => "rate limited, and still after retrying",
        (500.., _) => "the server failed, and still after retrying",
        _ => "unexpected answer",
    };
    match said.is_empty() {
        true => format!("{at}: {why} ({status})"),
        false => format!("{at}: {why} ({status}: {said})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_and_locations_are_read_strictly() {
        assert_eq!(content_range("bytes 0-99/1000"), Some((0, 100, 1000)));
        for bad in [
            "bytes 5-4/10",
            "bytes 0-10/10",
            "bytes */10",
            "0-9/10",
            "bytes 0-9/x",
        ] {
            assert_eq!(content_range(bad), None, "{bad}");
        }
        let link = r#"<https://hub.example/api/models/o/r/tree/main?cursor=abc>; rel="next", <x>; rel="prev""#;
        assert_eq!(
            next_link(link).as_deref(),
            Some("https://hub.example/api/models/o/r/tree/main?cursor=abc")
        );
        assert_eq!(next_link(r#"<x>; rel="prev""#), None);
        let base = "https://hub.example/o/r/resolve/main/m.gguf";
        assert_eq!(join(base, "https://cdn.example/x"), "https://cdn.example/x");
        assert_eq!(join(base, "/api/x"), "https://hub.example/api/x");
        assert_eq!(
            join(base, "n.gguf"),
            "https://hub.example/o/r/resolve/main/n.gguf"
        );
    }
}
