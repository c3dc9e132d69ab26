//! The bundle's certificates checked offline against those the user gives
//! (`--certificate-chain`), stricter than `model_signing verify`
//! (../shared/reference/signing.md): the chain built from the signer's certificate to a given
//! root, each issuer's signature checked, every issuer a CA, the signer's certificate for
//! signing, every certificate valid now; then the envelope verified with the signer's key.
//! The bundle's certificates are never trusted by themselves: the signature does not cover
//! them.

use std::collections::BTreeMap;
use std::time::Duration;

use super::bundle::{Bundle, Material, MAX_LIST};
use super::certificate::{rfc3339, Certificate};
use super::problem::Problem;
use super::verify;

/// Issuer signatures checked at most while building one chain (a real chain needs two or
/// three; the bundle and the anchors bound the rest).
const MAX_SIGNATURE_CHECKS: usize = 4 * MAX_LIST;

/// The certificates the user gives: roots, which a chain may end at, and intermediates.
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
    let path = build(&leaf, &bundled, anchors, &mut problems);
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

/// The chain from `leaf` up, as far as it goes: to a given root, or where it breaks, which
/// is then a problem.
fn build<'a>(
    leaf: &'a Certificate,
    bundled: &'a [Certificate],
    anchors: &'a Anchors,
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
        let subject = cur.subject();
        if cur.issuer_der() == cur.subject_der() {
            let given = by_der.get(cur.der()).is_some_and(|&i| pool[i].given);
            let trusted = given && self_signed(cur, problems);
            if !given {
                problems.push(Problem::Untrusted(format!(
                    "the chain ends at the root \"{subject}\", which is not among the given \
                     certificates"
                )));
            } else if !trusted {
                problems.push(Problem::Untrusted(format!(
                    "the given root \"{subject}\" is not signed by its own key"
                )));
            }
            return path;
        }
        let candidates = by_subject
            .get(cur.issuer_der())
            .map_or(&[][..], Vec::as_slice);
        let mut named = false;
        let mut next = None;
        for &i in candidates.iter().filter(|&&i| !pool[i].used) {
            named = true;
            checks += 1;
            if checks > MAX_SIGNATURE_CHECKS {
                problems.push(Problem::Untrusted(format!(
                    "more than {MAX_SIGNATURE_CHECKS} signatures checked building the chain \
                     of \"{}\": not built further",
                    leaf.subject()
                )));
                return path;
            }
            let Ok(key) = pool[i].cert.key() else {
                continue;
            };
            match cur.signed_by(&key) {
                Ok(true) => {
                    next = Some(i);
                    break;
                }
                Ok(false) => {}
                Err(why) => {
                    problems.push(Problem::BadCertificate {
                        which: the_certificate(cur),
                        why,
                    });
                    return path;
                }
            }
        }
        let issuer = cur.issuer();
        let Some(i) = next else {
            problems.push(Problem::Untrusted(if named {
                format!(
                    "\"{subject}\" is signed by none of the certificates named \"{issuer}\" \
                     (given or in the bundle): its signature does not verify with their keys"
                )
            } else {
                format!(
                    "no certificate named \"{issuer}\", the issuer of \"{subject}\", was given \
                     or is in the bundle"
                )
            }));
            return path;
        };
        pool[i].used = true;
        path.push(pool[i].cert);
    }
}

/// Whether a self-issued certificate verifies with its own key; an error if it cannot be
/// checked.
fn self_signed(cert: &Certificate, problems: &mut Vec<Problem>) -> bool {
    let checked = cert.key().and_then(|key| cert.signed_by(&key));
    checked.unwrap_or_else(|why| {
        problems.push(Problem::BadCertificate {
            which: the_certificate(cert),
            why,
        });
        false
    })
}

/// Each certificate of `path` (the signer's first) held to its role and to `now`.
fn check_path(path: &[&Certificate], now: Duration, problems: &mut Vec<Problem>) {
    for (i, cert) in path.iter().enumerate() {
        let subject = cert.subject();
        let (not_before, not_after) = cert.validity();
        let invalid = if now < not_before {
            Some(("notBefore", not_before))
        } else if now > not_after {
            Some(("notAfter", not_after))
        } else {
            None
        };
        if let Some((field, date)) = invalid {
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
            not_ca(&ext, i - 1)
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

/// Why an issuer with `below` CA certificates under it may not issue, if it may not.
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
