//! A server on the loopback interface that plays the Hugging Face Hub, for the tests of
//! remote files: HTTP/1.1 over `std::net`, a thread per connection.
//!
//! Two listeners, as on the Hub: the Hub itself answers `resolve` with a `302` to the second
//! (a CDN), carrying `X-Repo-Commit`, `X-Linked-Size`, `X-Linked-Etag` and `ETag`, and checks
//! the token if one is set; the CDN serves byte ranges (`206` with `Content-Range`) and records
//! whether a token reached it; both answer `HEAD` as `huggingface_hub` sends it. The tree API
//! lists a repository by pages, with `Link: <...>; rel="next"`. Each misbehaviour of [`Misbehaviour`] can be switched on. Every body byte
//! served is counted per file.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The commit every revision resolves to.
pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// Something a server does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Misbehaviour {
    /// Nothing.
    #[default]
    None,
    /// Ranges ignored: `200` with the whole file.
    IgnoreRange,
    /// A `206` whose body stops short of its `Content-Range`, then the connection closes.
    ShortBody,
    /// A `206` whose body is longer than its `Content-Range`.
    LongBody,
    /// A `206` without `Content-Range`.
    NoContentRange,
    /// A `206` for another range than the one asked.
    WrongRange,
    /// The total in `Content-Range` grows by one after the first answer.
    SizeChanges,
    /// The CDN redirects to itself.
    RedirectLoop,
    /// The CDN sends its headers and then nothing.
    Stall,
    /// The first `n` requests to the CDN answer `429` with `Retry-After: 0`.
    RateLimited(u32),
    /// Every request to the CDN answers `503`.
    Down,
    /// Every `206` holds one byte, the first asked for.
    Trickle,
}

/// A file the Hub serves.
#[derive(Clone)]
pub enum Content {
    /// Bytes in memory.
    Bytes(Arc<Vec<u8>>),
    /// A file on disk (read at each range, so it may be sparse and huge).
    File(PathBuf),
}

impl Content {
    fn len(&self) -> u64 {
        match self {
            Content::Bytes(b) => b.len() as u64,
            Content::File(p) => std::fs::metadata(p).unwrap().len(),
        }
    }

