//! `check --signature`, `--public-key`, `--certificate-chain` and `--require-signature` (or
//! their settings): a model folder (or a file with `--signature`) held to its OpenSSF model
//! signature, the SG rules. The material comes from the command line, or else from the
//! settings file, which is never inside a checked folder; a material file inside a checked
//! folder is refused either way.

use super::super::config::Signing;
use clap::Args;
use rtenx::check::{Finding, Place};
use rtenx::inventory::signature::{Signature, Status};
use rtenx::signing::certificate::Certificate;
use rtenx::signing::{self, chain::Anchors, rules, verify::PublicKey, Problem, Trust};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Where a signature is and what verifies it: `check`, `inspect`, `dump` and `sbom` alike.
#[derive(Debug, Args)]
pub struct MaterialArgs {
    /// The model's OpenSSF signature bundle [default: `model.sig` in a model folder].
    #[arg(long, value_name = "FILE")]
    signature: Option<PathBuf>,
    /// Verify the signature with this PEM public key (ECDSA P-256, P-384 or P-521); it must
    /// not come from a checked folder [default: the configuration's `public-key`].
    #[arg(long, value_name = "FILE.pem")]
    public_key: Option<PathBuf>,
    /// Verify the bundle's certificate chain up to a root in this PEM file (roots, and
    /// intermediates the bundle lacks), then the signature with its key; may be repeated;
    /// never from a checked folder [default: the configuration's `certificate-chain`].
    #[arg(long, value_name = "FILE.pem", conflicts_with = "public_key")]
    certificate_chain: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SignatureArgs {
    #[command(flatten)]
    material: MaterialArgs,
    /// Make a missing or unverified signature an error (SG013) [default: the configuration's
    /// `require-signature`].
    #[arg(long)]
    require_signature: bool,
}

/// How the run verifies signatures: the material, read once, whether one is required, and
/// the lines `--show-settings` prints of them.
pub struct Verification {
    trust: Option<Trust>,
    require: bool,
    shown: Vec<String>,
}

/// The verification of `check`: the command line's material, or else the settings' (with
/// the settings file they come from); see [`verification`].
pub fn for_check(
    args: &SignatureArgs,
    settings: Option<(&Signing, &Path)>,
    checked: &[PathBuf],
) -> Result<Verification, String> {
    let mut run = verification(&args.material, settings, checked)?;
    let from_settings = settings.filter(|(s, _)| s.require_signature == Some(true));
    let source = match from_settings {
        _ if args.require_signature => Some("command line".to_owned()),
        Some((_, file)) => Some(rtenx::escape::path(file).into_owned()),
        None => None,
    };
    run.require = source.is_some();
    if let Some(source) = source {
        run.shown
            .push(format!("require-signature: yes  ({source})"));
    }
    Ok(run)
}

/// The verification of a run: the command line's material, or else the settings' (with the
/// settings file they come from); a file that cannot be read, or that lies in one of the
/// `checked` paths, is a usage error.
pub fn verification(
    args: &MaterialArgs,
    settings: Option<(&Signing, &Path)>,
    checked: &[PathBuf],
) -> Result<Verification, String> {
    let from_cli = args.public_key.is_some() || !args.certificate_chain.is_empty();
    let (key, chain, prefix, source) = match settings {
        Some((settings, file)) if !from_cli => (
            &settings.public_key,
            &settings.certificate_chain,
            "",
            rtenx::escape::path(file).into_owned(),
        ),
        _ => (
            &args.public_key,
            &args.certificate_chain,
            "--",
            "command line".to_owned(),
        ),
    };
    if key.is_some() && !chain.is_empty() {
        return Err("the settings give both public-key and certificate-chain: keep one".into());
    }
    let (key_name, chain_name) = (
        format!("{prefix}public-key"),
        format!("{prefix}certificate-chain"),
    );
    let located =
        |what: &str, path: &Path, e: String| format!("{what} {}: {e}", rtenx::escape::path(path));
    let mut shown = Vec::new();
    let trust = match key {
        Some(path) => {
            let text = material(path, &key_name, checked)?;
            let key = PublicKey::from_pem(&text).map_err(|e| located(&key_name, path, e))?;
            shown.push(format!(
                "public-key: {} ({} SHA256:{})  ({source})",
                rtenx::escape::path(path),
                key.curve(),
                signing::summary::fingerprint(&key)
            ));
            Some(Trust::Key(key))
        }
        None if chain.is_empty() => None,
        None => {
            let mut anchors = Anchors::default();
            for path in chain {
                let text = material(path, &chain_name, checked)?;
                (anchors.add_pem(&text)).map_err(|e| located(&chain_name, path, e))?;
                shown.push(format!(
                    "certificate-chain: {}  ({source})",
                    rtenx::escape::path(path)
                ));
                let certificates = Certificate::from_pem(&text, MAX_SHOWN).unwrap_or_default();
                shown.extend(certificates.iter().map(|c| {
                    let subject = rtenx::escape::sanitize(&c.subject()).into_owned();
                    format!("  subject: {subject}")
                }));
            }
            Some(Trust::Anchors(anchors))
        }
    };
    Ok(Verification {
        trust,
        require: false,
        shown,
    })
}

/// Certificates of one material file whose subjects `--show-settings` lists, at most.
const MAX_SHOWN: usize = 64;

impl Verification {
    /// Writes the signing settings of the run, as `--show-settings` shows them: nothing when
    /// none is set.
    pub fn show(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.shown.is_empty() {
            return Ok(());
        }
        writeln!(out, "signing")?;
        for line in &self.shown {
            writeln!(out, "  {line}")?;
        }
        Ok(())
    }
}

/// The text of the material file `path`, at most 1 MiB, refused inside a checked folder.
fn material(path: &Path, what: &str, checked: &[PathBuf]) -> Result<String, String> {
    const MAX_BYTES: u64 = 1 << 20;
    let shown = rtenx::escape::path(path).into_owned();
    let fail = |e: &dyn std::fmt::Display| format!("{what} {shown}: {e}");
    let real = std::fs::canonicalize(path).map_err(|e| fail(&e))?;
    let folders = checked.iter().filter(|p| p.is_dir());
    if let Some(folder) = folders
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .find(|folder| real.starts_with(folder))
    {
        let folder = rtenx::escape::path(&folder).into_owned();
        return Err(fail(&format_args!(
            "inside the checked folder {folder}: what verifies a signature must not come with \
             the model"
        )));
    }
    let mut text = String::new();
    let file = std::fs::File::open(&real).map_err(|e| fail(&e))?;
    file.take(MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| fail(&e))?;
    if text.len() as u64 > MAX_BYTES {
        return Err(fail(&format_args!("larger than {MAX_BYTES} bytes")));
    }
    Ok(text)
}

/// The signature file of `path`: `--signature`, or else `model.sig` in a folder.
fn signature_file(path: &Path, args: &MaterialArgs) -> Option<PathBuf> {
    match &args.signature {
        Some(file) => Some(file.clone()),
        None if path.is_dir() => Some(path.join(signing::SIGNATURE_FILE)),
        None => None,
    }
}

/// The SG findings of the checked `path` (a folder, or a file when `--signature` names its
/// bundle), and whether it has a signature file.
pub fn findings(path: &Path, args: &SignatureArgs, run: &Verification) -> (Vec<Finding>, bool) {
    match checked(path, &args.material, run) {
        Some((findings, signature)) => (findings, signature.status != Status::None),
        None => (Vec::new(), false),
    }
}

/// The signature of the model at `path` as `inspect`, `dump` and `sbom` show it, where one
/// is looked for, verified with the command line's material (these read no settings).
pub fn of(path: &Path, args: &MaterialArgs, run: &Verification) -> Option<Signature> {
    checked(path, args, run).map(|(_, signature)| signature)
}

/// The verification of `inspect`, `dump` and `sbom` of `paths`: the command line's material
/// only; a file that cannot be read is told on standard error.
pub fn given(args: &MaterialArgs, paths: &[PathBuf]) -> Result<Verification, super::Outcome> {
    verification(args, None, paths).map_err(|e| {
        super::super::complain(e);
        super::Outcome::Failure
    })
}

/// The signature of `path` checked: its SG findings and what the outputs show of it; `None`
/// when no signature is looked for (a file, without `--signature`).
fn checked(
    path: &Path,
    args: &MaterialArgs,
    run: &Verification,
) -> Option<(Vec<Finding>, Signature)> {
    let signature = signature_file(path, args)?;
    if std::fs::symlink_metadata(&signature).is_err() {
        let none = Signature::none(&signature);
        if !run.require {
            return Some((Vec::new(), none));
        }
        let message = format!("no signature at {}", rtenx::escape::path(&signature));
        let finding = Finding::new(&rules::SIGNATURE_MISSING, Place::FILE, message);
        return Some((vec![finding], none));
    }
    let checked = signing::check_model(path, &signature, run.trust.as_ref());
    let findings = (checked.problems.iter())
        .map(|p| match p {
            Problem::NotChecked if run.require => Finding::new(
                &rules::SIGNATURE_MISSING,
                Place::FILE,
                "the signature was not verified: --require-signature needs --public-key or \
                 --certificate-chain",
            ),
            _ => Finding::new(p.rule(), Place::FILE, p.message()),
        })
        .collect();
    Some((findings, checked.signature))
}
