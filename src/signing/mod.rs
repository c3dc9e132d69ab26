//! OpenSSF model signatures (`model_signing`, ../shared/reference/signing.md): a Sigstore
//! bundle, usually `model.sig` in the model's folder, whose DSSE envelope signs an in-toto
//! statement listing every file's digest. This module reads a bundle and its statement;
//! it is about a model folder, not one file, so it sits beside `values`, above the readers.
//! [`integrity::check`] holds the model on disk to the signed manifest (the SG rules).
//!
//! Reading never panics and is bounded: the bundle by [`MAX_BUNDLE_BYTES`], lists by their
//! own limits, nesting by [`json::MAX_DEPTH`]; a key repeated in one object is an error
//! (Python's `json` keeps the last one, so two readers could see two statements).

pub mod bundle;
pub mod hash;
pub mod integrity;
mod json;
pub mod manifest;
pub mod pae;
pub mod problem;
pub mod rules;
pub mod statement;
pub mod verify;

use std::fmt;

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
