//! One X.509 certificate, read with RustCrypto's `x509-cert` (strict DER) for what a chain
//! check needs: names, dates, the key, the extensions a signer's chain is held to, and
//! whether an issuer's key signed it (over its signed part as written; [`algorithm`]).

use std::time::Duration;

use x509_cert::der::{Decode, Encode, Header, Reader, SliceReader};
use x509_cert::ext::pkix::{BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAltName};

use super::algorithm::{self, IssuerKey, Unverifiable};
use super::verify::PublicKey;
use const_oids::*;

/// A certificate larger than this is not read (real ones are one or two KiB).
pub const MAX_CERTIFICATE_BYTES: usize = 64 << 10;

/// The object identifiers the checks name.
mod const_oids {
    pub use rfc5912::{ID_CE_BASIC_CONSTRAINTS, ID_CE_EXT_KEY_USAGE, ID_CE_KEY_USAGE};
    pub use rfc5912::{ID_CE_SUBJECT_ALT_NAME, ID_KP_CODE_SIGNING};
    use x509_cert::der::oid::db::rfc5912;
}

/// A certificate read, with the bytes its issuer signed.
#[derive(Clone)]
pub struct Certificate {
    cert: x509_cert::Certificate,
    /// The DER of `tbsCertificate`, as written.
    tbs: Vec<u8>,
    /// The whole certificate's DER.
    der: Vec<u8>,
    /// `subject` and `issuer` as DER, compared byte for byte.
    subject_der: Vec<u8>,
    issuer_der: Vec<u8>,
}

/// What a certificate's extensions say, each read once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extensions {
    /// basicConstraints: cA, and pathLenConstraint.
    pub basic: Option<(bool, Option<u8>)>,
    /// keyUsage: digitalSignature, keyCertSign.
    pub key_usage: Option<(bool, bool)>,
    /// extKeyUsage: codeSigning among the purposes.
    pub code_signing: Option<bool>,
}

impl Certificate {
    /// Reads a DER certificate; the error says why it cannot be used.
    pub fn from_der(der: &[u8]) -> Result<Self, String> {
        if der.len() > MAX_CERTIFICATE_BYTES {
            return Err(format!(
                "{} bytes, more than the {MAX_CERTIFICATE_BYTES} read",
                der.len()
            ));
        }
        let cert = x509_cert::Certificate::from_der(der)
            .map_err(|e| format!("not a DER X.509 certificate ({e})"))?;
        let tbs = signed_part(der).map_err(|e| format!("not a DER X.509 certificate ({e})"))?;
        let tbs_cert = &cert.tbs_certificate;
        let der_of = |name: &x509_cert::name::Name| name.to_der().map_err(|e| e.to_string());
        Ok(Certificate {
            subject_der: der_of(&tbs_cert.subject)?,
            issuer_der: der_of(&tbs_cert.issuer)?,
            tbs: tbs.to_vec(),
            der: der.to_vec(),
            cert,
        })
    }

    /// The certificates of a PEM file, in order; at most `max`.
    pub fn from_pem(text: &str, max: usize) -> Result<Vec<Self>, String> {
        const BEGIN: &str = "-----BEGIN CERTIFICATE-----";
        const END: &str = "-----END CERTIFICATE-----";
        let mut certs = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find(BEGIN) {
            let Some(len) = rest[start..].find(END) else {
                return Err(format!("certificate {} has no {END}", certs.len() + 1));
            };
            if certs.len() == max {
                return Err(format!("more than {max} certificates"));
            }
            let block = &rest[start..start + len + END.len()];
            let n = certs.len() + 1;
            let der = match x509_cert::der::pem::decode_vec(block.as_bytes()) {
                Ok((_, der)) => der,
                Err(e) => return Err(format!("certificate {n} is not PEM ({e})")),
            };
            certs.push(Self::from_der(&der).map_err(|e| format!("certificate {n}: {e}"))?);
            rest = &rest[start + len + END.len()..];
        }
        if certs.is_empty() {
            return Err("no PEM certificate".into());
        }
        Ok(certs)
    }

    /// The subject, as RFC 4514 writes it (unescaped: the messages escape it).
    pub fn subject(&self) -> String {
        self.cert.tbs_certificate.subject.to_string()
    }

    /// The issuer's name, as RFC 4514 writes it.
    pub fn issuer(&self) -> String {
        self.cert.tbs_certificate.issuer.to_string()
    }

    /// The subject as DER, to match an issuer's name.
    pub fn subject_der(&self) -> &[u8] {
        &self.subject_der
    }

    /// The issuer's name as DER.
    pub fn issuer_der(&self) -> &[u8] {
        &self.issuer_der
    }

    /// The whole certificate.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// `notBefore` and `notAfter`, since the Unix epoch.
    pub fn validity(&self) -> (Duration, Duration) {
        let v = &self.cert.tbs_certificate.validity;
        (
            v.not_before.to_unix_duration(),
            v.not_after.to_unix_duration(),
        )
    }

    /// Whether it is self-issued: its subject is its issuer's name.
    pub fn self_issued(&self) -> bool {
        self.subject_der == self.issuer_der
    }

    /// Which date it is not valid at `now` by (`notBefore` or `notAfter`), if any.
    pub fn invalid_at(&self, now: Duration) -> Option<(&'static str, Duration)> {
        let (not_before, not_after) = self.validity();
        if now < not_before {
            Some(("notBefore", not_before))
        } else if now > not_after {
            Some(("notAfter", not_after))
        } else {
            None
        }
    }

    /// The signer's key: ECDSA, the only keys `model_signing` signs with.
    pub fn key(&self) -> Result<PublicKey, String> {
        match self.ca_key()? {
            IssuerKey::Ecdsa(key) => Ok(key),
            IssuerKey::Rsa(_) => Err("its key is RSA: model_signing signs and verifies only \
                 with ECDSA keys on P-256, P-384 or P-521, and so does rtenx"
                .into()),
        }
    }

