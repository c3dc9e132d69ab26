//! The bundle's certificates checked offline against those the user gives
//! (`--certificate-chain`), stricter than `model_signing verify`
//! (../shared/reference/signing.md): the chain built from the signer's certificate to the
//! first certificate given (a root, or an intermediate the user trusts), each issuer's
//! signature checked, every issuer a CA within its path length, the signer's certificate
//! for signing, every certificate valid now; then the envelope verified with the signer's
//! key. The bundle's certificates are never trusted by themselves: the signature does not
//! cover them.

use std::collections::BTreeMap;
use std::time::Duration;

use super::algorithm::Unverifiable;
use super::bundle::{Bundle, Material, MAX_LIST};
use super::certificate::{rfc3339, Certificate};
use super::problem::Problem;
use super::verify;

/// Issuer signatures checked at most while building one chain (a real chain needs two or
/// three; the bundle and the anchors bound the rest).
const MAX_SIGNATURE_CHECKS: usize = 4 * MAX_LIST;

/// The certificates the user gives, any of which a chain may end at: roots, or
/// intermediates.
#[derive(Clone, Default)]
pub struct Anchors(Vec<Certificate>);

impl Anchors {
    /// Adds the certificates of a PEM file (at most [`MAX_LIST`] a file).
    pub fn add_pem(&mut self, text: &str) -> Result<(), String> {
        self.0.extend(Certificate::from_pem(text, MAX_LIST)?);
        Ok(())
    }
}

/// The problems of `bundle`'s certificates with `anchors` at `now` (since the Unix epoch),
/// then of its envelope's signatures with the signer's key.
pub fn problems(bundle: &Bundle, anchors: &Anchors, now: Duration) -> Vec<Problem> {
    let Material::Certificates(ders) = &bundle.material else {
        return vec![Problem::NoCertificate];
    };
    if ders.is_empty() {
        return vec![Problem::NoCertificate];
    }
    let mut problems = Vec::new();
    let mut bundled = Vec::new();
    for (i, der) in ders.iter().enumerate() {
        match Certificate::from_der(der) {
            Ok(cert) => bundled.push(cert),
            Err(why) if i == 0 => {
                let which = "the signer's certificate (the bundle's first)".into();
                return vec![Problem::BadCertificate { which, why }];
            }
            Err(why) => problems.push(Problem::BadCertificate {
                which: format!("certificate {} of the bundle", i + 1),
                why,
            }),
        }
    }
    let leaf = bundled.remove(0);
    let path = build(&leaf, &bundled, anchors, now, &mut problems);
    check_path(&path, now, &mut problems);
    if bundle.has_log_or_timestamp {
        problems.push(Problem::TimestampNotChecked);
    }
    match leaf.key() {
        Ok(key) => {
            let named = format!("the {} key of \"{}\"", key.curve(), leaf.subject());
            problems.extend(verify::problems_by(&bundle.envelope, &key, &named));
        }
        Err(why) => problems.push(Problem::BadCertificate {
            which: the_certificate(&leaf),
            why,
        }),
    }
    problems
}

/// One certificate that a chain may use, from the bundle or given.
struct Candidate<'a> {
    cert: &'a Certificate,
    given: bool,
    used: bool,
}

