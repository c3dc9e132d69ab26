//! `check --signature`, `--public-key` and `--require-signature`: a model folder (or a file
//! with `--signature`) held to its OpenSSF model signature, the SG rules.

use clap::Args;
use rtenx::check::{Finding, Place};
use rtenx::signing::{self, rules, verify::PublicKey, Problem};
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct SignatureArgs {
    /// The model's OpenSSF signature bundle [default: `model.sig` in a checked folder].
    #[arg(long, value_name = "FILE")]
    signature: Option<PathBuf>,
    /// Verify the signature with this PEM public key (ECDSA P-256, P-384 or P-521); it must
    /// not come from the checked folder.
    #[arg(long, value_name = "FILE.pem")]
    public_key: Option<PathBuf>,
    /// Make a missing or unverified signature an error (SG013).
    #[arg(long)]
    require_signature: bool,
}

/// The key, read once; an unreadable one is a usage error.
pub fn key(args: &SignatureArgs) -> Result<Option<PublicKey>, String> {
    let Some(path) = &args.public_key else {
        return Ok(None);
    };
    let shown = rtenx::escape::path(path).into_owned();
    let text = std::fs::read_to_string(path).map_err(|e| format!("--public-key {shown}: {e}"))?;
    PublicKey::from_pem(&text)
        .map(Some)
        .map_err(|e| format!("--public-key {shown}: {e}"))
}

/// The SG findings of the checked `path` (a folder, or a file when `--signature` names its
/// bundle).
pub fn findings(path: &Path, args: &SignatureArgs, key: Option<&PublicKey>) -> Vec<Finding> {
    let signature = match &args.signature {
        Some(file) => file.clone(),
        None if path.is_dir() => path.join(signing::SIGNATURE_FILE),
        None => return Vec::new(),
    };
    if std::fs::symlink_metadata(&signature).is_err() {
        if !args.require_signature {
            return Vec::new();
        }
        let message = format!("no signature at {}", rtenx::escape::path(&signature));
        return vec![Finding::new(
            &rules::SIGNATURE_MISSING,
            Place::FILE,
            message,
        )];
    }
    let problems = signing::check_model(path, &signature, key);
    problems
        .iter()
        .map(|p| match p {
            Problem::NotChecked if args.require_signature => Finding::new(
                &rules::SIGNATURE_MISSING,
                Place::FILE,
                "the signature was not verified: --require-signature needs --public-key",
            ),
            _ => Finding::new(p.rule(), Place::FILE, p.message()),
        })
        .collect()
}
