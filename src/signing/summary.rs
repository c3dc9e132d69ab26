//! What the outputs show of a checked signature ([`crate::inventory::signature`]): its
//! status from the problems found, the signer from the material given (or, untrusted, from
//! the bundle), how the model was hashed and what the manifest covers.

use std::path::Path;

use sha2::Digest;

use super::bundle::{Material, BUNDLE_MEDIA_TYPE};
use super::certificate::{rfc3339, Certificate};
use super::manifest::{self, hex};
use super::statement::{PREDICATE_V02, PREDICATE_V1};
use super::verify::PublicKey;
use super::{Problem, Signed, Trust};
use crate::check::Severity;
use crate::inventory::signature::{Bundle, Hashing, Signature, Signer, Status};

/// The status the `problems` of a check with `trust` give, and the first error's message.
pub fn status(problems: &[Problem], trust: Option<&Trust>) -> (Status, Option<String>) {
    let error = problems
        .iter()
        .find(|p| p.rule().severity == Severity::Error);
    match (error, trust) {
        (Some(p), _) => (Status::Failed, Some(p.message())),
        (None, None) => (Status::IntegrityOnly, None),
        (None, Some(_)) => (Status::Verified, None),
    }
}

/// The bundle `signed`, read from `bytes`, of the model at `model`.
pub fn bundle(signed: &Signed, bytes: &[u8], model: &Path, trust: Option<&Trust>) -> Bundle {
    let (signer, key) = signer(&signed.bundle.material, trust);
    let st = &signed.statement;
    let hashing = match &st.predicate {
        Some(p) => Hashing {
            method: p.serialization.method.clone(),
            hash_type: p.serialization.hash_type.clone(),
            shard_size: p.serialization.shard_size,
        },
        None => Hashing {
            method: "files".into(),
            hash_type: "sha256".into(),
            shard_size: None,
        },
    };
    let (files, bytes_covered) = covered(signed, model);
    Bundle {
        bundle_version: version(&signed.bundle.media_type),
        format: match st.predicate_type.as_str() {
            PREDICATE_V1 => "v1.0".into(),
            PREDICATE_V02 => "v0.2".into(),
            other => other.into(),
        },
        signer,
        algorithm: key.map(|k| format!("ECDSA {}", k.curve())),
        hashing,
        files,
        bytes: bytes_covered,
        sha256: hex(&sha2::Sha256::digest(bytes)),
    }
}

/// The bundle's version in its media type (`0.3` of `...bundle.v0.3+json`), or the media
/// type itself.
fn version(media_type: &str) -> String {
    let prefix = BUNDLE_MEDIA_TYPE.split(".v").next().unwrap_or_default();
    let version = (media_type.strip_prefix(prefix))
        .and_then(|rest| rest.strip_prefix(".v"))
        .and_then(|rest| rest.strip_suffix("+json"));
    version.unwrap_or(media_type).to_owned()
}

/// Who signed: the key given, else the bundle's certificate, else its unsigned key hint;
/// and the signer's key where it is known.
fn signer(material: &Material, trust: Option<&Trust>) -> (Signer, Option<PublicKey>) {
    if let Some(Trust::Key(key)) = trust {
        let signer = Signer::Key {
            fingerprint: fingerprint(key),
        };
        return (signer, Some(key.clone()));
    }
    match material {
        Material::Certificates(chain) => {
            match chain.first().map(|der| Certificate::from_der(der)) {
                Some(Ok(leaf)) => {
                    let (from, to) = leaf.validity();
                    let signer = Signer::Certificate {
                        subject: leaf.subject(),
                        issuer: leaf.issuer(),
                        not_before: rfc3339(from),
                        not_after: rfc3339(to),
                    };
                    (signer, leaf.key().ok())
                }
                _ => (Signer::Unknown, None),
            }
        }
        Material::KeyHint(hint) => (Signer::KeyHint { hint: hint.clone() }, None),
        Material::KeyBytes(pem) => {
            let key = std::str::from_utf8(pem)
                .ok()
                .and_then(|pem| PublicKey::from_pem(pem).ok());
            match key {
                Some(key) => {
                    let fingerprint = fingerprint(&key);
                    (Signer::BundleKey { fingerprint }, Some(key))
                }
                None => (Signer::Unknown, None),
            }
        }
        Material::None => (Signer::Unknown, None),
    }
}

/// SHA-256 over the key's DER SubjectPublicKeyInfo, hex: what
/// `openssl pkey -pubin -outform DER | sha256sum` prints.
pub fn fingerprint(key: &PublicKey) -> String {
    use p256::pkcs8::EncodePublicKey;
    let der = match key {
        PublicKey::P256(k) => k.to_public_key_der(),
        PublicKey::P384(k) => k.to_public_key_der(),
        PublicKey::P521(k) => {
            let point = k.to_encoded_point(false);
            match p521::PublicKey::from_sec1_bytes(point.as_bytes()) {
                Ok(k) => k.to_public_key_der(),
                Err(_) => return String::new(),
            }
        }
    };
    der.map(|d| hex(&sha2::Sha256::digest(d.as_bytes())))
        .unwrap_or_default()
}

/// The files the manifest covers, and their bytes: a sharded file's up to its last shard,
/// another's as it is on disk now.
fn covered(signed: &Signed, model: &Path) -> (u64, u64) {
    let Some(manifest) = manifest::of(signed, &mut Vec::new()) else {
        return (0, 0);
    };
    let on_disk = |name: &str| {
        let path = if model.is_dir() {
            model.join(name)
        } else {
            model.to_owned()
        };
        std::fs::symlink_metadata(path).map_or(0, |m| m.len())
    };
    let bytes = manifest.files.iter().map(|(name, parts)| {
        let shards = parts.iter().filter_map(|p| p.range.map(|(_, end)| end));
        shards.max().unwrap_or_else(|| on_disk(name))
    });
    (manifest.files.len() as u64, bytes.sum())
}

impl Signature {
    /// A signature looked for at `file` that is not there.
    pub fn none(file: &Path) -> Self {
        Signature {
            file: name(file),
            path: file.to_owned(),
            status: Status::None,
            reason: None,
            bundle: None,
        }
    }
}

/// The name a signature file is shown by: its file name.
pub fn name(file: &Path) -> String {
    let name = file.file_name().unwrap_or(file.as_os_str());
    name.to_string_lossy().into_owned()
}
