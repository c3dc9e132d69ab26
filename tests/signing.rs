//! OpenSSF model signatures read from the bundles `model_signing` made
//! (tests/fixtures/signing/, tests/fixtures/gen/make_signing_fixtures.py).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rtenx::signing::{self, chain, statement, verify, Material, Part};
use sha2::{Digest, Sha256};

const CASES: &str = "tests/fixtures/signing/cases";

/// Every case of the verdicts table.
fn cases() -> Vec<String> {
    let table = std::fs::read_to_string("tests/fixtures/signing/verdicts.tsv").unwrap();
    table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .collect()
}

fn signature_of(case: &str) -> PathBuf {
    let beside = Path::new(CASES).join(case).join("model.sig");
    if beside.exists() {
        beside
    } else {
        Path::new(CASES).join(case).join("model/model.sig")
    }
}

/// The model of a case and its signature file.
fn model_of(case: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(CASES).join(case);
    if dir.join("model.sig").exists() {
        (dir.join("model.bin"), dir.join("model.sig"))
    } else {
        (dir.join("model"), dir.join("model/model.sig"))
    }
}

/// The SG codes `rtenx` finds for a case, sorted and once each.
fn codes(case: &str) -> Vec<&'static str> {
    let (model, signature) = model_of(case);
    let mut codes: Vec<_> = match signing::read(&std::fs::read(&signature).unwrap()) {
        Err(_) => vec!["SG001"],
        Ok(signed) => signing::integrity::check(&model, Some(&signature), &signed)
            .iter()
            .map(|p| p.rule().code)
            .collect(),
    };
    codes.sort_unstable();
    codes.dedup();
    codes
}

fn read(case: &str) -> signing::Signed {
    signing::read(&std::fs::read(signature_of(case)).unwrap())
        .unwrap_or_else(|e| panic!("{case}: {e}"))
}

/// Integrity only (the signature itself is not verified here): what each defect gives.
const INTEGRITY: &[(&str, &[&str])] = &[
    ("tamper-flipped-byte", &["SG008"]),
    ("tamper-added-file", &["SG006"]),
    ("tamper-removed-file", &["SG007"]),
    ("tamper-renamed-file", &["SG006", "SG007"]),
    ("tamper-moved-file", &["SG006", "SG007"]),
    ("tamper-symlink-out", &["SG009"]),
    ("tamper-truncated-bundle", &["SG001"]),
    ("tamper-edited-payload", &["SG003", "SG008"]),
    ("signed-ignore-model", &["SG004"]),
    ("signed-duplicate-name", &["SG005"]),
    ("signed-dotdot-name", &["SG005"]),
    ("signed-dot-slash-name", &["SG005", "SG006"]),
    ("signed-absolute-name", &["SG005"]),
    ("signed-root-mismatch", &["SG003"]),
    ("signed-unknown-predicate", &["SG002"]),
    ("signed-missing-resource", &["SG007"]),
    ("tamper-safetensors-config", &["SG008"]),
];

/// The signatures checked with the case's key (cases verified with certificates aside).
const SIGNATURES: &[(&str, &[&str])] = &[
    ("signed-second-sig-bad", &["SG010"]),
    ("tamper-edited-payload", &["SG011"]),
    ("key-wrong-key", &["SG011"]),
];

/// The certificate cases checked with their material (`--certificate-chain`): every
/// finding, in order.
const CERTIFICATES: &[(&str, &[&str])] = &[
    ("cert-good", &[]),
    ("cert-p384", &[]),
    ("cert-single-leaf", &[]),
    ("cert-leaf-expired", &["SG018"]),
    ("cert-leaf-future", &["SG018"]),
    ("cert-chain-2010", &["SG018", "SG018", "SG018"]),
    ("cert-leaf-swapped", &["SG018"]),
    ("cert-issuer-not-ca", &["SG016"]),
    ("cert-issuer-critical-unknown", &["SG014"]),
    ("cert-leaf-no-signing-usage", &["SG017"]),
    ("cert-leaf-tls-eku", &["SG017"]),
    ("cert-leaf-garbled", &["SG014"]),
    ("cert-wrong-anchor", &["SG015"]),
    ("cert-timestamped", &["SG019"]),
    ("key-cert-material", &["SG011"]),
];

fn expected(table: &[(&str, &'static [&'static str])], case: &str) -> &'static [&'static str] {
    table
        .iter()
        .find(|(name, _)| *name == case)
        .map_or(&[], |(_, codes)| codes)
}

#[test]
fn every_rule_has_a_fixture() {
    let covered: Vec<&str> = (INTEGRITY.iter().chain(SIGNATURES).chain(CERTIFICATES))
        .flat_map(|(_, codes)| codes.iter().copied())
        // Every case checked without a key; and `--require-signature` (mod cli).
        .chain(["SG012", "SG013"])
        .collect();
    for rule in signing::rules::RULES {
        assert!(covered.contains(&rule.code), "{} has no fixture", rule.code);
    }
}

