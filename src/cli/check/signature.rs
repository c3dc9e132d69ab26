//! `check --signature`, `--public-key`, `--certificate-chain` and `--require-signature` (or
//! their settings): a model folder (or a file with `--signature`) held to its OpenSSF model
//! signature, the SG rules. The material comes from the command line, or else from the
//! settings file, which is never inside a checked folder; a material file inside a checked
//! folder is refused either way.

use super::super::config::Signing;
use clap::Args;
use rtenx::check::{Finding, Place};
use rtenx::signing::{self, chain::Anchors, rules, verify::PublicKey, Problem, Trust};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct SignatureArgs {
    /// The model's OpenSSF signature bundle [default: `model.sig` in a checked folder].
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
    /// Make a missing or unverified signature an error (SG013) [default: the configuration's
    /// `require-signature`].
    #[arg(long)]
    require_signature: bool,
}

/// How the run verifies signatures: the material, read once, and whether one is required.
pub struct Verification {
    trust: Option<Trust>,
    require: bool,
}

/// The verification of the run: the command line's material, or else the settings'
/// (`settings`); a file that cannot be read, or that lies in one of the `checked` paths, is a
/// usage error.
pub fn verification(
    args: &SignatureArgs,
    settings: Option<&Signing>,
    checked: &[PathBuf],
) -> Result<Verification, String> {
    let default = Signing::default();
    let settings = settings.unwrap_or(&default);
    let from_cli = args.public_key.is_some() || !args.certificate_chain.is_empty();
    let (key, chain, source) = if from_cli {
        (&args.public_key, &args.certificate_chain, "--")
    } else {
        (&settings.public_key, &settings.certificate_chain, "")
    };
    if key.is_some() && !chain.is_empty() {
        return Err("the settings give both public-key and certificate-chain: keep one".into());
    }
    let (key_name, chain_name) = (
        format!("{source}public-key"),
        format!("{source}certificate-chain"),
    );
    let located =
        |what: &str, path: &Path, e: String| format!("{what} {}: {e}", rtenx::escape::path(path));
    let trust = match key {
        Some(path) => {
            let text = material(path, &key_name, checked)?;
            let key = PublicKey::from_pem(&text).map_err(|e| located(&key_name, path, e))?;
            Some(Trust::Key(key))
        }
        None if chain.is_empty() => None,
        None => {
            let mut anchors = Anchors::default();
            for path in chain {
                let text = material(path, &chain_name, checked)?;
                (anchors.add_pem(&text)).map_err(|e| located(&chain_name, path, e))?;
            }
            Some(Trust::Anchors(anchors))
        }
    };
    Ok(Verification {
        trust,
        require: args.require_signature || settings.require_signature == Some(true),
    })
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

/// The SG findings of the checked `path` (a folder, or a file when `--signature` names its
/// bundle).
pub fn findings(path: &Path, args: &SignatureArgs, run: &Verification) -> Vec<Finding> {
    let signature = match &args.signature {
        Some(file) => file.clone(),
        None if path.is_dir() => path.join(signing::SIGNATURE_FILE),
        None => return Vec::new(),
    };
    if std::fs::symlink_metadata(&signature).is_err() {
        if !run.require {
            return Vec::new();
        }
        let message = format!("no signature at {}", rtenx::escape::path(&signature));
        return vec![Finding::new(
            &rules::SIGNATURE_MISSING,
            Place::FILE,
            message,
        )];
    }
    let problems = signing::check_model(path, &signature, run.trust.as_ref());
    problems
        .iter()
        .map(|p| match p {
            Problem::NotChecked if run.require => Finding::new(
                &rules::SIGNATURE_MISSING,
                Place::FILE,
                "the signature was not verified: --require-signature needs --public-key or \
                 --certificate-chain",
            ),
            _ => Finding::new(p.rule(), Place::FILE, p.message()),
        })
        .collect()
}
