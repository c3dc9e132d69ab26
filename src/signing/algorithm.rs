//! How an issuer's signature over a certificate is checked: ECDSA, RSA PKCS#1 v1.5 or
//! RSASSA-PSS, each with SHA-256, 384 or 512, by the issuer's ECDSA or RSA key. RSA is
//! RustCrypto's `rsa`, used only to verify with public keys (RUSTSEC-2023-0071, the Marvin
//! timing attack, is about decrypting and signing with a private key). SHA-1, MD5 and RSA
//! keys under [`MIN_RSA_BITS`] are refused as weak.

use rsa::pkcs1::{self, RsaPssParams};
use rsa::traits::PublicKeyParts;
use rsa::{BigUint, Pkcs1v15Sign, Pss, RsaPublicKey};
use x509_cert::der::{Decode, Encode};
use x509_cert::spki::{AlgorithmIdentifierOwned, ObjectIdentifier, SubjectPublicKeyInfoOwned};

use super::verify::{Hash, PublicKey};
use oids::*;

/// The smallest RSA key trusted, in bits (NIST SP 800-131A, the CA/Browser Forum's rules).
pub const MIN_RSA_BITS: usize = 2048;

/// The largest RSA key read, in bits (CAs use up to 4096, a few 8192); it bounds the time
/// one signature check takes.
const MAX_RSA_BITS: usize = 8192;

/// The object identifiers of signature algorithms, hashes and keys.
mod oids {
    pub use rfc5912::{ECDSA_WITH_SHA_256, ECDSA_WITH_SHA_384, ECDSA_WITH_SHA_512};
    pub use rfc5912::{ID_MGF_1, ID_RSASSA_PSS, ID_SHA_1, RSA_ENCRYPTION};
    pub use rfc5912::{ID_SHA_256, ID_SHA_384, ID_SHA_512};
    pub use rfc5912::{MD_2_WITH_RSA_ENCRYPTION, MD_5_WITH_RSA_ENCRYPTION};
    pub use rfc5912::{SHA_1_WITH_RSA_ENCRYPTION, SHA_256_WITH_RSA_ENCRYPTION};
    pub use rfc5912::{SHA_384_WITH_RSA_ENCRYPTION, SHA_512_WITH_RSA_ENCRYPTION};
    use x509_cert::der::oid::db::rfc5912;
    /// ecdsa-with-SHA1 (ANSI X9.62).
    pub const ECDSA_WITH_SHA_1: super::ObjectIdentifier =
        super::ObjectIdentifier::new_unwrap("1.2.840.10045.4.1");
}

/// Why a certificate's signature is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unverifiable {
    /// An algorithm or key rtenx does not verify.
    Unsupported(String),
    /// An algorithm or key too weak to be trusted.
    Weak(String),
}

/// The key of a certificate authority.
pub enum IssuerKey {
    /// ECDSA on P-256, P-384 or P-521.
    Ecdsa(PublicKey),
    /// RSA, at most [`MAX_RSA_BITS`].
    Rsa(RsaPublicKey),
}

impl IssuerKey {
    /// The key of a SubjectPublicKeyInfo; an error says what it is instead.
    pub fn from_spki(spki: &SubjectPublicKeyInfoOwned) -> Result<Self, String> {
        let oid = spki.algorithm.oid;
        if oid == RSA_ENCRYPTION || oid == ID_RSASSA_PSS {
            let bits = spki.subject_public_key.as_bytes().unwrap_or_default();
            let key =
                pkcs1::RsaPublicKey::from_der(bits).map_err(|e| format!("its RSA key: {e}"))?;
            let n = BigUint::from_bytes_be(key.modulus.as_bytes());
            let e = BigUint::from_bytes_be(key.public_exponent.as_bytes());
            return RsaPublicKey::new_with_max_size(n, e, MAX_RSA_BITS)
                .map(IssuerKey::Rsa)
                .map_err(|e| format!("its RSA key: {e} (at most {MAX_RSA_BITS} bits are read)"));
        }
        let der = spki.to_der().map_err(|e| e.to_string())?;
        PublicKey::from_der(&der)
            .map(IssuerKey::Ecdsa)
            .map_err(|_| {
                format!("its key ({oid}) is neither ECDSA on P-256, P-384 or P-521 nor RSA")
            })
    }
}