#[test]
fn each_defect_is_its_own_finding() {
    for case in cases() {
        assert_eq!(codes(&case), expected(INTEGRITY, &case), "{case}");
    }
}

/// The key material of the verdicts table.
fn key_cases() -> Vec<(String, String)> {
    let table = std::fs::read_to_string("tests/fixtures/signing/verdicts.tsv").unwrap();
    table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let case = cols.next()?.to_owned();
            let key = cols.next()?.strip_prefix("key:")?.to_owned();
            Some((case, key))
        })
        .filter(|(case, _)| case != "tamper-truncated-bundle")
        .collect()
}

#[test]
fn signatures_verify_with_the_given_key_only() {
    let cases = key_cases();
    assert!(cases.len() >= 30, "{}", cases.len());
    for (case, key) in cases {
        let pem = std::fs::read_to_string(format!("tests/fixtures/signing/material/{key}.pub.pem"));
        let key = verify::PublicKey::from_pem(&pem.unwrap()).unwrap();
        let envelope = &read(&case).bundle.envelope;
        let codes: Vec<_> = verify::problems(envelope, Some(&key))
            .iter()
            .map(|p| p.rule().code)
            .collect();
        assert_eq!(codes, expected(SIGNATURES, &case), "{case}");
        let unchecked = verify::problems(envelope, None);
        assert_eq!(unchecked, [signing::Problem::NotChecked], "{case}");
    }
    // Each curve with its own hash; model_signing 0.2.0's compat PAE.
    for (case, curve, outcome) in [
        ("key-p384", "P-384", verify::Outcome::Verified),
        ("key-p521", "P-521", verify::Outcome::Verified),
        ("v02-key-p256", "P-256", verify::Outcome::VerifiedCompat),
    ] {
        let key = &case[case.len() - 4..];
        let key = key.trim_start_matches('-');
        let pem = std::fs::read_to_string(format!("tests/fixtures/signing/material/{key}.pub.pem"));
        let key = verify::PublicKey::from_pem(&pem.unwrap()).unwrap();
        assert_eq!(key.curve(), curve);
        assert_eq!(
            verify::with_key(&read(case).bundle.envelope, &key),
            [outcome]
        );
    }
}
/// The cases verified with certificates: each with the files of its material.
fn certificate_cases() -> Vec<(String, Vec<PathBuf>)> {
    let table = std::fs::read_to_string("tests/fixtures/signing/verdicts.tsv").unwrap();
    table
        .lines()
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let case = cols.next()?.to_owned();
            let files = cols.next()?.strip_prefix("cert:")?.split('+');
            let material = Path::new("tests/fixtures/signing/material");
            Some((case, files.map(|f| material.join(f)).collect()))
        })
        .collect()
}

fn anchors(files: &[PathBuf]) -> chain::Anchors {
    let mut anchors = chain::Anchors::default();
    for file in files {
        anchors
            .add_pem(&std::fs::read_to_string(file).unwrap())
            .unwrap();
    }
    anchors
}

fn now() -> Duration {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
}

/// The problems of a certificate case at `at`.
fn chain_problems(case: &str, at: Duration) -> Vec<signing::Problem> {
    let files = certificate_cases().into_iter().find(|(c, _)| c == case);
    chain::problems(&read(case).bundle, &anchors(&files.unwrap().1), at)
}

fn codes_of(problems: &[signing::Problem]) -> Vec<&'static str> {
    problems.iter().map(|p| p.rule().code).collect()
}

#[test]
fn certificate_chains_are_held_to_their_roots_roles_and_the_time_now() {
    let cases = certificate_cases();
    assert_eq!(cases.len(), CERTIFICATES.len());
    for (case, _) in &cases {
        let codes = codes_of(&chain_problems(case, now()));
        assert_eq!(codes, expected(CERTIFICATES, case), "{case}");
    }
}

#[test]
fn the_reference_accepts_certificates_rtenx_refuses() {
    // model_signing verify checks validity at the leaf's own notBefore, and either usage.
    let table = std::fs::read_to_string("tests/fixtures/signing/verdicts.tsv").unwrap();
    let mut stricter: Vec<&str> = (table.lines())
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|cols| cols[1].starts_with("cert:") && cols[3] == "0")
        .map(|cols| cols[0])
        .filter(|case| !expected(CERTIFICATES, case).is_empty())
        .filter(|case| *case != "cert-timestamped")
        .collect();
    stricter.sort_unstable();
    let want = [
        "cert-chain-2010",
        "cert-leaf-expired",
        "cert-leaf-future",
        "cert-leaf-swapped",
        "cert-leaf-tls-eku",
    ];
    assert_eq!(stricter, want);
}