    fn read(&self, start: u64, len: u64) -> Vec<u8> {
        match self {
            Content::Bytes(b) => b[start as usize..(start + len) as usize].to_vec(),
            Content::File(p) => {
                use std::os::unix::fs::FileExt;
                let mut buf = vec![0; len as usize];
                std::fs::File::open(p)
                    .unwrap()
                    .read_exact_at(&mut buf, start)
                    .unwrap();
                buf
            }
        }
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `hub` or `cdn`.
    pub host: &'static str,
    /// The request line's method and target.
    pub method: String,
    pub target: String,
    /// The `Range` header, if any.
    pub range: Option<String>,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

#[derive(Default)]
struct State {
    /// By path in the repository `org/repo`.
    files: HashMap<String, Content>,
    token: Option<String>,
    misbehaviour: Misbehaviour,
    /// Body bytes served, by path.
    served: HashMap<String, u64>,
    seen: Vec<Seen>,
    /// Requests the CDN answered.
    cdn_requests: u32,
    cdn: String,
    /// Entries of the tree API per page.
    page: usize,
    /// Paths the tree API lists beside the files, served by nobody, with their sizes.
    phantoms: Vec<(String, u64)>,
    /// Sizes the tree API gives instead of the files' own.
    lies: HashMap<String, u64>,
    /// Files the tree API lists after the real ones, made up as it goes: `w{n}.bin`.
    made_up: usize,
    /// How long each request waits before it is answered, as over a real network.
    delay: std::time::Duration,
    /// Requests being answered now, and the most there were at once.
    in_flight: (usize, usize),
    /// Whether the tree API gives the files' true digests: `.json` files as stored in git
    /// (their blob id), the others as LFS files (their SHA-256); otherwise made up.
    true_digests: bool,
}

/// The Hub and its CDN, each on a port of 127.0.0.1, running until dropped.
pub struct Hub {
    /// `http://127.0.0.1:PORT`: what `HF_ENDPOINT` is set to.
    pub endpoint: String,
    state: Arc<Mutex<State>>,
}

impl Hub {
    /// Starts a Hub serving nothing yet.
    pub fn start() -> Hub {
        let state = Arc::new(Mutex::new(State {
            page: 2,
            ..State::default()
        }));
        let hub = TcpListener::bind("127.0.0.1:0").unwrap();
        let cdn = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", hub.local_addr().unwrap());
        state.lock().unwrap().cdn = format!("http://{}", cdn.local_addr().unwrap());
        for (listener, host) in [(hub, "hub"), (cdn, "cdn")] {
            let state = state.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    // Each answer is sent whole: no wait for an acknowledgement in between.
                    let _ = stream.set_nodelay(true);
                    let state = state.clone();
                    std::thread::spawn(move || serve(stream, host, &state));
                }
            });
        }
        Hub { endpoint, state }
    }

    /// Makes the tree API give the files' true digests ([`State::true_digests`]).
    pub fn true_digests(&self) {
        self.state.lock().unwrap().true_digests = true;
    }

    /// Makes each request wait `delay` before its answer from now on.
    pub fn delay(&self, delay: std::time::Duration) {
        self.state.lock().unwrap().delay = delay;
    }

    /// The most requests that were being answered at once.
    pub fn most_in_flight(&self) -> usize {
        self.state.lock().unwrap().in_flight.1
    }

    /// Serves `content` as `path` of the repository `org/repo`.
    pub fn add(&self, path: &str, content: Content) {
        self.state
            .lock()
            .unwrap()
            .files
            .insert(path.to_owned(), content);
    }

    /// Serves every file below `dir` by its path there.
    pub fn add_dir(&self, dir: &std::path::Path) {
        for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
            if entry.file_type().is_file() {
                let path = entry.path().strip_prefix(dir).unwrap();
                let path = path.to_string_lossy().into_owned();
                self.add(&path, Content::File(entry.into_path()));
            }
        }
    }

    /// Entries of the tree API per page from now on.
    pub fn page_size(&self, entries: usize) {
        self.state.lock().unwrap().page = entries;
    }

    /// Lists `path` too, a file the Hub does not serve (such as `../x`).
    pub fn list_phantom(&self, path: &str) {
        self.state
            .lock()
            .unwrap()
            .phantoms
            .push((path.to_owned(), 10));
    }

    /// Lists the file `path` with the size `size`, not its own.
    pub fn list_size(&self, path: &str, size: u64) {
        self.state
            .lock()
            .unwrap()
            .lies
            .insert(path.to_owned(), size);
    }

    /// Lists `n` more files after the real ones, made up page by page.
    pub fn list_made_up(&self, n: usize) {
        self.state.lock().unwrap().made_up = n;
    }

    /// How many pages of the tree API were asked for.
    pub fn pages(&self) -> usize {
        let seen = self.seen();
        seen.iter().filter(|s| s.target.contains("/tree/")).count()
    }

    /// Serves the bytes `bytes` as `path`.
    pub fn add_bytes(&self, path: &str, bytes: Vec<u8>) {
        self.add(path, Content::Bytes(Arc::new(bytes)));
    }

    /// Requires `token` from now on.
    pub fn require_token(&self, token: &str) {
        self.state.lock().unwrap().token = Some(token.to_owned());
    }

    /// Misbehaves as `m` from now on.
    pub fn misbehave(&self, m: Misbehaviour) {
        let mut state = self.state.lock().unwrap();
        state.misbehaviour = m;
        state.cdn_requests = 0;
    }

    /// Body bytes served for `path` so far.
    pub fn served(&self, path: &str) -> u64 {
        *self.state.lock().unwrap().served.get(path).unwrap_or(&0)
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    /// `hf://org/repo/PATH`.
    pub fn hf(path: &str) -> String {
        format!("hf://org/repo/{path}")
    }
}

