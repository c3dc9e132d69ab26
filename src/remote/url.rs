//! The forms of a remote path, and the URL each one is read from.
//!
//! `hf://ORG/REPO[@REVISION][/PATH]` and `hf://datasets/ORG/REPO...` are the paths of
//! `huggingface_hub`'s `HfFileSystem`; `https://huggingface.co/ORG/REPO/resolve/REV/PATH`
//! (or `blob`, the page of the same file) is the Hub's own URL of a file; any other `https://`
//! URL is read as it is. `HF_ENDPOINT` replaces `https://huggingface.co` for mirrors and
//! private hubs. Plain `http://` is refused except to the loopback interface.

/// The Hub's address unless `HF_ENDPOINT` names another.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// A file in a Hub repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubFile {
    /// `models`, `datasets` or `spaces`.
    pub kind: &'static str,
    /// `ORG/REPO`.
    pub repo: String,
    /// The revision as given (a branch, tag, commit or `refs/pr/N`); `main` if none.
    pub revision: String,
    /// The file's path in the repository.
    pub path: String,
}

/// What a remote path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A file of a Hub repository.
    Hub(HubFile),
    /// A whole Hub repository, at a revision.
    Repository {
        /// `models`, `datasets` or `spaces`.
        kind: &'static str,
        /// `ORG/REPO`.
        repo: String,
        /// The revision; `main` if none.
        revision: String,
    },
    /// Any other URL.
    Url(String),
}

/// A remote path the user typed: what it names and the endpoint it is resolved against.
#[derive(Debug, Clone)]
pub struct Remote {
    /// The path as given, for reports.
    pub given: String,
    /// What it names.
    pub target: Target,
    /// The Hub's endpoint (`HF_ENDPOINT` or [`DEFAULT_ENDPOINT`]), without a trailing slash.
    pub endpoint: String,
}

impl Remote {
    /// Parses `given` with the Hub at `endpoint`.
    pub fn parse(given: &str, endpoint: &str) -> Result<Self, String> {
        let endpoint = endpoint.trim_end_matches('/').to_owned();
        let target = if starts_with_ignore_case(given, "hf://") {
            hf_path(given.get(5..).unwrap_or_default())?
        } else if let Some(rest) = given.strip_prefix(&format!("{endpoint}/")) {
            hub_url(rest).unwrap_or_else(|| Target::Url(given.to_owned()))
        } else {
            Target::Url(given.to_owned())
        };
        if let Target::Url(url) = &target {
            check_scheme(url)?;
        }
        Ok(Remote {
            given: given.to_owned(),
            target,
            endpoint,
        })
    }

    /// The URL a file's bytes are read from; `None` for a repository.
    pub fn url(&self) -> Option<String> {
        match &self.target {
            Target::Hub(file) => Some(format!(
                "{}/{}{}/resolve/{}/{}",
                self.endpoint,
                kind_prefix(file.kind),
                file.repo,
                encode(&file.revision, false),
                encode(&file.path, true)
            )),
            Target::Url(url) => Some(url.clone()),
            Target::Repository { .. } => None,
        }
    }
}

/// The URL prefix of a kind of repository: models have none.
fn kind_prefix(kind: &str) -> &'static str {
    match kind {
        "datasets" => "datasets/",
        "spaces" => "spaces/",
        _ => "",
    }
}

/// Refuses a URL that is neither `https://` nor `http://` to the loopback interface.
pub fn check_scheme(url: &str) -> Result<(), String> {
    if starts_with_ignore_case(url, "https://") {
        return Ok(());
    }
    if starts_with_ignore_case(url, "http://") {
        return match is_loopback(host(url)) {
            true => Ok(()),
            false => Err(
                "plain http:// is refused except to the loopback interface: use https://"
                    .to_owned(),
            ),
        };
    }
    Err("not an https:// URL".to_owned())
}

/// The host of an `http(s)://` URL, without brackets or port.
pub fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next().unwrap_or_default();
    }
    authority.split(':').next().unwrap_or_default()
}

/// The scheme, host and port of a URL, lower-cased: what must match for a token to be sent.
pub fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let default_port = if scheme.eq_ignore_ascii_case("https") {
        ":443"
    } else {
        ":80"
    };
    let authority = authority.to_ascii_lowercase();
    let authority = authority.strip_suffix(default_port).unwrap_or(&authority);
    format!("{}://{authority}", scheme.to_ascii_lowercase())
}