/// The chain from `leaf` up, as far as it goes: to the first certificate given (RFC 5280's
/// trust anchor, whose own signature is not checked), or where it breaks, which is then a
/// problem.
fn build<'a>(
    leaf: &'a Certificate,
    bundled: &'a [Certificate],
    anchors: &'a Anchors,
    now: Duration,
    problems: &mut Vec<Problem>,
) -> Vec<&'a Certificate> {
    // Each certificate once, given if any copy of it is; found by subject.
    let mut pool: Vec<Candidate> = Vec::new();
    let mut by_der: BTreeMap<&[u8], usize> = BTreeMap::new();
    let given = anchors.0.iter().map(|c| (c, true));
    for (cert, given) in given.chain(bundled.iter().map(|c| (c, false))) {
        match by_der.get(cert.der()) {
            Some(&i) => pool[i].given |= given,
            None => {
                by_der.insert(cert.der(), pool.len());
                pool.push(Candidate {
                    cert,
                    given,
                    used: false,
                });
            }
        }
    }
    let mut by_subject: BTreeMap<&[u8], Vec<usize>> = BTreeMap::new();
    for (i, c) in pool.iter().enumerate() {
        by_subject.entry(c.cert.subject_der()).or_default().push(i);
    }
    if let Some(&i) = by_der.get(leaf.der()) {
        pool[i].used = true;
    }
    let mut path = vec![leaf];
    let mut checks = 0;
    loop {
        let cur = path[path.len() - 1];
        if by_der.get(cur.der()).is_some_and(|&i| pool[i].given) {
            return path;
        }
        let subject = cur.subject();
        if cur.self_issued() {
            problems.push(Problem::Untrusted(format!(
                "the chain ends at the root \"{subject}\", which is not among the given \
                 certificates"
            )));
            return path;
        }
        // The issuers by name: those valid now first (a CA re-issued beside its expired
        // copy), then given before bundled.
        let mut candidates: Vec<usize> = (by_subject.get(cur.issuer_der()))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|&i| !pool[i].used)
            .collect();
        candidates.sort_by_key(|&i| (pool[i].cert.invalid_at(now).is_some(), i));
        let mut next = None;
        let mut refused = None;
        for &i in &candidates {
            checks += 1;
            if checks > MAX_SIGNATURE_CHECKS {
                problems.push(Problem::Untrusted(format!(
                    "more than {MAX_SIGNATURE_CHECKS} signatures checked building the chain \
                     of \"{}\": not built further",
                    leaf.subject()
                )));
                return path;
            }
            match cur.signed_by(pool[i].cert) {
                Ok(true) => {
                    next = Some(i);
                    break;
                }
                Ok(false) => {}
                Err(why) => {
                    refused.get_or_insert(why);
                }
            }
        }
        let issuer = cur.issuer();
        let Some(i) = next else {
            problems.push(match refused {
                Some(why) => unverifiable(cur, why),
                None if candidates.is_empty() => Problem::Untrusted(format!(
                    "no certificate named \"{issuer}\", the issuer of \"{subject}\", was given \
                     or is in the bundle"
                )),
                None => Problem::Untrusted(format!(
                    "\"{subject}\" is signed by none of the certificates named \"{issuer}\" \
                     (given or in the bundle): its signature does not verify with their keys"
                )),
            });
            return path;
        };
        pool[i].used = true;
        path.push(pool[i].cert);
    }
}

/// The problem of a certificate whose signature is not checked.
fn unverifiable(cert: &Certificate, why: Unverifiable) -> Problem {
    let which = the_certificate(cert);
    match why {
        Unverifiable::Unsupported(why) => Problem::BadCertificate { which, why },
        Unverifiable::Weak(why) => Problem::WeakCertificate { which, why },
    }
}

/// Each certificate of `path` (the signer's first) held to its role and to `now`.
fn check_path(path: &[&Certificate], now: Duration, problems: &mut Vec<Problem>) {
    // CA certificates between the signer's and the one checked, self-issued ones aside
    // (RFC 5280 6.1.4 (l)), for pathLenConstraint.
    let mut below = 0;
    for (i, cert) in path.iter().enumerate() {
        if i > 1 && !path[i - 1].self_issued() {
            below += 1;
        }
        let subject = cert.subject();
        if let Some((field, date)) = cert.invalid_at(now) {
            problems.push(Problem::NotValidNow {
                subject: subject.clone(),
                field,
                date: rfc3339(date),
                now: rfc3339(now),
            });
        }
        let ext = match cert.extensions() {
            Ok(ext) => ext,
            Err(why) => {
                problems.push(Problem::BadCertificate {
                    which: the_certificate(cert),
                    why,
                });
                continue;
            }
        };
        let why = if i == 0 {
            cannot_sign(&ext)
        } else {
            not_ca(&ext, below)
        };

        if let Some(why) = why {
            problems.push(match i {
                0 => Problem::CannotSign { subject, why },
                _ => Problem::NotCa { subject, why },
            });
        }
    }
}

/// A certificate as the messages name it.
fn the_certificate(cert: &Certificate) -> String {
    format!("the certificate \"{}\"", cert.subject())
}

/// Why a signer's certificate may not sign, if it may not.
fn cannot_sign(ext: &super::certificate::Extensions) -> Option<String> {
    match (ext.key_usage, ext.code_signing) {
        (None, None) => Some("it has neither keyUsage nor extKeyUsage".into()),
        (Some((false, _)), _) => Some("its keyUsage lacks digitalSignature".into()),
        (_, Some(false)) => Some("its extKeyUsage lacks codeSigning".into()),
        _ => None,
    }
}

/// Why an issuer with `below` CA certificates under it (self-issued ones aside) may not
/// issue, if it may not.
fn not_ca(ext: &super::certificate::Extensions, below: usize) -> Option<String> {
    match (ext.basic, ext.key_usage) {
        (None, _) => Some("it has no basicConstraints".into()),
        (Some((false, _)), _) => Some("its basicConstraints has cA false".into()),
        (_, Some((_, false))) => Some("its keyUsage lacks keyCertSign".into()),
        (Some((true, Some(len))), _) if below > usize::from(len) => Some(format!(
            "its pathLenConstraint is {len}, but {below} CA certificates are below it"
        )),
        _ => None,
    }
}
