//! OpenSSF model signatures (`model_signing`, ../shared/reference/signing.md): a Sigstore
//! bundle, usually `model.sig` in the model's folder, whose DSSE envelope signs an in-toto
//! statement listing every file's digest. This module reads a bundle and its statement;
//! it is about a model folder, not one file, so it sits beside `values`, above the readers.
//! [`integrity::check`] holds the model on disk to the signed manifest (the SG rules);
//! [`verify`] checks the signatures with a key, [`chain`] the certificates (read by
//! [`certificate`]) with the roots the user gives.
//!
//! Reading never panics and is bounded: the bundle by [`MAX_BUNDLE_BYTES`], lists by their
//! own limits, nesting by [`json::MAX_DEPTH`]; a key repeated in one object is an error
//! (Python's `json` keeps the last one, so two readers could see two statements).

pub mod bundle;
pub mod certificate;
pub mod chain;
pub mod hash;
pub mod integrity;
mod json;
pub mod manifest;
pub mod pae;
pub mod problem;
pub mod rules;
pub mod statement;
pub mod summary;
pub mod verify;

use std::fmt;
use std::io::Read;
use std::path::Path;

pub use bundle::{Bundle, Envelope, Material, Signature};
pub use problem::Problem;
pub use statement::{Predicate, Resource, Serialization, Statement, Subject};

/// The file name `model_signing` signs to and verifies from by default.
pub const SIGNATURE_FILE: &str = "model.sig";

/// A bundle larger than this is not read (a million resources fit in about 200 MiB of
/// base64; `model_signing` itself reads the file whole).
pub const MAX_BUNDLE_BYTES: u64 = 256 << 20;

/// A bundle and the statement it signs, as written: nothing verified yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The bundle file.
    pub bundle: Bundle,
    /// The statement in its payload.
    pub statement: Statement,
}

/// Which document could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The bundle file's JSON.
    Bundle,
    /// The statement in the envelope's payload.
    Statement,
}

/// Why a signature file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The document.
    pub part: Part,
    /// The byte offset in that document.
    pub at: u64,
    /// What is wrong there.
    pub what: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = match self.part {
            Part::Bundle => "the signature bundle",
            Part::Statement => "the signed statement",
        };
        write!(f, "{part}: {} (byte {})", self.what, self.at)
    }
}

/// Reads a signature bundle and the statement in its payload.
pub fn read(bytes: &[u8]) -> Result<Signed, ReadError> {
    let error = |part| {
        move |e: json::Error| ReadError {
            part,
            at: e.at,
            what: e.what,
        }
    };
    if bytes.len() as u64 > MAX_BUNDLE_BYTES {
        return Err(ReadError {
            part: Part::Bundle,
            at: MAX_BUNDLE_BYTES,
            what: format!("larger than {MAX_BUNDLE_BYTES} bytes"),
        });
    }
    let bundle = bundle::read(bytes).map_err(error(Part::Bundle))?;
    let statement = statement::read(&bundle.envelope.payload).map_err(error(Part::Statement))?;
    Ok(Signed { bundle, statement })
}

/// What the user verifies a signature with: material from the command line or the
/// settings, never from the bundle or the checked folder.
#[derive(Clone)]
pub enum Trust {
    /// A public key (`--public-key`).
    Key(verify::PublicKey),
    /// Certificates the bundle's chain must lead to (`--certificate-chain`).
    Anchors(chain::Anchors),
}

/// A model checked against its signature.
pub struct Checked {
    /// What is wrong, each an SG finding.
    pub problems: Vec<Problem>,
    /// What the outputs show of the signature.
    pub signature: crate::inventory::signature::Signature,
}

/// Checks the model at `model` (a folder or a single file) against the bundle at
/// `signature`: the bundle read, the files held to its manifest, and its signatures checked
/// with `trust` (without it, an info says they were not).
pub fn check_model(model: &Path, signature: &Path, trust: Option<&Trust>) -> Checked {
    let (problems, bundle) = match check_bundle(model, signature, trust) {
        Ok((problems, bundle)) => (problems, Some(bundle)),
        Err(why) => (vec![Problem::Unreadable(why)], None),
    };
    let (status, reason) = summary::status(&problems, trust);
    let signature = crate::inventory::signature::Signature {
        file: summary::name(signature),
        path: signature.to_owned(),
        status,
        reason,
        bundle,
    };
    Checked {
        problems,
        signature,
    }
}

/// [`check_model`] once the bundle reads: the problems, and what the bundle holds.
fn check_bundle(
    model: &Path,
    signature: &Path,
    trust: Option<&Trust>,
) -> Result<(Vec<Problem>, crate::inventory::signature::Bundle), String> {
    let bytes = read_bounded(signature)?;
    let signed = read(&bytes).map_err(|e| e.to_string())?;
    let mut problems = match trust {
        Some(Trust::Anchors(anchors)) => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            chain::problems(&signed.bundle, anchors, now.unwrap_or_default())
        }
        Some(Trust::Key(key)) => verify::problems(&signed.bundle.envelope, Some(key)),
        None => verify::problems(&signed.bundle.envelope, None),
    };
    problems.extend(integrity::check(model, Some(signature), &signed));
    let bundle = summary::bundle(&signed, &bytes, model, trust);
    Ok((problems, bundle))
}

/// The bundle file's bytes, up to [`MAX_BUNDLE_BYTES`]; a symlink to it is not followed.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!(
            "{} is not a regular file",
            crate::escape::path(path)
        ));
    }
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    file.take(MAX_BUNDLE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}