/// How a signature is made.
enum Scheme {
    Ecdsa(Hash),
    Rsa(Hash, Padding),
}

/// How an RSA signature is padded.
enum Padding {
    Pkcs1,
    /// RSASSA-PSS, with the salt length.
    Pss(usize),
}

/// Whether `key` made `sig` over `message` with `alg`; an error for an algorithm rtenx does
/// not verify or refuses as weak, and for an RSA key under [`MIN_RSA_BITS`] that verifies.
pub fn verifies(
    alg: &AlgorithmIdentifierOwned,
    key: &IssuerKey,
    message: &[u8],
    sig: &[u8],
) -> Result<bool, Unverifiable> {
    let (key, hash, padding) = match (scheme(alg)?, key) {
        (Scheme::Ecdsa(hash), IssuerKey::Ecdsa(key)) => return Ok(key.verifies(message, sig, hash)),
        (Scheme::Rsa(hash, padding), IssuerKey::Rsa(key)) => (key, hash, padding),
        _ => return Ok(false),
    };
    let digest = hash.of(message);
    let verified = match padding {
        Padding::Pkcs1 => key.verify(pkcs1v15(hash), &digest, sig),
        Padding::Pss(salt) => key.verify(pss(hash, salt), &digest, sig),
    };
    let bits = key.n().bits();
    if verified.is_ok() && bits < MIN_RSA_BITS {
        return Err(Unverifiable::Weak(format!(
            "it is signed by a {bits}-bit RSA key; rtenx trusts RSA keys of {MIN_RSA_BITS} \
             bits or more"
        )));
    }
    Ok(verified.is_ok())
}

/// The scheme and hash `alg` names.
fn scheme(alg: &AlgorithmIdentifierOwned) -> Result<Scheme, Unverifiable> {
    let weak = |name: &str| {
        Unverifiable::Weak(format!(
            "it is signed with {name}, which is broken for signatures"
        ))
    };
    match alg.oid {
        ECDSA_WITH_SHA_256 => Ok(Scheme::Ecdsa(Hash::Sha256)),
        ECDSA_WITH_SHA_384 => Ok(Scheme::Ecdsa(Hash::Sha384)),
        ECDSA_WITH_SHA_512 => Ok(Scheme::Ecdsa(Hash::Sha512)),
        SHA_256_WITH_RSA_ENCRYPTION => Ok(Scheme::Rsa(Hash::Sha256, Padding::Pkcs1)),
        SHA_384_WITH_RSA_ENCRYPTION => Ok(Scheme::Rsa(Hash::Sha384, Padding::Pkcs1)),
        SHA_512_WITH_RSA_ENCRYPTION => Ok(Scheme::Rsa(Hash::Sha512, Padding::Pkcs1)),
        ID_RSASSA_PSS => pss_params(alg),
        SHA_1_WITH_RSA_ENCRYPTION => Err(weak("SHA-1 (sha1WithRSAEncryption)")),
        ECDSA_WITH_SHA_1 => Err(weak("SHA-1 (ecdsa-with-SHA1)")),
        MD_5_WITH_RSA_ENCRYPTION => Err(weak("MD5 (md5WithRSAEncryption)")),
        MD_2_WITH_RSA_ENCRYPTION => Err(weak("MD2 (md2WithRSAEncryption)")),
        oid => Err(Unverifiable::Unsupported(format!(
            "it is signed with {oid}, not ECDSA, RSA PKCS#1 v1.5 or RSASSA-PSS with SHA-2"
        ))),
    }
}