/// Serves the requests of one connection until it closes.
fn serve(stream: TcpStream, host: &'static str, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (
            parts.next().unwrap_or("").to_owned(),
            parts.next().unwrap_or("").to_owned(),
        );
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let seen = Seen {
            host,
            method: method.clone(),
            target: target.clone(),
            range: headers.get("range").cloned(),
            authorization: headers.get("authorization").cloned(),
        };
        let delay = {
            let mut state = state.lock().unwrap();
            state.seen.push(seen.clone());
            state.in_flight.0 += 1;
            state.in_flight.1 = state.in_flight.1.max(state.in_flight.0);
            state.delay
        };
        std::thread::sleep(delay);
        let keep = match host {
            "hub" => hub(&mut out, &seen, state),
            _ => cdn(&mut out, &seen, state),
        };
        state.lock().unwrap().in_flight.0 -= 1;
        if out.flush().is_err() || !keep {
            return;
        }
    }
}

/// Sends an answer; to `HEAD`, without its body.
fn respond(
    out: &mut TcpStream,
    seen: &Seen,
    status: &str,
    headers: &[(&str, String)],
    body: &[u8],
) {
    let mut head = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut answer = head.into_bytes();
    if seen.method != "HEAD" {
        answer.extend_from_slice(body);
    }
    let _ = out.write_all(&answer);
}

/// The answer to `HEAD` of a file: its size and `ETag`, no body.
fn head(out: &mut TcpStream, total: u64) {
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {total}\r\nAccept-Ranges: bytes\r\nETag: \"{total:064x}\"\r\n\r\n");
    let _ = out.write_all(head.as_bytes());
}

