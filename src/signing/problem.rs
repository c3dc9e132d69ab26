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
    /// Signature `index` (from 0) of the envelope does not verify with the key.
    BadSignature {
        /// Its place in the envelope.
        index: usize,
        /// Which key, such as "the given P-256 key".
        key: String,
    },
    /// No signature verifies with the key.
    Unverified {
        /// Which key.
        key: String,
    },
    /// Trust anchors were given, but the bundle holds no certificate.
    NoCertificate,
    /// No key or trust anchor was given, so no signature was checked.
    NotChecked,
    /// A certificate cannot be read, or holds what rtenx cannot verify.
    BadCertificate {
        /// Which one: its subject, or its place in the bundle.
        which: String,
        /// What is wrong.
        why: String,
    },
    /// A certificate is signed with a weak hash or a small RSA key.
    WeakCertificate {
        /// Which one: its subject.
        which: String,
        /// What is weak.
        why: String,
    },
    /// No chain leads from the signer's certificate to a given one.
    Untrusted(String),
    /// An issuer in the chain is not a CA.
    NotCa {
        /// The issuer's subject.
        subject: String,
        /// The field and value that say so.
        why: String,
    },
    /// The signer's certificate is not for signing.
    CannotSign {
        /// Its subject.
        subject: String,
        /// The field and value that say so.
        why: String,
    },
    /// A certificate of the chain is not valid now.
    NotValidNow {
        /// Its subject.
        subject: String,
        /// `notBefore` or `notAfter`.
        field: &'static str,
        /// Its date, RFC 3339.
        date: String,
        /// The time of the check, RFC 3339.
        now: String,
    },
    /// The bundle carries a log entry or timestamp, which cannot be checked offline.
    TimestampNotChecked,
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
            Problem::NoCertificate => &rules::SIGNATURE_UNVERIFIED,
            Problem::NotChecked => &rules::SIGNATURE_NOT_CHECKED,
            Problem::BadCertificate { .. } => &rules::CERTIFICATE_UNREADABLE,
            Problem::WeakCertificate { .. } => &rules::CERTIFICATE_WEAK,
            Problem::Untrusted(_) => &rules::CERTIFICATE_UNTRUSTED,
            Problem::NotCa { .. } => &rules::ISSUER_NOT_CA,
            Problem::CannotSign { .. } => &rules::LEAF_CANNOT_SIGN,
            Problem::NotValidNow { .. } => &rules::CERTIFICATE_NOT_VALID_NOW,
            Problem::TimestampNotChecked => &rules::TIMESTAMP_NOT_CHECKED,
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
            Problem::BadSignature { index, key } => format!(
                "signature {} of the envelope does not verify with {}",
                index + 1,
                sanitize(key)
            ),
            Problem::Unverified { key } => format!(
                "no signature of the envelope verifies with {}: \
                 the payload was changed or signed with another key",
                sanitize(key)
            ),
            Problem::NoCertificate => "the bundle holds no certificate to verify with the \
                 given --certificate-chain (it was signed with a key: give --public-key)"
                .into(),
            Problem::NotChecked => "the signature was not verified (no --public-key or \
                 --certificate-chain given); only the files were checked against the signed \
                 manifest"
                .into(),
            Problem::BadCertificate { which, why } | Problem::WeakCertificate { which, why } => {
                format!("{}: {}", sanitize(which), sanitize(why))
            }
            Problem::Untrusted(why) => format!("{}", sanitize(why)),
            Problem::NotCa { subject, why } => format!(
                "the issuer \"{}\" is not a certificate authority: {}",
                sanitize(subject),
                sanitize(why)
            ),
            Problem::CannotSign { subject, why } => format!(
                "the signer's certificate \"{}\" is not for signing: {}",
                sanitize(subject),
                sanitize(why)
            ),
            Problem::NotValidNow {
                subject,
                field: "notBefore",
                date,
                now,
            } => format!(
                "the certificate \"{}\" is not valid yet: notBefore {date}, now {now}",
                sanitize(subject)
            ),
            Problem::NotValidNow {
                subject, date, now, ..
            } => format!(
                "the certificate \"{}\" has expired: notAfter {date}, now {now}",
                sanitize(subject)
            ),
            Problem::TimestampNotChecked => "the bundle carries a timestamp or transparency-log \
                 entry, which cannot be checked offline: the certificates were held to the time \
                 now"
            .into(),
            Problem::Symlink { path, why } => format!("\"{}\" {why}", sanitize(path)),
        }
    }
}
