//! The envelope's signatures checked against a public key the user gives (`--public-key`,
//! or the leaf of a certificate chain checked by [`super::chain`]):
//! ECDSA P-256 / P-384 / P-521 with SHA-256 / 384 / 512 over the DSSE PAE, as
//! `model_signing`'s key verifier checks them, and over 0.2.0's compat PAE. Every signature
//! is checked, not only the first; the bundle's key hint is never trusted.

use p256::ecdsa::signature::hazmat::PrehashVerifier;
use sha2::Digest;

use super::bundle::Envelope;
use super::pae::{pae, pae_compat};
use super::problem::Problem;

const NOT_A_KEY: &str = "not a PEM public key on P-256, P-384 or P-521";

/// A public key read from PEM (SubjectPublicKeyInfo).
#[derive(Clone)]
pub enum PublicKey {
    /// NIST P-256, verified with SHA-256.
    P256(p256::ecdsa::VerifyingKey),
    /// NIST P-384, verified with SHA-384.
    P384(p384::ecdsa::VerifyingKey),
    /// NIST P-521, verified with SHA-512.
    P521(p521::ecdsa::VerifyingKey),
}

impl PublicKey {
    /// The key in a PEM `PUBLIC KEY` block; an error names what it is instead.
    pub fn from_pem(text: &str) -> Result<Self, String> {
        match x509_cert::der::pem::decode_vec(text.as_bytes()) {
            Ok(("PUBLIC KEY", der)) => Self::from_der(&der),
            _ => Err(NOT_A_KEY.into()),
        }
    }

    /// The key in a DER SubjectPublicKeyInfo.
    pub fn from_der(der: &[u8]) -> Result<Self, String> {
        use p256::pkcs8::DecodePublicKey;
        if let Ok(k) = p256::PublicKey::from_public_key_der(der) {
            return Ok(PublicKey::P256(k.into()));
        }
        if let Ok(k) = p384::PublicKey::from_public_key_der(der) {
            return Ok(PublicKey::P384(k.into()));
        }
        if let Ok(k) = p521::PublicKey::from_public_key_der(der) {
            let point = p521::EncodedPoint::from(k);
            return p521::ecdsa::VerifyingKey::from_encoded_point(&point)
                .map(PublicKey::P521)
                .map_err(|e| e.to_string());
        }
        Err(NOT_A_KEY.into())
    }

    /// The curve's name.
    pub fn curve(&self) -> &'static str {
        match self {
            PublicKey::P256(_) => "P-256",
            PublicKey::P384(_) => "P-384",
            PublicKey::P521(_) => "P-521",
        }
    }

    /// Whether `der` (an ASN.1 ECDSA signature) signs `message` with this key, `message`
    /// hashed with `hash`.
    pub(super) fn verifies(&self, message: &[u8], der: &[u8], hash: Hash) -> bool {
        let digest = hash.of(message);
        match self {
            PublicKey::P256(k) => p256::ecdsa::Signature::from_der(der)
                .is_ok_and(|s| k.verify_prehash(&digest, &s).is_ok()),
            PublicKey::P384(k) => p384::ecdsa::Signature::from_der(der)
                .is_ok_and(|s| k.verify_prehash(&digest, &s).is_ok()),
            PublicKey::P521(k) => p521::ecdsa::Signature::from_der(der)
                .is_ok_and(|s| k.verify_prehash(&digest, &s).is_ok()),
        }
    }

    /// The hash `model_signing` pairs with the curve.
    fn hash(&self) -> Hash {
        match self {
            PublicKey::P256(_) => Hash::Sha256,
            PublicKey::P384(_) => Hash::Sha384,
            PublicKey::P521(_) => Hash::Sha512,
        }
    }
}

/// The hash an ECDSA signature is made over.
#[derive(Clone, Copy)]
pub(super) enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    /// The digest of `message`.
    pub(super) fn of(self, message: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => sha2::Sha256::digest(message).to_vec(),
            Hash::Sha384 => sha2::Sha384::digest(message).to_vec(),
            Hash::Sha512 => sha2::Sha512::digest(message).to_vec(),
        }
    }
}

/// How one signature of the envelope fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It signs the payload (DSSE v1.0 PAE).
    Verified,
    /// It signs the payload in `model_signing` 0.2.0's compat PAE.
    VerifiedCompat,
    /// It does not verify with this key.
    Failed,
}

/// Each signature of `envelope` checked with `key`, in order. The PAE always names the
/// in-toto type, as `model_signing` does; the payload type is checked on its own (SG002).
pub fn with_key(envelope: &Envelope, key: &PublicKey) -> Vec<Outcome> {
    let (signed, compat) = (pae(&envelope.payload), pae_compat(&envelope.payload));
    envelope
        .signatures
        .iter()
        .map(|s| {
            if key.verifies(&signed, &s.sig, key.hash()) {
                Outcome::Verified
            } else if key.verifies(&compat, &s.sig, key.hash())
                || key.verifies(&compat, &s.sig, Hash::Sha256)
            {
                // 0.2.0 signed with SHA-256 whatever the curve.
                Outcome::VerifiedCompat
            } else {
                Outcome::Failed
            }
        })
        .collect()
}

/// The problems of the envelope's signatures with the key given: none when every one
/// verifies, a warning for each one that does not, an error when none does; without a key,
/// one info.
pub fn problems(envelope: &Envelope, key: Option<&PublicKey>) -> Vec<Problem> {
    match key {
        Some(key) => problems_by(envelope, key, &format!("the given {} key", key.curve())),
        None => vec![Problem::NotChecked],
    }
}

/// The problems of the envelope's signatures with `key`, which the messages call `named`.
pub(super) fn problems_by(envelope: &Envelope, key: &PublicKey, named: &str) -> Vec<Problem> {
    let outcomes = with_key(envelope, key);
    if !outcomes.iter().any(|o| *o != Outcome::Failed) {
        return vec![Problem::Unverified { key: named.into() }];
    }
    let failed = outcomes
        .iter()
        .enumerate()
        .filter(|(_, o)| **o == Outcome::Failed);
    failed
        .map(|(index, _)| Problem::BadSignature {
            index,
            key: named.into(),
        })
        .collect()
}