/// Whether `host` is the loopback interface.
pub fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `ORG/REPO[@REVISION][/PATH]` after `hf://`, with an optional `datasets/` or `spaces/`.
fn hf_path(rest: &str) -> Result<Target, String> {
    let usage = "expected hf://ORG/REPO[@REVISION][/PATH] or hf://datasets/ORG/REPO/...";
    let (kind, rest) = match rest.split_once('/') {
        Some(("datasets", r)) => ("datasets", r),
        Some(("spaces", r)) => ("spaces", r),
        Some(("models", r)) => ("models", r),
        _ => ("models", rest),
    };
    let mut parts = rest.splitn(2, '/');
    let org = parts.next().filter(|o| !o.is_empty()).ok_or(usage)?;
    let rest = parts.next().ok_or(usage)?;
    let (name, after) = match rest.find(['@', '/']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if name.is_empty() {
        return Err(usage.to_owned());
    }
    let repo = format!("{org}/{name}");
    let (revision, path) = match after.strip_prefix('@') {
        Some(rev) => {
            // `refs/pr/N` and `refs/convert/NAME` hold slashes of their own.
            let own = if rev.starts_with("refs/") { 3 } else { 1 };
            let mut parts = rev.splitn(own + 1, '/');
            let revision: Vec<&str> = parts.by_ref().take(own).collect();
            (revision.join("/"), parts.next().unwrap_or_default())
        }
        None => ("main".to_owned(), after.trim_start_matches('/')),
    };
    if revision.is_empty() {
        return Err(usage.to_owned());
    }
    Ok(match path.trim_matches('/') {
        "" => Target::Repository {
            kind,
            repo,
            revision,
        },
        path => Target::Hub(HubFile {
            kind,
            repo,
            revision,
            path: path.to_owned(),
        }),
    })
}

/// `[datasets/|spaces/]ORG/REPO[/(resolve|blob)/REV/PATH]` after the endpoint.
fn hub_url(rest: &str) -> Option<Target> {
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (kind, rest) = match rest.split_once('/') {
        Some(("datasets", r)) => ("datasets", r),
        Some(("spaces", r)) => ("spaces", r),
        _ => ("models", rest),
    };
    let parts: Vec<&str> = rest.trim_end_matches('/').splitn(5, '/').collect();
    match parts.as_slice() {
        [org, name] if !org.is_empty() && !name.is_empty() => Some(Target::Repository {
            kind,
            repo: format!("{org}/{name}"),
            revision: "main".to_owned(),
        }),
        [org, name, "resolve" | "blob", rev, path] if !path.is_empty() => {
            Some(Target::Hub(HubFile {
                kind,
                repo: format!("{org}/{name}"),
                revision: decode(rev),
                path: decode(path),
            }))
        }
        [org, name, "tree", rev] => Some(Target::Repository {
            kind,
            repo: format!("{org}/{name}"),
            revision: decode(rev),
        }),
        _ => None,
    }
}

/// Percent-encodes what a URL path segment cannot hold; `/` too unless `keep_slash`.
pub fn encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        let plain = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'.' | b'~')
            || (keep_slash && b == b'/');
        match plain {
            true => out.push(char::from(b)),
            false => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Undoes percent-encoding; a malformed escape is kept as it is.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(given: &str) -> String {
        let remote = Remote::parse(given, DEFAULT_ENDPOINT).unwrap();
        remote
            .url()
            .unwrap_or_else(|| format!("{:?}", remote.target))
    }

    #[test]
    fn every_form_resolves_to_the_hubs_url_of_the_file() {
        let hub = "https://huggingface.co";
        assert_eq!(
            url("hf://org/repo/model.safetensors"),
            format!("{hub}/org/repo/resolve/main/model.safetensors")
        );
        assert_eq!(
            url("hf://org/repo@v1.0/sub/dir/m.gguf"),
            format!("{hub}/org/repo/resolve/v1.0/sub/dir/m.gguf")
        );
        assert_eq!(
            url("hf://org/repo@refs/pr/12/m.gguf"),
            format!("{hub}/org/repo/resolve/refs%2Fpr%2F12/m.gguf")
        );
        assert_eq!(
            url("hf://datasets/org/data/x y.npz"),
            format!("{hub}/datasets/org/data/resolve/main/x%20y.npz")
        );
        assert_eq!(
            url(&format!("{hub}/org/repo/blob/refs%2Fpr%2F1/m.pt")),
            format!("{hub}/org/repo/resolve/refs%2Fpr%2F1/m.pt")
        );
        assert_eq!(
            url(&format!(
                "{hub}/datasets/org/data/resolve/abc/d/e.bin?download=true"
            )),
            format!("{hub}/datasets/org/data/resolve/abc/d/e.bin")
        );
        assert_eq!(
            url("https://example.com/m.onnx"),
            "https://example.com/m.onnx"
        );
        for repo in [
            "hf://org/repo",
            "hf://org/repo@dev",
            &format!("{hub}/org/repo"),
        ] {
            assert!(url(repo).starts_with("Repository"), "{repo}");
        }
        let mirror = Remote::parse("hf://o/r/m.gguf", "http://127.0.0.1:9/").unwrap();
        assert_eq!(
            mirror.url().unwrap(),
            "http://127.0.0.1:9/o/r/resolve/main/m.gguf"
        );
    }

    #[test]
    fn plain_http_is_refused_but_on_loopback_and_malformed_paths_are_errors() {
        let refused = Remote::parse("http://example.com/m.gguf", DEFAULT_ENDPOINT);
        assert!(refused.unwrap_err().contains("https://"));
        for ok in [
            "http://127.0.0.1:8/m",
            "http://[::1]:8/m",
            "http://localhost/m",
        ] {
            assert!(Remote::parse(ok, DEFAULT_ENDPOINT).is_ok(), "{ok}");
        }
        for bad in ["hf://", "hf://org", "hf://org/", "hf://org/repo@/m"] {
            assert!(Remote::parse(bad, DEFAULT_ENDPOINT).is_err(), "{bad}");
        }
        assert_eq!(host("https://u:p@[::1]:443/x"), "::1");
        assert_eq!(origin("HTTPS://Hub.Example:443/a"), "https://hub.example");
        assert_ne!(
            origin("https://hub.example:8443/"),
            origin("https://hub.example/")
        );
        assert!(crate::source::names_remote("HF://o/r"));
        assert!(!crate::source::names_remote("model.onnx"));
    }
}
