//! The signed manifest made ready to compare with the model: the statement's format checked,
//! the root digest recomputed, every resource name parsed and judged (normalised, unique,
//! inside the model), and the hashing it records resolved.

use std::collections::BTreeMap;

use super::bundle::{Bundle, BUNDLE_MEDIA_TYPE};
use super::hash::HashType;
use super::pae::IN_TOTO_PAYLOAD_TYPE;
use super::problem::Problem;
use super::statement::{Statement, PREDICATE_V02, PREDICATE_V1, STATEMENT_TYPE};
use super::Signed;

/// The git paths `model_signing` ignores unless signed with `--no-ignore-git-paths`; the v0.2
/// format records no ignore list, so 1.x (and rtenx) ignore these for it.
const GIT_PATHS: [&str; 4] = [".git", ".gitattributes", ".github", ".gitignore"];

/// What the signature says the model is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest<'a> {
    /// The hash of every file or shard.
    pub hash: HashType,
    /// Bytes per shard; `None` for whole files.
    pub shard_size: Option<u64>,
    /// Whether symlinks inside the model are followed.
    pub allow_symlinks: bool,
    /// Signed ignore paths, as lists of components; an empty list is the whole model.
    pub ignore: Vec<Vec<&'a str>>,
    /// The digests by file path (`.` for a single-file model): for whole files one entry
    /// with `range` `None`, for shards one per shard.
    pub files: BTreeMap<&'a str, Vec<Part<'a>>>,
}

/// One resource of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part<'a> {
    /// `start..end` of a shard.
    pub range: Option<(u64, u64)>,
    /// The signed digest.
    pub digest: &'a [u8],
    /// The resource name as written.
    pub name: &'a str,
}

/// Checks the signed format and builds the manifest; `None` when the statement cannot be
/// compared with a model at all (its problems are in `problems`).
pub fn of<'a>(signed: &'a Signed, problems: &mut Vec<Problem>) -> Option<Manifest<'a>> {
    format(&signed.bundle, &signed.statement, problems);
    let st = &signed.statement;
    if st.predicate_type == PREDICATE_V02 {
        return Some(v02(st, problems));
    }
    let predicate = st.predicate.as_ref()?;
    let s = &predicate.serialization;
    match st.subjects.as_slice() {
        [subject] => {
            let root = super::hash::root_digest(predicate.resources.iter().map(|r| &r.digest[..]));
            if subject.sha256.as_deref() != Some(&root[..]) {
                problems.push(Problem::RootDigest {
                    written: subject.sha256.as_deref().map(hex).unwrap_or_default(),
                    computed: hex(&root),
                });
            }
        }
        subjects => problems.push(Problem::Unsupported(format!(
            "the statement has {} subjects, not one",
            subjects.len()
        ))),
    }
    let Some(hash) = HashType::named(&s.hash_type) else {
        problems.push(Problem::Unsupported(format!(
            "the hash type {:?} is not sha256, blake2b or blake3",
            s.hash_type
        )));
        return None;
    };
    let shard_size = match (s.method.as_str(), s.shard_size) {
        ("files", _) => None,
        ("shards", Some(size)) if size > 0 => Some(size),
        ("shards", _) => {
            problems.push(Problem::Unsupported("shards without a shard size".into()));
            return None;
        }
        (method, _) => {
            problems.push(Problem::Unsupported(format!(
                "the serialization method {method:?} is not files or shards"
            )));
            return None;
        }
    };
    let mut manifest = Manifest {
        hash,
        shard_size,
        allow_symlinks: s.allow_symlinks,
        ignore: s
            .ignore_paths
            .iter()
            .filter_map(|p| components(p))
            .collect(),
        files: BTreeMap::new(),
    };
    for r in &predicate.resources {
        let (path, range) = if shard_size.is_some() {
            match shard_name(&r.name) {
                Some((path, start, end)) => (path, Some((start, end))),
                None => {
                    problems.push(Problem::BadName {
                        name: r.name.clone(),
                        why: "is not path:start:end",
                    });
                    continue;
                }
            }
        } else {
            (r.name.as_str(), None)
        };
        manifest.add(path, range, &r.digest, &r.name, problems);
    }
    manifest.drop_repeats(problems);
    Some(manifest)
}

impl<'a> Manifest<'a> {
    fn add(
        &mut self,
        path: &'a str,
        range: Option<(u64, u64)>,
        digest: &'a [u8],
        name: &'a str,
        problems: &mut Vec<Problem>,
    ) {
        if let Some(why) = unsafe_name(path) {
            problems.push(Problem::BadName {
                name: name.to_owned(),
                why,
            });
            return;
        }
        self.files.entry(path).or_default().push(Part {
            range,
            digest,
            name,
        });
    }