/// RSASSA-PSS's hash and salt length (RFC 4055): MGF1 with the same hash, trailer 0xbc.
fn pss_params(alg: &AlgorithmIdentifierOwned) -> Result<Scheme, Unverifiable> {
    let unsupported = |why: String| Unverifiable::Unsupported(format!("its RSASSA-PSS {why}"));
    let der = alg.parameters.as_ref().map(|p| p.to_der());
    let der = der.transpose().map_err(|e| unsupported(e.to_string()))?;
    // Absent parameters mean SHA-1 throughout (RFC 4055's defaults).
    let params = match &der {
        Some(der) => RsaPssParams::from_der(der).map_err(|e| unsupported(e.to_string()))?,
        None => RsaPssParams::default(),
    };
    let hash = match params.hash.oid {
        ID_SHA_256 => Hash::Sha256,
        ID_SHA_384 => Hash::Sha384,
        ID_SHA_512 => Hash::Sha512,
        ID_SHA_1 => {
            return Err(Unverifiable::Weak(
                "it is signed with RSASSA-PSS over SHA-1, which is broken for signatures".into(),
            ))
        }
        oid => return Err(unsupported(format!("hash {oid} is not SHA-2"))),
    };
    let mgf_hash = params.mask_gen.parameters.map(|p| p.oid);
    if params.mask_gen.oid != ID_MGF_1 || mgf_hash != Some(params.hash.oid) {
        return Err(unsupported("mask is not MGF1 with its hash".into()));
    }
    let salt = usize::from(params.salt_len);
    Ok(Scheme::Rsa(hash, Padding::Pss(salt)))
}

fn pkcs1v15(hash: Hash) -> Pkcs1v15Sign {
    match hash {
        Hash::Sha256 => Pkcs1v15Sign::new::<sha2::Sha256>(),
        Hash::Sha384 => Pkcs1v15Sign::new::<sha2::Sha384>(),
        Hash::Sha512 => Pkcs1v15Sign::new::<sha2::Sha512>(),
    }
}

fn pss(hash: Hash, salt: usize) -> Pss {
    match hash {
        Hash::Sha256 => Pss::new_with_salt::<sha2::Sha256>(salt),
        Hash::Sha384 => Pss::new_with_salt::<sha2::Sha384>(salt),
        Hash::Sha512 => Pss::new_with_salt::<sha2::Sha512>(salt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsa::pkcs1::der::asn1::AnyRef;
    use rsa::pkcs1::der::Any;
    use x509_cert::spki::AlgorithmIdentifierRef;

    fn alg(oid: ObjectIdentifier, parameters: Option<Any>) -> AlgorithmIdentifierOwned {
        AlgorithmIdentifierOwned { oid, parameters }
    }

    #[test]
    fn broken_hashes_are_weak_and_unknown_algorithms_unsupported() {
        let weak = |a: &AlgorithmIdentifierOwned| matches!(scheme(a), Err(Unverifiable::Weak(_)));
        assert!(weak(&alg(SHA_1_WITH_RSA_ENCRYPTION, None)));
        assert!(weak(&alg(ECDSA_WITH_SHA_1, None)));
        assert!(weak(&alg(MD_5_WITH_RSA_ENCRYPTION, None)));
        // RSASSA-PSS without parameters is SHA-1 throughout.
        assert!(weak(&alg(ID_RSASSA_PSS, None)));
        let ed25519 = ObjectIdentifier::new_unwrap("1.3.101.112");
        assert!(matches!(
            scheme(&alg(ed25519, None)),
            Err(Unverifiable::Unsupported(_))
        ));
    }

    #[test]
    fn pss_takes_its_hash_and_salt_and_wants_mgf1_with_that_hash() {
        let with = |params: RsaPssParams| {
            let any = Any::from_der(&params.to_der().unwrap()).unwrap();
            scheme(&alg(ID_RSASSA_PSS, Some(any)))
        };
        let params = RsaPssParams::new::<sha2::Sha384>(48);
        assert!(matches!(
            with(params.clone()),
            Ok(Scheme::Rsa(Hash::Sha384, Padding::Pss(48)))
        ));
        let mut mixed = params;
        mixed.mask_gen.parameters = Some(AlgorithmIdentifierRef {
            oid: ID_SHA_256,
            parameters: Some(AnyRef::NULL),
        });
        assert_eq!(
            with(mixed).err(),
            Some(Unverifiable::Unsupported(
                "its RSASSA-PSS mask is not MGF1 with its hash".into()
            ))
        );
    }
}