    /// The subject's key as a certificate authority's: ECDSA or RSA.
    pub fn ca_key(&self) -> Result<IssuerKey, String> {
        IssuerKey::from_spki(&self.cert.tbs_certificate.subject_public_key_info)
    }

    /// Whether `issuer`'s key signed this certificate; an error if it is signed in a way
    /// rtenx does not verify, or refuses as weak.
    pub fn signed_by(&self, issuer: &Certificate) -> Result<bool, Unverifiable> {
        let unsupported = |why: &str| Unverifiable::Unsupported(why.into());
        let alg = &self.cert.signature_algorithm;
        if *alg != self.cert.tbs_certificate.signature {
            return Err(unsupported(
                "its signature algorithm is not the one its signed part names",
            ));
        }
        let sig = (self.cert.signature.as_bytes())
            .ok_or_else(|| unsupported("its signature is not whole bytes"))?;
        let key = issuer.ca_key().map_err(|why| {
            Unverifiable::Unsupported(format!("its issuer \"{}\": {why}", issuer.subject()))
        })?;
        algorithm::verifies(alg, &key, &self.tbs, sig)
    }

    /// The extensions the checks use; an error for one that cannot be read, is repeated, or
    /// is critical and unknown.
    pub fn extensions(&self) -> Result<Extensions, String> {
        let tbs = &self.cert.tbs_certificate;
        let mut out = Extensions::default();
        let mut seen = std::collections::BTreeSet::new();
        for ext in tbs.extensions.as_deref().unwrap_or(&[]) {
            let id = ext.extn_id;
            if !seen.insert(id) {
                return Err(format!("it has the extension {id} twice"));
            }
            let value = ext.extn_value.as_bytes();
            let unreadable = |e: x509_cert::der::Error| format!("its extension {id}: {e}");
            match id {
                ID_CE_BASIC_CONSTRAINTS => {
                    let b = BasicConstraints::from_der(value).map_err(unreadable)?;
                    out.basic = Some((b.ca, b.path_len_constraint));
                }
                ID_CE_KEY_USAGE => {
                    let k = KeyUsage::from_der(value).map_err(unreadable)?;
                    out.key_usage = Some((k.digital_signature(), k.key_cert_sign()));
                }
                ID_CE_EXT_KEY_USAGE => {
                    let e = ExtendedKeyUsage::from_der(value).map_err(unreadable)?;
                    out.code_signing = Some(e.0.contains(&ID_KP_CODE_SIGNING));
                }
                ID_CE_SUBJECT_ALT_NAME => {
                    SubjectAltName::from_der(value).map_err(unreadable)?;
                }
                _ if ext.critical => {
                    return Err(format!(
                        "it has the critical extension {id}, unknown to rtenx"
                    ))
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

/// The `tbsCertificate` element of a certificate's DER, header included, as written.
fn signed_part(der: &[u8]) -> x509_cert::der::Result<&[u8]> {
    let mut reader = SliceReader::new(der)?;
    Header::decode(&mut reader)?;
    let start = usize::try_from(reader.position())?;
    let header = Header::decode(&mut reader)?;
    let len = usize::try_from((header.encoded_len()? + header.length)?)?;
    let incomplete = x509_cert::der::ErrorKind::Incomplete {
        expected_len: header.length,
        actual_len: reader.remaining_len(),
    };
    let end = start.checked_add(len).ok_or(incomplete)?;
    Ok(der.get(start..end).ok_or(incomplete)?)
}

/// A date as RFC 3339 (`2016-01-01T00:00:00Z`), or the seconds if it has no calendar date.
pub fn rfc3339(since_epoch: Duration) -> String {
    x509_cert::der::DateTime::from_unix_duration(since_epoch).map_or_else(
        |_| format!("{}s after 1970", since_epoch.as_secs()),
        |d| d.to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = include_str!("../../tests/fixtures/signing/material/cert-good-root.pem");

    #[test]
    fn pem_files_hold_a_bounded_number_of_certificates() {
        let two = format!("{ROOT}{ROOT}");
        assert_eq!(Certificate::from_pem(&two, 2).map(|c| c.len()), Ok(2));
        let err = |text: &str, max| Certificate::from_pem(text, max).err().unwrap();
        assert_eq!(err(&two, 1), "more than 1 certificates");
        assert_eq!(err("", 4), "no PEM certificate");
        let cut = &ROOT[..ROOT.len() - 30];
        assert!(err(cut, 4).ends_with("has no -----END CERTIFICATE-----"));
        let public_key = "-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n";
        assert_eq!(err(public_key, 4), "no PEM certificate");
    }

    #[test]
    fn a_root_reads_and_signs_itself() {
        let root = &Certificate::from_pem(ROOT, 1).unwrap()[0];
        assert_eq!(root.subject(), "CN=rtenx test root");
        assert_eq!(root.subject_der(), root.issuer_der());
        let (from, to) = root.validity();
        assert_eq!(rfc3339(from), "2000-01-01T00:00:00Z");
        assert_eq!(rfc3339(to), "2100-01-01T00:00:00Z");
        let ext = root.extensions().unwrap();
        assert_eq!(ext.basic, Some((true, None)));
        assert_eq!(ext.key_usage, Some((false, true)));
        assert_eq!(root.signed_by(root), Ok(true));
        assert!(root.self_issued());
        // Its DER cut anywhere does not read.
        for len in [0, 1, 10, root.der().len() - 1] {
            assert!(Certificate::from_der(&root.der()[..len]).is_err(), "{len}");
        }
    }
}
