//! Any bytes, read as an OpenSSF model signature (`rtenx::signing`): as the bundle file, and
//! as the statement its payload holds (base64 inside a bundle would keep most mutations from
//! reaching the statement's reader).
//!
//! Beyond "no panic", it asserts what the readers promise: an error's offset lies in the
//! input; lists stay within their limits; a v1.0 statement always has its predicate and no
//! other has one; the PAE ends with the payload, and its compat form is at least as long.
//! The same bytes, and every certificate a bundle holds, are read as X.509 certificates and
//! put through everything a chain check asks of one; a bundle's chain is built from its own
//! certificates (ECDSA and RSA signatures checked), with no anchor given.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::time::Duration;

use rtenx::signing::certificate::{Certificate, MAX_CERTIFICATE_BYTES};
use rtenx::signing::{self, bundle, chain, pae, statement};

fuzz_target!(|data: &[u8]| {
    match signing::read(data) {
        Ok(signed) => {
            let envelope = &signed.bundle.envelope;
            assert!(envelope.signatures.len() <= bundle::MAX_LIST);
            if let signing::Material::Certificates(chain) = &signed.bundle.material {
                assert!(chain.len() <= bundle::MAX_LIST);
                chain.iter().for_each(|der| certificate(der));
                let no_anchor = chain::Anchors::default();
                assert!(!chain::problems(&signed.bundle, &no_anchor, Duration::ZERO).is_empty());
            }
            assert!(envelope.payload.len() <= data.len());
            check(&signed.statement);
        }
        Err(e) => assert!(
            e.part == signing::Part::Statement || e.at <= data.len() as u64,
            "{e}"
        ),
    }
    match statement::read(data) {
        Ok(st) => check(&st),
        Err(e) => assert!(e.at <= data.len() as u64, "{e:?}"),
    }
    assert!(pae::pae(data).ends_with(data));
    assert!(pae::pae_compat(data).len() >= pae::pae(data).len());
    certificate(data);
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(certs) = Certificate::from_pem(text, bundle::MAX_LIST) {
            assert!(!certs.is_empty() && certs.len() <= bundle::MAX_LIST);
        }
    }
});

/// A certificate read, if it reads, and asked what a chain check asks.
fn certificate(der: &[u8]) {
    let Ok(cert) = Certificate::from_der(der) else {
        return;
    };
    assert!(cert.der().len() <= MAX_CERTIFICATE_BYTES);
    let _ = (
        cert.subject(),
        cert.issuer(),
        cert.validity(),
        cert.extensions(),
    );
    let _ = (
        cert.key(),
        cert.self_issued(),
        cert.invalid_at(Duration::ZERO),
    );
    if cert.ca_key().is_ok() {
        let _ = cert.signed_by(&cert);
    }
}

fn check(st: &statement::Statement) {
    assert!(st.subjects.len() <= statement::MAX_RESOURCES);
    let v1 = st.predicate_type == statement::PREDICATE_V1;
    assert_eq!(st.predicate.is_some(), v1);
    if let Some(p) = &st.predicate {
        assert!(p.resources.len() <= statement::MAX_RESOURCES);
        assert!(p.serialization.ignore_paths.len() <= statement::MAX_IGNORE_PATHS);
        assert!(p.resources.iter().all(|r| !r.digest.is_empty()));
    }
}