    /// Drops the resources that repeat an earlier one's file (or shard), each a problem:
    /// `model_signing` keeps the last, so the first would be checked by one reader and the
    /// last by another.
    fn drop_repeats(&mut self, problems: &mut Vec<Problem>) {
        for parts in self.files.values_mut() {
            // Stable: the first of equal ranges stays first. A whole file (`None`) sorts first.
            parts.sort_by_key(|p| p.range);
            let mut kept: Vec<Part<'a>> = Vec::with_capacity(parts.len());
            for part in parts.drain(..) {
                let repeat = kept
                    .last()
                    .is_some_and(|last| last.range.is_none() || last.range == part.range);
                if repeat {
                    problems.push(Problem::BadName {
                        name: part.name.to_owned(),
                        why: "is listed twice",
                    });
                } else {
                    kept.push(part);
                }
            }
            *parts = kept;
        }
    }

    /// Whether the relative path (components) is left out by a signed ignore path.
    pub fn ignores(&self, path: &[&str]) -> bool {
        self.ignore.iter().any(|i| path.starts_with(i))
    }
}

/// Bundle media type, payload type, statement type and predicate type.
fn format(bundle: &Bundle, st: &Statement, problems: &mut Vec<Problem>) {
    let checks = [
        ("bundle media type", &bundle.media_type, BUNDLE_MEDIA_TYPE),
        (
            "payload type",
            &bundle.envelope.payload_type,
            IN_TOTO_PAYLOAD_TYPE,
        ),
        ("statement type", &st.kind, STATEMENT_TYPE),
    ];
    for (what, is, want) in checks {
        if is != want {
            problems.push(Problem::Unsupported(format!(
                "the {what} is {is:?}, not {want:?}"
            )));
        }
    }
    if st.predicate_type != PREDICATE_V1 && st.predicate_type != PREDICATE_V02 {
        problems.push(Problem::Unsupported(format!(
            "the predicate type {:?} is not model_signing's",
            st.predicate_type
        )));
    }
}

/// The v0.2 form: each subject a file, SHA-256, the git paths ignored.
fn v02<'a>(st: &'a Statement, problems: &mut Vec<Problem>) -> Manifest<'a> {
    let mut manifest = Manifest {
        hash: HashType::Sha256,
        shard_size: None,
        allow_symlinks: false,
        ignore: GIT_PATHS.iter().map(|p| vec![*p]).collect(),
        files: BTreeMap::new(),
    };
    for s in &st.subjects {
        match &s.sha256 {
            Some(digest) => manifest.add(&s.name, None, digest, &s.name, problems),
            None => problems.push(Problem::BadName {
                name: s.name.clone(),
                why: "has no sha256 digest",
            }),
        }
    }
    manifest.drop_repeats(problems);
    manifest
}

/// `path:start:end`, the offsets decimal and `start < end`.
fn shard_name(name: &str) -> Option<(&str, u64, u64)> {
    let (rest, end) = name.rsplit_once(':')?;
    let (path, start) = rest.rsplit_once(':')?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (start, end) = (number(start)?, number(end)?);
    (start < end).then_some((path, start, end))
}

/// Why a resource path is not a normal POSIX path inside the model, if it is not. `.` alone
/// is the single-file model.
fn unsafe_name(path: &str) -> Option<&'static str> {
    if path == "." {
        return None;
    }
    if path.is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') {
        return Some("is absolute");
    }
    if path.contains('\0') {
        return Some("holds a NUL byte");
    }
    for part in path.split('/') {
        match part {
            ".." => return Some("climbs out of the model with `..`"),
            "." => return Some("is not normalised (a `.` component)"),
            "" => return Some("is not normalised (an empty component)"),
            _ => {}
        }
    }
    None
}

/// The components of a signed ignore path relative to the model; `.` is the whole model.
/// A path that leaves the model ignores nothing in it.
fn components(path: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    (!path.starts_with('/') && !parts.contains(&"..")).then_some(parts)
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names_are_path_start_end() {
        assert_eq!(shard_name("a/b.bin:0:16"), Some(("a/b.bin", 0, 16)));
        assert_eq!(shard_name("x:y.bin:16:32"), Some(("x:y.bin", 16, 32)));
        assert_eq!(shard_name(".:0:16"), Some((".", 0, 16)));
        for bad in ["a:16:16", "a:1", "a:-1:2", "a:+1:2", "a:1:2x", "a::2"] {
            assert_eq!(shard_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn names_must_be_normal_and_inside() {
        for ok in [".", "a", "a/b.bin", ".hidden", "a..b"] {
            assert_eq!(unsafe_name(ok), None, "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "./a",
            "a//b",
            "a/",
            "a/.",
        ] {
            assert!(unsafe_name(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn ignore_paths_are_components() {
        assert_eq!(components("model.sig"), Some(vec!["model.sig"]));
        assert_eq!(components("./.git/"), Some(vec![".git"]));
        assert_eq!(components("."), Some(vec![]));
        assert_eq!(components("../x"), None);
        assert_eq!(components("/x"), None);
    }
}