/// The Hub: `resolve` and the tree API.
fn hub(out: &mut TcpStream, seen: &Seen, state: &Mutex<State>) -> bool {
    let state = &mut *state.lock().unwrap();
    if let Some(token) = &state.token {
        if seen.authorization.as_deref() != Some(&format!("Bearer {token}")) {
            let body = br#"{"error":"Access to model org/repo is restricted. You must have access to it and be authenticated to access it. Please log in."}"#;
            respond(
                out,
                seen,
                "401 Unauthorized",
                &[("X-Error-Code", "GatedRepo".into())],
                body,
            );
            return true;
        }
    }
    let target = seen.target.split('?').next().unwrap_or("");
    if target == "/_served" {
        // For benchmarks: the body bytes served so far, by file; `?reset` starts again.
        let mut served: Vec<String> = (state.served.iter())
            .map(|(path, n)| format!("{path:?}: {n}"))
            .collect();
        served.sort();
        if seen.target.ends_with("?reset") {
            state.served.clear();
        }
        respond(
            out,
            seen,
            "200 OK",
            &[],
            format!("{{{}}}", served.join(", ")).as_bytes(),
        );
        return true;
    }
    if let Some(rest) = target.strip_prefix("/api/models/org/repo/tree/") {
        return tree(out, seen, state, rest);
    }
    if target.starts_with("/api/models/org/repo/revision/") {
        let body = format!(r#"{{"id":"org/repo","sha":"{COMMIT}","siblings":[]}}"#);
        respond(out, seen, "200 OK", &[], body.as_bytes());
        return true;
    }
    let Some(rest) = target.strip_prefix("/org/repo/resolve/") else {
        respond(
            out,
            seen,
            "404 Not Found",
            &[("X-Error-Code", "RepoNotFound".into())],
            br#"{"error":"Repository not found"}"#,
        );
        return true;
    };
    let (_rev, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path.replace("%20", " ");
    let Some(content) = state.files.get(&path) else {
        respond(
            out,
            seen,
            "404 Not Found",
            &[("X-Error-Code", "EntryNotFound".into())],
            br#"{"error":"Entry not found"}"#,
        );
        return true;
    };
    let len = content.len();
    let sha = format!("{:064x}", len);
    let headers = [
        ("X-Repo-Commit", COMMIT.to_owned()),
        ("X-Linked-Size", len.to_string()),
        ("X-Linked-Etag", format!("\"{sha}\"")),
        ("ETag", format!("\"{sha}\"")),
        (
            "Location",
            format!("{}/blobs/{}", state.cdn, path.replace(' ', "%20")),
        ),
    ];
    respond(out, seen, "302 Found", &headers, b"");
    true
}

/// The tree API: every file below the folder asked for (`REV[/DIR]`), `page` to a page,
/// with a `Link` to the next; then the phantoms and the made-up files.
fn tree(out: &mut TcpStream, seen: &Seen, state: &State, rest: &str) -> bool {
    let dir = rest.split_once('/').map(|(_, dir)| format!("{dir}/"));
    let mut names: Vec<(String, u64)> = (state.files.iter())
        .filter(|(n, _)| dir.as_ref().is_none_or(|d| n.starts_with(d)))
        .map(|(n, c)| (n.clone(), *state.lies.get(n).unwrap_or(&c.len())))
        .collect();
    names.sort();
    names.extend(state.phantoms.iter().cloned());
    let total = names.len() + state.made_up;
    let cursor: usize = seen
        .target
        .split("cursor=")
        .nth(1)
        .and_then(|c| c.split('&').next()?.parse().ok())
        .unwrap_or(0);
    let page: Vec<String> = (cursor..total.min(cursor + state.page))
        .map(|i| match names.get(i) {
            Some((n, len)) if state.true_digests => {
                let bytes = state.files.get(n).map(|c| c.read(0, c.len())).unwrap_or_default();
                match n.ends_with(".json") {
                    true => {
                        let oid = rtenx::source::digest::git_blob_id(&rtenx::source::ModelFile::in_memory("", bytes));
                        format!(r#"{{"type":"file","path":"{n}","size":{len},"oid":"{oid}"}}"#)
                    }
                    false => {
                        let sha = rtenx::source::digest::sha256_hex(&bytes);
                        format!(r#"{{"type":"file","path":"{n}","size":{len},"oid":"x","lfs":{{"oid":"{sha}","size":{len},"pointerSize":134}}}}"#)
                    }
                }
            }
            Some((n, len)) => format!(r#"{{"type":"file","path":"{n}","size":{len},"oid":"x","lfs":{{"oid":"{len:064x}","size":{len},"pointerSize":134}}}}"#),
            None => format!(r#"{{"type":"file","path":"w{i}.bin","size":1,"oid":"x"}}"#),
        })
        .collect();
    let mut headers = Vec::new();
    if cursor + state.page < total {
        let base = seen.target.split('?').next().unwrap_or("");
        let next = format!(
            "<{base}?recursive=true&cursor={}>; rel=\"next\"",
            cursor + state.page
        );
        headers.push(("Link", next));
    }
    respond(
        out,
        seen,
        "200 OK",
        &headers,
        format!("[{}]", page.join(",")).as_bytes(),
    );
    true
}

/// The CDN: byte ranges of the files, misbehaving as asked.
fn cdn(out: &mut TcpStream, seen: &Seen, state: &Mutex<State>) -> bool {
    let (content, path, misbehaviour, n, cdn) = {
        let mut state = state.lock().unwrap();
        state.cdn_requests += 1;
        let path = seen
            .target
            .strip_prefix("/blobs/")
            .unwrap_or("")
            .replace("%20", " ");
        let content = state.files.get(&path).cloned();
        (
            content,
            path,
            state.misbehaviour,
            state.cdn_requests,
            state.cdn.clone(),
        )
    };
    let Some(content) = content else {
        respond(out, seen, "404 Not Found", &[], b"");
        return true;
    };
    match misbehaviour {
        Misbehaviour::RedirectLoop => {
            respond(
                out,
                seen,
                "302 Found",
                &[("Location", format!("{cdn}{}", seen.target))],
                b"",
            );
            return true;
        }
        Misbehaviour::RateLimited(first) if n <= first => {
            respond(
                out,
                seen,
                "429 Too Many Requests",
                &[("Retry-After", "0".into())],
                b"",
            );
            return true;
        }
        Misbehaviour::Down => {
            respond(
                out,
                seen,
                "503 Service Unavailable",
                &[("Retry-After", "0".into())],
                b"slow down",
            );
            return true;
        }
        _ => {}
    }
    let total = content.len();
    if seen.method == "HEAD" {
        head(out, total);
        return true;
    }
    let range = seen.range.as_deref().and_then(|r| {
        let (a, b) = r.strip_prefix("bytes=")?.split_once('-')?;
        let a: u64 = a.parse().ok()?;
        let b: u64 = b.parse::<u64>().ok()?.min(total.saturating_sub(1));
        (a <= b).then_some((a, b))
    });
    let count = |bytes: usize| {
        *state
            .lock()
            .unwrap()
            .served
            .entry(path.clone())
            .or_default() += bytes as u64;
    };
    if total == 0 && range.is_some() {
        respond(
            out,
            seen,
            "416 Range Not Satisfiable",
            &[("Content-Range", "bytes */0".into())],
            b"",
        );
        return true;
    }
    let Some((a, b)) = range.filter(|_| misbehaviour != Misbehaviour::IgnoreRange) else {
        // The whole file, streamed: a client that stops reading stops the server.
        let head =
            format!("HTTP/1.1 200 OK\r\nContent-Length: {total}\r\nETag: \"{total:064x}\"\r\n\r\n");
        let _ = out.write_all(head.as_bytes());
        let mut at = 0;
        while at < total {
            let chunk = content.read(at, (total - at).min(1 << 16));
            if out.write_all(&chunk).is_err() {
                return false;
            }
            count(chunk.len());
            at += chunk.len() as u64;
        }
        return true;
    };
    let (mut a_shown, mut b_shown, mut total_shown) = (a, b, total);
    match misbehaviour {
        Misbehaviour::WrongRange => (a_shown, b_shown) = (a + 1, b.max(a + 1)),
        Misbehaviour::SizeChanges if n > 1 => total_shown += 1,
        Misbehaviour::Trickle => b_shown = a,
        _ => {}
    }
    let sent = match misbehaviour {
        Misbehaviour::Trickle => 1,
        _ => b - a + 1,
    };
    let body = content.read(a, sent);
    let mut headers = vec![("ETag", format!("\"{total:064x}\""))];
    if misbehaviour != Misbehaviour::NoContentRange {
        headers.push((
            "Content-Range",
            format!("bytes {a_shown}-{b_shown}/{total_shown}"),
        ));
    }
    match misbehaviour {
        Misbehaviour::ShortBody => {
            // Declares it all, sends half, and closes.
            let mut head = "HTTP/1.1 206 Partial Content\r\n".to_owned();
            for (k, v) in &headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
            let half = &body[..body.len() / 2];
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(half);
            count(half.len());
            false
        }
        Misbehaviour::LongBody => {
            let mut long = body.clone();
            long.extend(vec![0xAA; 4096]);
            count(long.len());
            respond(out, seen, "206 Partial Content", &headers, &long);
            false
        }
        Misbehaviour::Stall => {
            let _ = out.write_all(format!("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {a}-{b}/{total}\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes());
            let _ = out.flush();
            std::thread::sleep(Duration::from_secs(20));
            false
        }
        _ => {
            count(body.len());
            respond(out, seen, "206 Partial Content", &headers, &body);
            true
        }
    }
}
