//! The Sigstore bundle (v0.3, JSON with camelCase keys) that holds a model signature: its
//! media type, the verification material and the DSSE envelope.

use super::json::{base64, error, items, members, next, text, text_or_null, Result, MAX_DEPTH};
use crate::formats::shared::json::Parser;

/// The bundle media type `model_signing` writes and accepts.
pub const BUNDLE_MEDIA_TYPE: &str = "application/vnd.dev.sigstore.bundle.v0.3+json";

/// Certificates in a chain, and signatures in an envelope, read at most.
pub const MAX_LIST: usize = 64;

/// A bundle as written, nothing verified.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bundle {
    /// `mediaType`.
    pub media_type: String,
    /// `verificationMaterial`.
    pub material: Material,
    /// The bundle carries a transparency-log entry or a timestamp (not checked offline).
    pub has_log_or_timestamp: bool,
    /// `dsseEnvelope`.
    pub envelope: Envelope,
}

/// What the bundle says about the key: never trusted, only shown and compared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Material {
    /// No verification material.
    #[default]
    None,
    /// `publicKey.hint`: SHA-256 of the PEM public key, as `model_signing` 1.x writes it
    /// (not signed); an empty hint is `None` here.
    KeyHint(Option<String>),
    /// `publicKey.rawBytes` (the PEM key itself, as `model_signing` 0.2.0 wrote it).
    KeyBytes(Vec<u8>),
    /// `x509CertificateChain.certificates` (DER, leaf first) or the single `certificate`.
    Certificates(Vec<Vec<u8>>),
}

/// The DSSE envelope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Envelope {
    /// The statement, decoded from base64.
    pub payload: Vec<u8>,
    /// `payloadType`.
    pub payload_type: String,
    /// `signatures`, in order.
    pub signatures: Vec<Signature>,
}

/// One signature of the envelope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signature {
    /// DER ECDSA, decoded from base64.
    pub sig: Vec<u8>,
    /// The key id the signer wrote: a hint only.
    pub keyid: String,
}

/// Reads a bundle. The caller bounds `bytes`; nothing here copies more than it holds.
pub fn read(bytes: &[u8]) -> Result<Bundle> {
    let mut p = Parser::new(bytes, MAX_DEPTH);
    let mut bundle = Bundle::default();
    let mut saw_envelope = false;
    let first = next(&mut p)?;
    members(&mut p, first, "the bundle", |p, key| {
        match key {
            "mediaType" => bundle.media_type = text(p, "mediaType")?,
            "verificationMaterial" => {
                let value = next(p)?;
                material(p, value, &mut bundle)?;
            }
            "dsseEnvelope" => {
                let value = next(p)?;
                bundle.envelope = envelope(p, value)?;
                saw_envelope = true;
            }
            "messageSignature" => {
                return error(
                    p.pos(),
                    "the bundle signs a message digest, not a DSSE envelope",
                )
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    p.end()?;
    if !saw_envelope {
        return error(0, "the bundle has no dsseEnvelope");
    }
    Ok(bundle)
}

fn material<'a>(
    p: &mut Parser<'a>,
    value: super::json::Value<'a>,
    bundle: &mut Bundle,
) -> Result<()> {
    members(p, value, "verificationMaterial", |p, key| {
        match key {
            "publicKey" => {
                let mut hint = None;
                let mut raw = None;
                let value = next(p)?;
                members(p, value, "publicKey", |p, key| {
                    match key {
                        "hint" => hint = Some(text(p, "publicKey.hint")?),
                        "rawBytes" => raw = Some(base64(p, "publicKey.rawBytes")?),
                        _ => p.skip_value()?,
                    }
                    Ok(())
                })?;
                bundle.material = match raw {
                    Some(raw) => Material::KeyBytes(raw),
                    None => Material::KeyHint(hint.filter(|h| !h.is_empty())),
                };
            }
            "x509CertificateChain" => {
                let mut certs = Vec::new();
                let value = next(p)?;
                members(p, value, "x509CertificateChain", |p, key| {
                    if key != "certificates" {
                        return Ok(p.skip_value()?);
                    }
                    let value = next(p)?;
                    items(p, value, "the certificate chain", MAX_LIST, |p, item| {
                        certs.push(raw_bytes(p, item, "a certificate")?);
                        Ok(())
                    })
                })?;
                bundle.material = Material::Certificates(certs);
            }
            "certificate" => {
                let value = next(p)?;
                let cert = raw_bytes(p, value, "the certificate")?;
                bundle.material = Material::Certificates(vec![cert]);
            }
            "tlogEntries" => {
                let value = next(p)?;
                items(p, value, "tlogEntries", MAX_LIST, |p, item| {
                    bundle.has_log_or_timestamp = true;
                    Ok(p.finish_value(&item.1)?)
                })?;
            }
            "timestampVerificationData" => {
                bundle.has_log_or_timestamp = true;
                p.skip_value()?;
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })
}

/// `{"rawBytes": base64}`.
fn raw_bytes<'a>(p: &mut Parser<'a>, value: super::json::Value<'a>, what: &str) -> Result<Vec<u8>> {
    let at = value.0;
    let mut out = None;
    members(p, value, what, |p, key| {
        match key {
            "rawBytes" => out = Some(base64(p, "rawBytes")?),
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    out.map_or_else(|| error(at, format!("{what} has no rawBytes")), Ok)
}

fn envelope<'a>(p: &mut Parser<'a>, value: super::json::Value<'a>) -> Result<Envelope> {
    let at = value.0;
    let mut envelope = Envelope::default();
    let mut saw_payload = false;
    members(p, value, "dsseEnvelope", |p, key| {
        match key {
            "payload" => {
                envelope.payload = base64(p, "the payload")?;
                saw_payload = true;
            }
            "payloadType" => envelope.payload_type = text(p, "payloadType")?,
            "signatures" => {
                let value = next(p)?;
                items(p, value, "signatures", MAX_LIST, |p, item| {
                    let mut sig = Signature::default();
                    members(p, item, "a signature", |p, key| {
                        match key {
                            "sig" => sig.sig = base64(p, "sig")?,
                            // model_signing 0.2.0 wrote `null`.
                            "keyid" => sig.keyid = text_or_null(p, "keyid")?,
                            _ => p.skip_value()?,
                        }
                        Ok(())
                    })?;
                    envelope.signatures.push(sig);
                    Ok(())
                })?;
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    if !saw_payload {
        return error(at, "the envelope has no payload");
    }
    Ok(envelope)
}
