//! The OpenSSF model signature over a model's folder (or file), as checked: what every
//! output shows of it (the Overview, `dump --json`, the ML-BOM). `signing` fills it; this
//! module only holds and describes it. Text from the bundle (subjects, names) is kept as
//! written and escaped where it is shown.

use super::display::Part;
use crate::escape::sanitize;
use serde::Serialize;
use std::fmt;

/// A model's signature and how its check went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Signature {
    /// The signature file's name (`model.sig`), as given or looked for.
    pub file: String,
    /// The signature file's path, as given or looked for.
    #[serde(skip)]
    pub path: std::path::PathBuf,
    /// What the check found.
    pub status: Status,
    /// Why it failed: the first error's message (already escaped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the bundle holds, when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<Bundle>,
}

/// The outcome of the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// A signature verifies with the material given, and the files match the manifest.
    Verified,
    /// The files match the manifest, but no key or root was given to verify the signature.
    IntegrityOnly,
    /// The check found an error (the findings say which).
    Failed,
    /// No signature file where one was looked for.
    None,
}

impl Status {
    /// How the status reads, such as `integrity only`.
    pub fn text(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::IntegrityOnly => "integrity only (not verified: no key or root given)",
            Status::Failed => "failed",
            Status::None => "none",
        }
    }
}

/// What a readable bundle says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bundle {
    /// The Sigstore bundle's version, such as `0.3`, from its media type.
    pub bundle_version: String,
    /// The `model_signing` signature format: `v1.0`, or `v0.2` (files as subjects).
    pub format: String,
    /// Who signed.
    pub signer: Signer,
    /// The signature algorithm, such as `ECDSA P-256`, where the key is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// How the model was hashed.
    pub hashing: Hashing,
    /// Files the manifest covers.
    pub files: u64,
    /// Bytes of those files.
    pub bytes: u64,
    /// SHA-256 of the signature file, hex.
    pub sha256: String,
}

/// Who signed, as far as the material tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Signer {
    /// The public key given (`--public-key`): its SHA-256 fingerprint over the DER
    /// SubjectPublicKeyInfo, hex.
    Key {
        /// The fingerprint.
        fingerprint: String,
    },
    /// No key was given: the bundle's unsigned hint of one, if any (never trusted);
    /// `model_signing` 1.x writes the SHA-256 of the signer's PEM file.
    KeyHint {
        /// The hint as written.
        #[serde(skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
    /// No key was given: the key the bundle itself carries (`model_signing` 0.2), unsigned
    /// and never trusted, by its fingerprint as for [`Signer::Key`].
    BundleKey {
        /// The fingerprint.
        fingerprint: String,
    },
    /// The signer's certificate in the bundle.
    Certificate {
        /// Its subject, RFC 4514.
        subject: String,
        /// Its issuer, RFC 4514.
        issuer: String,
        /// Valid from, RFC 3339.
        not_before: String,
        /// Valid until, RFC 3339.
        not_after: String,
    },
    /// The bundle carries a certificate rtenx cannot read, or no material.
    Unknown,
}

/// How the model was hashed (`predicate.serialization`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hashing {
    /// `files` or `shards`.
    pub method: String,
    /// `sha256`, `blake2b` or `blake3`.
    pub hash_type: String,
    /// Bytes per shard, for `shards`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard_size: Option<u64>,
}

impl Signature {
    /// The Overview's part about the signature.
    pub fn part(&self) -> Part {
        let file = sanitize(&self.file);
        if self.status == Status::None {
            return Part {
                heading: format!("Signature: none (no {file})"),
                lines: Vec::new(),
            };
        }
        let mut lines = Vec::new();
        if let Some(reason) = &self.reason {
            lines.push(format!("why      {}", sanitize(reason)));
        }
        lines.push(format!("file     {file}"));
        if let Some(b) = &self.bundle {
            lines.extend(b.signer.lines());
            if let Some(algorithm) = &b.algorithm {
                lines.push(format!("algo     {}", sanitize(algorithm)));
            }
            lines.push(format!("hashing  {}", sanitize(&b.hashing.text())));
            lines.push(format!(
                "covers   {} files, {} bytes",
                super::display::count_text(b.files),
                b.bytes
            ));
            lines.push(format!(
                "format   model_signing {}, Sigstore bundle v{}",
                sanitize(&b.format),
                sanitize(&b.bundle_version)
            ));
        }
        Part {
            heading: format!("Signature: {}", self.status.text()),
            lines,
        }
    }
}

impl fmt::Display for Signer {
    /// The signer in one line, unescaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Signer::Key { fingerprint } => write!(f, "key SHA256:{fingerprint}"),
            Signer::KeyHint { hint: Some(hint) } => write!(f, "unsigned key hint {hint}"),
            Signer::KeyHint { hint: None } => write!(f, "unknown key"),
            Signer::BundleKey { fingerprint } => {
                write!(f, "unsigned key SHA256:{fingerprint} from the bundle")
            }
            Signer::Certificate {
                subject,
                issuer,
                not_before,
                not_after,
            } => write!(
                f,
                "certificate {subject} issued by {issuer}, valid {not_before} to {not_after}"
            ),
            Signer::Unknown => write!(f, "unknown"),
        }
    }
}

impl Hashing {
    /// Such as `shards blake3 1000000`.
    pub fn text(&self) -> String {
        let size = self.shard_size.map(|s| format!(" {s}"));
        let (method, hash) = (&self.method, &self.hash_type);
        format!("{method} {hash}{}", size.unwrap_or_default())
    }
}

impl Signer {
    /// The signer's lines of the Overview.
    fn lines(&self) -> Vec<String> {
        match self {
            Signer::Key { fingerprint } => vec![format!("key      SHA256:{fingerprint}")],
            Signer::KeyHint { hint: Some(hint) } => {
                vec![format!(
                    "key hint {} (unsigned, not trusted)",
                    sanitize(hint)
                )]
            }
            Signer::KeyHint { hint: None } => vec!["key      not given".into()],
            Signer::BundleKey { fingerprint } => vec![format!(
                "key      SHA256:{fingerprint} from the bundle (unsigned, not trusted)"
            )],
            Signer::Certificate {
                subject,
                issuer,
                not_before,
                not_after,
            } => vec![
                format!("subject  {}", sanitize(subject)),
                format!("issuer   {}", sanitize(issuer)),
                format!("valid    {not_before} to {not_after}"),
            ],
            Signer::Unknown => vec!["signer   unknown".into()],
        }
    }
}