#[test]
fn certificates_are_checked_at_the_time_given() {
    let year = |y: u64| Duration::from_secs((y - 1970) * 31_556_952);
    // The good certificates run to 2099 and 2100; the future leaf from 2080.
    let codes = codes_of(&chain_problems("cert-good", year(2101)));
    assert_eq!(codes, ["SG018", "SG018", "SG018"]);
    assert!(chain_problems("cert-leaf-future", year(2085)).is_empty());
    assert!(chain_problems(
        "cert-leaf-expired",
        year(2015) + Duration::from_secs(86_400 * 30)
    )
    .is_empty());
    // Before 2000, the CAs are not valid yet either.
    let codes = codes_of(&chain_problems("cert-good", year(1999)));
    assert_eq!(codes, ["SG018", "SG018", "SG018"]);
}

#[test]
fn each_certificate_problem_names_the_certificate_and_the_field() {
    let message = |case: &str| {
        let problems = chain_problems(case, now());
        problems
            .iter()
            .map(|p| p.message())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let expired = message("cert-leaf-expired");
    assert!(
        expired.starts_with(
            "the certificate \"CN=rtenx test signer\" has expired: notAfter \
             2016-01-01T00:00:00Z, now 20"
        ),
        "{expired}"
    );
    assert_eq!(
        message("cert-leaf-future").split(", now").next(),
        Some("the certificate \"CN=rtenx test signer\" is not valid yet: notBefore 2080-01-01T00:00:00Z")
    );
    assert_eq!(
        message("cert-issuer-not-ca"),
        "the issuer \"CN=rtenx test intermediate\" is not a certificate authority: its \
         basicConstraints has cA false"
    );
    assert_eq!(
        message("cert-leaf-tls-eku"),
        "the signer's certificate \"CN=rtenx test signer\" is not for signing: its extKeyUsage \
         lacks codeSigning"
    );
    assert_eq!(
        message("cert-wrong-anchor"),
        "\"CN=rtenx test intermediate\" is signed by none of the certificates named \"CN=rtenx \
         test root\" (given or in the bundle): its signature does not verify with their keys"
    );
    let critical = message("cert-issuer-critical-unknown");
    assert_eq!(
        critical,
        "the certificate \"CN=rtenx test intermediate\": it has the critical extension \
         1.3.6.1.4.1.55738.1, unknown to rtenx"
    );
    let garbled = message("cert-leaf-garbled");
    assert!(
        garbled.starts_with("the signer's certificate (the bundle's first): not a DER X.509"),
        "{garbled}"
    );
}

#[test]
fn a_chain_needs_a_given_root() {
    // The leaf's chain without the intermediate, or with only it: no root to end at.
    let bundle = read("cert-single-leaf").bundle;
    let material = Path::new("tests/fixtures/signing/material");
    let root_only = anchors(&[material.join("cert-good-root.pem")]);
    let codes = codes_of(&chain::problems(&bundle, &root_only, now()));
    assert_eq!(codes, ["SG015"]);
    let inter_only = anchors(&[material.join("cert-good-inter.pem")]);
    let problems = chain::problems(&bundle, &inter_only, now());
    assert_eq!(codes_of(&problems), ["SG015"]);
    assert!(
        problems[0]
            .message()
            .starts_with("no certificate named \"CN=rtenx test root\""),
        "{}",
        problems[0].message()
    );
    // The P-384 chain is not the good one's, though its names are.
    let bundle = read("cert-p384").bundle;
    let codes = codes_of(&chain::problems(&bundle, &root_only, now()));
    assert_eq!(codes, ["SG015"]);
}

#[test]
fn a_root_in_the_bundle_is_trusted_only_when_given() {
    let material = Path::new("tests/fixtures/signing/material");
    let root = std::fs::read_to_string(material.join("cert-p384-root.pem")).unwrap();
    let root = signing::certificate::Certificate::from_pem(&root, 1).unwrap();
    let mut bundle = read("cert-p384").bundle;
    let Material::Certificates(chain) = &mut bundle.material else {
        panic!("{:?}", bundle.material)
    };
    chain.push(root[0].der().to_vec());
    let other = anchors(&[material.join("cert-good-root.pem")]);
    let problems = chain::problems(&bundle, &other, now());
    assert_eq!(codes_of(&problems), ["SG015"]);
    assert_eq!(
        problems[0].message(),
        "the chain ends at the root \"CN=rtenx test root\", which is not among the given \
         certificates"
    );
    let own = anchors(&[material.join("cert-p384-root.pem")]);
    assert_eq!(chain::problems(&bundle, &own, now()), []);
}

#[test]
fn a_digest_mismatch_names_the_file_and_both_digests() {
    let (model, signature) = model_of("tamper-flipped-byte");
    let signed = signing::read(&std::fs::read(&signature).unwrap()).unwrap();
    let problems = signing::integrity::check(&model, Some(&signature), &signed);
    let [problem] = &problems[..] else {
        panic!("{problems:?}")
    };
    let actual = hex(&Sha256::digest(
        std::fs::read(model.join("weights.bin")).unwrap(),
    ));
    let message = problem.message();
    assert!(
        message.starts_with("\"weights.bin\" changed since it was signed"),
        "{message}"
    );
    assert!(message.ends_with(&format!(", now {actual}")), "{message}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_fixture_reads() {
    let cases = cases();
    assert!(cases.len() >= 35, "{}", cases.len());
    for case in cases.iter().filter(|c| *c != "tamper-truncated-bundle") {
        let signed = read(case);
        let bundle = &signed.bundle;
        assert_eq!(
            bundle.media_type,
            signing::bundle::BUNDLE_MEDIA_TYPE,
            "{case}"
        );
        assert_eq!(
            bundle.envelope.payload_type,
            signing::pae::IN_TOTO_PAYLOAD_TYPE
        );
        assert!(!bundle.envelope.signatures.is_empty(), "{case}");
        assert!(
            bundle.envelope.signatures.iter().all(|s| s.sig.len() > 60),
            "{case}"
        );
        assert_eq!(signed.statement.kind, statement::STATEMENT_TYPE, "{case}");
        let v1 = signed.statement.predicate_type == statement::PREDICATE_V1;
        assert_eq!(signed.statement.predicate.is_some(), v1, "{case}");
    }
}

#[test]
fn the_root_digest_is_sha256_over_the_resource_digests() {
    for case in [
        "key-p256",
        "key-p521",
        "key-p256-shards-blake2",
        "cert-good",
    ] {
        let signed = read(case);
        let predicate = signed.statement.predicate.unwrap();
        let mut root = Sha256::new();
        for r in &predicate.resources {
            root.update(&r.digest);
        }
        let subject = &signed.statement.subjects[0];
        assert_eq!(subject.name, "model", "{case}");
        assert_eq!(
            subject.sha256.as_deref(),
            Some(&root.finalize()[..]),
            "{case}"
        );
    }
}

#[test]
fn the_predicate_says_how_the_model_was_hashed() {
    let p = read("key-p256").statement.predicate.unwrap();
    let s = &p.serialization;
    assert_eq!(
        (s.method.as_str(), s.hash_type.as_str()),
        ("files", "sha256")
    );
    assert_eq!(s.shard_size, None);
    assert!(!s.allow_symlinks);
    assert!(s.ignore_paths.iter().any(|p| p == "model.sig"));
    assert!(s.ignore_paths.iter().any(|p| p == ".gitattributes"));
    let names: Vec<_> = p.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["config.json", "sub/tokenizer.txt", "weights.bin"]);
    assert!(p.resources.iter().all(|r| r.digest.len() == 32));

    // shard_size is written `16.0`; the shards are named path:start:end.
    let p = read("key-p256-shards-blake2").statement.predicate.unwrap();
    assert_eq!(p.serialization.method, "shards");
    assert_eq!(p.serialization.hash_type, "blake2b");
    assert_eq!(p.serialization.shard_size, Some(16));
    assert!(p.resources.iter().any(|r| r.name == "weights.bin:32:40"));
    assert!(p.resources.iter().all(|r| r.digest.len() == 64));
    assert_eq!(p.resources[0].algorithm, "blake2b-sharded-16");

    let p = read("key-p256-files-blake3").statement.predicate.unwrap();
    assert_eq!(p.serialization.hash_type, "blake3");
    let p = read("key-p256-single-file").statement.predicate.unwrap();
    assert_eq!(p.resources.len(), 1);
    assert_eq!(p.resources[0].name, ".");
    let p = read("key-p256-symlink-inside").statement.predicate.unwrap();
    assert!(p.serialization.allow_symlinks);
}

#[test]
fn the_verification_material_is_read_not_trusted() {
    match read("key-p384").bundle.material {
        Material::KeyHint(Some(hint)) => assert_eq!(hint.len(), 64),
        other => panic!("{other:?}"),
    }
    match read("cert-good").bundle.material {
        // The leaf and the intermediate; the root is the user's.
        Material::Certificates(chain) => {
            assert_eq!(chain.len(), 2);
            assert!(chain.iter().all(|c| c[0] == 0x30 && c.len() > 200));
        }
        other => panic!("{other:?}"),
    }
    let signed = read("v02-key-p256");
    match signed.bundle.material {
        Material::KeyBytes(pem) => assert!(pem.starts_with(b"-----BEGIN PUBLIC KEY-----")),
        other => panic!("{other:?}"),
    }
    assert_eq!(signed.statement.predicate_type, statement::PREDICATE_V02);
    let names: Vec<_> = signed
        .statement
        .subjects
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["config.json", "sub/tokenizer.txt", "weights.bin"]);
    assert!(signed
        .statement
        .subjects
        .iter()
        .all(|s| s.sha256.as_ref().unwrap().len() == 32));
    assert_eq!(
        read("signed-second-sig-bad")
            .bundle
            .envelope
            .signatures
            .len(),
        2
    );
}

