//! What can be wrong with a signed model, each with its rule and a message that names the
//! file and, for a digest, the expected and actual hex.

use super::rules;
use crate::check::Rule;
use crate::escape::sanitize;

/// One problem found checking a model against its signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The signature file could not be read.
    Unreadable(String),
    /// A format, type or method rtenx does not know.
    Unsupported(String),
    /// The subject's root digest is not the digest of the resources.
    RootDigest {
        /// As the subject has it.
        written: String,
        /// SHA-256 over the resource digests.
        computed: String,
    },
    /// No file of the model is covered.
    NothingCovered,
    /// A resource name that is not a normal, unique path inside the model.
    BadName {
        /// As written.
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A file in the model that the signature does not cover (or bytes of it, for shards).
    NotSigned {
        /// The path relative to the model.
        path: String,
        /// Which bytes, for shards.
        range: Option<(u64, u64)>,
    },
    /// A resource with no file (or no such bytes) in the model.
    Missing {
        /// The resource name.
        name: String,
        /// Why it could not be found or read.
        why: String,
    },
    /// A file or shard whose digest is not the signed one.
    Digest {
        /// The resource name.
        name: String,
        /// The signed digest.
        expected: String,
        /// The digest of the bytes on disk.
        actual: String,
    },
    /// Signature `index` (from 0) of the envelope does not verify with the given key.
    BadSignature {
        /// Its place in the envelope.
        index: usize,
    },
    /// No signature verifies with the given key.
    Unverified {
        /// The key's curve.
        curve: &'static str,
    },
    /// No key was given, so no signature was checked.
    NotChecked,
    /// A symlink the signature does not allow, or that leads out of the model.
    Symlink {
        /// The path relative to the model.
        path: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

impl Problem {
    /// The rule it breaks.
    pub fn rule(&self) -> &'static Rule {
        match self {
            Problem::Unreadable(_) => &rules::UNREADABLE,
            Problem::Unsupported(_) => &rules::UNSUPPORTED,
            Problem::RootDigest { .. } => &rules::ROOT_DIGEST_MISMATCH,
            Problem::NothingCovered => &rules::NOTHING_COVERED,
            Problem::BadName { .. } => &rules::BAD_RESOURCE_NAME,
            Problem::NotSigned { .. } => &rules::FILE_NOT_SIGNED,
            Problem::Missing { .. } => &rules::SIGNED_FILE_MISSING,
            Problem::Digest { .. } => &rules::DIGEST_MISMATCH,
            Problem::Symlink { .. } => &rules::SYMLINK,
            Problem::BadSignature { .. } => &rules::SIGNATURE_INVALID,
            Problem::Unverified { .. } => &rules::SIGNATURE_UNVERIFIED,
            Problem::NotChecked => &rules::SIGNATURE_NOT_CHECKED,
        }
    }

    /// What is wrong, untrusted names escaped.
    pub fn message(&self) -> String {
        match self {
            Problem::Unreadable(why) => format!("the signature cannot be read: {}", sanitize(why)),
            Problem::Unsupported(what) => format!("{}", sanitize(what)),
            Problem::RootDigest { written, computed } => format!(
                "the signed root digest is {}, but the signed resources hash to {computed}",
                sanitize(written)
            ),
            Problem::NothingCovered => {
                "the signature covers no file of the model, so it would accept any content".into()
            }
            Problem::BadName { name, why } => {
                format!("the signed resource \"{}\" {why}", sanitize(name))
            }
            Problem::NotSigned { path, range: None } => {
                format!("\"{}\" is in the model but not signed", sanitize(path))
            }
            Problem::NotSigned {
                path,
                range: Some((start, end)),
            } => format!(
                "bytes {start}..{end} of \"{}\" are in the model but not signed",
                sanitize(path)
            ),
            Problem::Missing { name, why } => {
                format!("the signed \"{}\" {}", sanitize(name), sanitize(why))
            }
            Problem::Digest {
                name,
                expected,
                actual,
            } => format!(
                "\"{}\" changed since it was signed: signed digest {}, now {actual}",
                sanitize(name),
                sanitize(expected)
            ),
            Problem::BadSignature { index } => format!(
                "signature {} of the envelope does not verify with the given key",
                index + 1
            ),
            Problem::Unverified { curve } => format!(
                "no signature of the envelope verifies with the given {curve} key: \
                 the payload was changed or signed with another key"
            ),
            Problem::NotChecked => "the signature was not verified (no --public-key given); \
                 only the files were checked against the signed manifest"
                .into(),
            Problem::Symlink { path, why } => format!("\"{}\" {why}", sanitize(path)),
        }
    }
}