#[test]
fn hostile_bundles_are_errors_at_their_byte() {
    let good = std::fs::read(signature_of("key-p256")).unwrap();
    let text = String::from_utf8(good.clone()).unwrap();
    let cases: Vec<(Vec<u8>, Part, &str)> = vec![
        (b"".to_vec(), Part::Bundle, "ends"),
        (good[..good.len() / 2].to_vec(), Part::Bundle, ""),
        (
            text.replacen("{\"mediaType\"", "{\"mediaType\":\"x\",\"mediaType\"", 1).into(),
            Part::Bundle,
            "twice",
        ),
        ("[".repeat(10_000).into_bytes(), Part::Bundle, "not an object"),
        (
            format!("{{\"a\":{}", "[".repeat(10_000)).into_bytes(),
            Part::Bundle,
            "",
        ),
        (br#"{"mediaType":"x"}"#.to_vec(), Part::Bundle, "no dsseEnvelope"),
        (
            br#"{"dsseEnvelope":{"payload":"!!"}}"#.to_vec(),
            Part::Bundle,
            "not base64",
        ),
        (
            br#"{"dsseEnvelope":{"payload":"e30="}}"#.to_vec(), // {}
            Part::Statement,
            "",
        ),
        (
            // {"predicateType": "https://model_signing/signature/v1.0"}
            br#"{"dsseEnvelope":{"payload":"eyJwcmVkaWNhdGVUeXBlIjogImh0dHBzOi8vbW9kZWxfc2lnbmluZy9zaWduYXR1cmUvdjEuMCJ9"}}"#.to_vec(),
            Part::Statement,
            "no predicate",
        ),
    ];
    for (bytes, part, says) in cases {
        match signing::read(&bytes) {
            Ok(signed) => {
                // Only an empty statement reads: it has no predicate, which the checks refuse.
                assert_eq!(part, Part::Statement);
                assert!(signed.statement.predicate.is_none());
            }
            Err(e) => {
                assert_eq!(e.part, part, "{e}");
                assert!(e.what.contains(says), "{e}");
                assert!(e.at <= bytes.len() as u64, "{e}");
            }
        }
    }
}

/// `rtenx check` on a signed folder, as users meet it.
mod cli {
    use assert_cmd::Command;
    use std::path::Path;

    const SIGNED: &str = "tests/fixtures/signing/cases/key-p256-safetensors/model";
    const KEY: &str = "tests/fixtures/signing/material/p256.pub.pem";

    fn check(args: &[&str]) -> (i32, String) {
        let out = Command::cargo_bin("rtenx")
            .unwrap()
            .arg("check")
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code().unwrap(), text)
    }

    #[test]
    fn a_signed_folder_is_checked_and_verified() {
        let (code, out) = check(&[SIGNED, "--public-key", KEY]);
        assert_eq!(code, 0, "{out}");
        assert!(!out.contains("[SG"), "{out}");
        let (code, out) = check(&[SIGNED]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains("info[SG012]: the signature was not verified"),
            "{out}"
        );
        let (code, out) = check(&[SIGNED, "--require-signature"]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[SG013]"), "{out}");
    }

    #[test]
    fn a_tampered_folder_fails() {
        let tampered = "tests/fixtures/signing/cases/tamper-safetensors-config/model";
        let (code, out) = check(&[tampered, "--public-key", KEY]);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains("error[SG008]: \"config.json\" changed since it was signed"),
            "{out}"
        );
        assert!(!out.contains("SG011"), "{out}");
        let other = "tests/fixtures/signing/material/other-p256.pub.pem";
        let (code, out) = check(&[SIGNED, "--public-key", other]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[SG011]"), "{out}");
    }

    #[test]
    fn a_folder_without_a_signature_fails_only_when_one_is_required() {
        let unsigned = "tests/fixtures/safetensors/hf_repo";
        let (_, out) = check(&[unsigned]);
        assert!(!out.contains("[SG"), "{out}");
        let (code, out) = check(&[unsigned, "--require-signature"]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[SG013]: no signature at"), "{out}");
    }

    const CERTS: &str = "tests/fixtures/signing/cases";
    const ROOT: &str = "tests/fixtures/signing/material/cert-good-root.pem";

    #[test]
    fn a_certificate_chain_is_verified_to_the_root_given() {
        let good = format!("{CERTS}/cert-good/model");
        let (code, out) = check(&[&good, "--certificate-chain", ROOT, "--require-signature"]);
        assert_eq!(code, 0, "{out}");
        assert!(!out.contains("[SG"), "{out}");
        let expired = format!("{CERTS}/cert-leaf-expired/model");
        let root = "tests/fixtures/signing/material/cert-leaf-expired-root.pem";
        let (code, out) = check(&[&expired, "--certificate-chain", root]);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains(
                "error[SG018]: the certificate \"CN=rtenx test signer\" has expired: notAfter \
                 2016-01-01T00:00:00Z"
            ),
            "{out}"
        );
        // The intermediate given beside the root, for a bundle that holds only the leaf.
        let single = format!("{CERTS}/cert-single-leaf/model");
        let inter = "tests/fixtures/signing/material/cert-good-inter.pem";
        let (code, out) = check(&[&single, "--certificate-chain", ROOT]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[SG015]"), "{out}");
        let (code, out) = check(&[
            &single,
            "--certificate-chain",
            ROOT,
            "--certificate-chain",
            inter,
        ]);
        assert_eq!(code, 0, "{out}");
        // A key and a chain are one or the other.
        let (code, _) = check(&[&good, "--certificate-chain", ROOT, "--public-key", KEY]);
        assert_eq!(code, 2);
    }

    #[test]
    fn material_from_inside_a_checked_folder_is_refused() {
        let out = Command::cargo_bin("rtenx")
            .unwrap()
            .args([
                "check",
                "tests/fixtures/signing",
                "--certificate-chain",
                ROOT,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("inside the checked folder"), "{err}");
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }

    fn check_in(dir: &Path, args: &[&str]) -> (i32, String) {
        let out = Command::cargo_bin("rtenx")
            .unwrap()
            .current_dir(dir)
            .arg("check")
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let err = String::from_utf8_lossy(&out.stderr);
        (out.status.code().unwrap(), format!("{text}{err}"))
    }

    #[test]
    fn the_settings_give_material_only_from_outside_the_checked_folder() {
        let settings = "certificate-chain = [\"root.pem\"]\nrequire-signature = true\n";
        // Beside the model: applied.
        let outside = tempfile::tempdir().unwrap();
        copy_dir(
            Path::new(&format!("{CERTS}/cert-good/model")),
            &outside.path().join("model"),
        );
        std::fs::copy(ROOT, outside.path().join("root.pem")).unwrap();
        std::fs::write(outside.path().join("rtenx.toml"), settings).unwrap();
        let (code, out) = check_in(outside.path(), &["model"]);
        assert_eq!(code, 0, "{out}");
        assert!(!out.contains("[SG"), "{out}");
        // Naming a file in the checked folder: refused.
        std::fs::copy(ROOT, outside.path().join("model/root.pem")).unwrap();
        let naming_inside = "certificate-chain = [\"model/root.pem\"]\n";
        std::fs::write(outside.path().join("rtenx.toml"), naming_inside).unwrap();
        let (code, out) = check_in(outside.path(), &["model"]);
        assert_eq!(code, 2, "{out}");
        assert!(out.contains("certificate-chain"), "{out}");
        assert!(out.contains("inside the checked folder"), "{out}");
        // Inside the checked folder: never applied, so nothing verifies or requires it.
        let inside = tempfile::tempdir().unwrap();
        let model = inside.path().join("model");
        copy_dir(Path::new(&format!("{CERTS}/cert-good/model")), &model);
        std::fs::copy(ROOT, model.join("root.pem")).unwrap();
        std::fs::write(model.join("rtenx.toml"), settings).unwrap();
        // (The two files added are not signed: SG006.)
        let (code, out) = check_in(&model, &["."]);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains("error[SG006]: \"rtenx.toml\" is in the model"),
            "{out}"
        );
        assert!(out.contains("info[SG012]"), "{out}");
        assert!(!out.contains("SG013"), "{out}");
    }
}

/// What `dump --json`, `check` and `--show-settings` say of a signature, as users meet them.
mod outputs {
    use assert_cmd::Command;
    use serde_json::Value;

    const KEY: &str = "tests/fixtures/signing/material/p256.pub.pem";
    const ROOT: &str = "tests/fixtures/signing/material/cert-good-root.pem";
    const SIGNED: &str = "tests/fixtures/signing/cases/key-p256-safetensors/model";
    const CERTIFIED: &str = "tests/fixtures/signing/cases/cert-good/model";
    /// `openssl pkey -pubin -in p256.pub.pem -outform DER | sha256sum`.
    const P256_FINGERPRINT: &str =
        "e5c9427f8c8951b3466ebfae9ccd59a488c94daac1948863f91bc3bd2a19f7f9";

    fn rtenx(args: &[&str]) -> (i32, String) {
        let out = Command::cargo_bin("rtenx")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code().unwrap(), text)
    }

    /// The `signature` object of `rtenx dump --json ARGS`.
    fn signature(args: &[&str]) -> Value {
        let (code, out) = rtenx(&[&["dump", "--json"], args].concat());
        assert_eq!(code, 0, "{out}");
        let doc: Value = serde_json::from_str(&out).unwrap();
        doc["signature"].clone()
    }

    #[test]
    fn a_signature_verified_with_a_key_names_the_key_and_what_it_covers() {
        let s = signature(&[SIGNED, "--public-key", KEY]);
        assert_eq!(s["status"], "verified", "{s}");
        assert_eq!(s["file"], "model.sig");
        let b = &s["bundle"];
        assert_eq!(b["signer"]["kind"], "key");
        assert_eq!(b["signer"]["fingerprint"], P256_FINGERPRINT);
        assert_eq!(b["algorithm"], "ECDSA P-256");
        assert_eq!(b["hashing"]["method"], "files");
        assert_eq!(b["hashing"]["hash_type"], "sha256");
        assert_eq!(
            (b["files"].as_u64(), b["bytes"].as_u64()),
            (Some(2), Some(94))
        );
        assert_eq!(
            (b["format"].as_str(), b["bundle_version"].as_str()),
            (Some("v1.0"), Some("0.3"))
        );
        let bundle = std::fs::read(format!("{SIGNED}/model.sig")).unwrap();
        let digest =
            sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(&bundle));
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(b["sha256"], hex.as_str());
    }

    #[test]
    fn a_certificate_signer_is_its_subject_issuer_and_validity() {
        let s = signature(&[CERTIFIED, "--certificate-chain", ROOT]);
        assert_eq!(s["status"], "verified", "{s}");
        let signer = &s["bundle"]["signer"];
        assert_eq!(signer["kind"], "certificate", "{s}");
        assert_eq!(signer["subject"], "CN=rtenx test signer");
        assert_eq!(signer["issuer"], "CN=rtenx test intermediate");
        assert_eq!(signer["not_before"], "2020-01-01T00:00:00Z");
        assert_eq!(signer["not_after"], "2099-12-31T00:00:00Z");
        assert_eq!(s["bundle"]["algorithm"], "ECDSA P-256");
    }

    #[test]
    fn without_material_only_integrity_is_claimed_and_the_hint_is_not_trusted() {
        let s = signature(&[SIGNED]);
        assert_eq!(s["status"], "integrity-only", "{s}");
        let signer = &s["bundle"]["signer"];
        assert_eq!(signer["kind"], "key-hint", "{s}");
        // model_signing's hint: the SHA-256 of the signer's PEM file, not a verified key.
        assert_eq!(
            signer["hint"],
            "7a5e7ea0913d7be394432cf2a5ec670780febf7c4e3c7bfab61a64bb2f1a3c7c"
        );
        assert!(s["bundle"].get("algorithm").is_none(), "{s}");
        let s = signature(&[CERTIFIED]);
        assert_eq!(s["status"], "integrity-only", "{s}");
        assert_eq!(s["bundle"]["signer"]["kind"], "certificate", "{s}");
    }

    #[test]
    fn a_tampered_or_wrongly_verified_model_fails_with_its_reason() {
        let tampered = "tests/fixtures/signing/cases/tamper-safetensors-config/model";
        let s = signature(&[tampered, "--public-key", KEY]);
        assert_eq!(s["status"], "failed", "{s}");
        let reason = s["reason"].as_str().unwrap();
        assert!(
            reason.contains("\"config.json\" changed since it was signed"),
            "{reason}"
        );
        let other = "tests/fixtures/signing/material/other-p256.pub.pem";
        let s = signature(&[SIGNED, "--public-key", other]);
        assert_eq!(s["status"], "failed", "{s}");
        assert!(
            s["reason"]
                .as_str()
                .unwrap()
                .contains("no signature of the envelope"),
            "{s}"
        );
    }

    #[test]
    fn a_folder_without_a_signature_says_none_and_a_file_says_nothing() {
        let s = signature(&["tests/fixtures/safetensors/hf_repo"]);
        assert_eq!(s["status"], "none", "{s}");
        assert!(s.get("bundle").is_none(), "{s}");
        let s = signature(&[&format!("{SIGNED}/model.safetensors")]);
        assert!(s.is_null(), "{s}");
        // A file with its signature named.
        let sig = format!("{SIGNED}/model.sig");
        let s = signature(&[&format!("{SIGNED}/model.safetensors"), "--signature", &sig]);
        // The bundle covers the folder, not the file alone.
        assert_eq!(s["status"], "failed", "{s}");
    }

    /// What the outputs show of a case, checked as `check` checks it, with `key` or none.
    fn shown(case: &str, key: Option<&str>) -> rtenx::inventory::signature::Signature {
        let folder = std::path::Path::new("tests/fixtures/signing/cases")
            .join(case)
            .join("model");
        let trust = key.map(|key| {
            let pem = std::fs::read_to_string(key).unwrap();
            rtenx::signing::Trust::Key(rtenx::signing::verify::PublicKey::from_pem(&pem).unwrap())
        });
        rtenx::signing::check_model(&folder, &folder.join("model.sig"), trust.as_ref()).signature
    }

    #[test]
    fn shards_and_the_v0_2_format_are_described_as_signed() {
        use rtenx::inventory::signature::{Signer, Status};
        let s = shown("key-p256-shards-sha256", Some(KEY));
        assert_eq!(s.status, Status::Verified, "{s:?}");
        let b = s.bundle.unwrap();
        assert_eq!(b.hashing.method, "shards");
        assert!(
            b.hashing.shard_size.is_some_and(|n| n > 0),
            "{:?}",
            b.hashing
        );
        let on_disk: u64 = ["config.json", "weights.bin", "sub"]
            .iter()
            .map(|f| {
                let path = std::path::Path::new(
                    "tests/fixtures/signing/cases/key-p256-shards-sha256/model",
                )
                .join(f);
                walk_size(&path)
            })
            .sum();
        assert_eq!(b.bytes, on_disk);
        // model_signing 0.2.0 put the key itself in the bundle: shown, never trusted.
        let s = shown("v02-key-p256", None);
        assert_eq!(s.status, Status::IntegrityOnly, "{s:?}");
        let b = s.bundle.unwrap();
        assert_eq!(b.format, "v0.2");
        let fingerprint = P256_FINGERPRINT.to_owned();
        assert_eq!(b.signer, Signer::BundleKey { fingerprint });
        let s = shown("v02-key-p256", Some(KEY));
        assert_eq!(s.status, Status::Verified, "{s:?}");
    }

    /// The bytes of the regular files at or below `path`.
    fn walk_size(path: &std::path::Path) -> u64 {
        let meta = std::fs::symlink_metadata(path).unwrap();
        if meta.is_dir() {
            let entries = std::fs::read_dir(path).unwrap();
            entries.map(|e| walk_size(&e.unwrap().path())).sum()
        } else if meta.is_file() {
            meta.len()
        } else {
            0
        }
    }

    #[test]
    fn a_signed_folder_with_no_model_reports_its_findings_in_every_format() {
        let folder = "tests/fixtures/signing/cases/key-p256/model";
        let (code, out) = rtenx(&["check", folder, "--public-key", KEY, "--format", "json"]);
        assert_eq!(code, 0, "{out}");
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["files"][0]["format"], "signed-folder", "{doc}");
        assert_eq!(doc["files"][0]["findings"], serde_json::json!([]), "{doc}");
        let tampered = "tests/fixtures/signing/cases/tamper-flipped-byte/model";
        for format in ["text", "json", "sarif", "github"] {
            let (code, out) = rtenx(&["check", tampered, "--public-key", KEY, "--format", format]);
            assert_eq!(code, 1, "{format}: {out}");
            assert!(out.contains("SG008"), "{format}: {out}");
        }
    }

    #[test]
    fn show_settings_names_the_material_and_where_it_came_from() {
        let (code, out) = rtenx(&[
            "check",
            "--isolated",
            "--show-settings",
            "--public-key",
            KEY,
            "--require-signature",
            SIGNED,
        ]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.starts_with(&format!(
                "signing\n  public-key: {KEY} (P-256 SHA256:{P256_FINGERPRINT})  (command line)\n  \
                 require-signature: yes  (command line)\n"
            )),
            "{out}"
        );
        let (_, out) = rtenx(&[
            "check",
            "--isolated",
            "--show-settings",
            "--certificate-chain",
            ROOT,
            CERTIFIED,
        ]);
        assert!(
            out.starts_with(&format!(
                "signing\n  certificate-chain: {ROOT}  (command line)\n    subject: CN=rtenx test root\n"
            )),
            "{out}"
        );
        let (_, out) = rtenx(&["check", "--isolated", "--show-settings", SIGNED]);
        assert!(!out.contains("signing\n"), "{out}");
    }
}

/// `--show-settings` names the settings file that gave the signing material.
#[test]
fn show_settings_names_the_settings_file_of_the_material() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::copy(
        "tests/fixtures/signing/material/p256.pub.pem",
        dir.join("key.pem"),
    )
    .unwrap();
    let settings = "public-key = \"key.pem\"\nrequire-signature = true\n";
    std::fs::write(dir.join("rtenx.toml"), settings).unwrap();
    let signed =
        std::fs::canonicalize("tests/fixtures/signing/cases/key-p256-safetensors/model").unwrap();
    let out = assert_cmd::Command::cargo_bin("rtenx")
        .unwrap()
        .current_dir(&dir)
        .args(["check", "--show-settings"])
        .arg(&signed)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout).replace(&dir.display().to_string(), "DIR");
    assert!(
        out.starts_with(
            "signing\n  public-key: DIR/key.pem (P-256 SHA256:e5c9427f8c8951b3466ebfae9ccd59a488c94\
             daac1948863f91bc3bd2a19f7f9)  (DIR/rtenx.toml)\n  require-signature: yes  \
             (DIR/rtenx.toml)\n"
        ),
        "{out}"
    );
}
