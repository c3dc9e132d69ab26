//! `rtenx sbom`: a CycloneDX 1.6 ML-BOM of the models found, on standard output.

use super::check::signature;
use super::targets::{parallel_map, remote_models, scan_folder, workers, Target};
use super::Outcome;
use clap::Args;
use rtenx::formats::ReadOptions;
use rtenx::report::{FileHash, Root};
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct SbomArgs {
    /// Model files, or directories to search for them (as `check` does).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Name files relative to this folder rather than the working directory.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    #[command(flatten)]
    data: super::DataArgs,
    #[command(flatten)]
    signing: super::check::signature::MaterialArgs,
}

pub fn run(args: SbomArgs) -> io::Result<Outcome> {
    if let Err(outcome) = args.data.readable() {
        return Ok(outcome);
    }
    let run = match signature::given(&args.signing, &args.paths) {
        Ok(run) => run,
        Err(outcome) => return Ok(outcome),
    };
    let mut targets = Vec::new();
    // The signature of each path, and the first of its targets.
    let mut signed = Vec::new();
    let mut failed = false;
    for path in &args.paths {
        if let Some(models) = remote_models(path) {
            let models = models.unwrap_or_else(|e| {
                super::complain(format_args!("cannot read {e}"));
                Vec::new()
            });
            failed |= models.is_empty();
            signed.push((targets.len(), None));
            targets.extend(models.into_iter().map(Target::Remote));
            continue;
        }
        signed.push((targets.len(), signature::of(path, &args.signing, &run)));
        if !path.is_dir() {
            targets.push(Target::Named(path.clone()));
            continue;
        }
        let (files, unreadable) = scan_folder(path);
        if files.is_empty() && !unreadable {
            super::complain(format_args!(
                "no model files found under {}",
                path.display()
            ));
        }
        failed |= files.is_empty() || unreadable;
        targets.extend(files.into_iter().map(Target::Found));
    }
    let options = ReadOptions {
        data: &args.data.files,
        views: false,
        ..ReadOptions::default()
    };
    let mut signatures = Vec::with_capacity(targets.len());
    for (i, (first, signature)) in signed.iter().enumerate() {
        let end = signed.get(i + 1).map_or(targets.len(), |(next, _)| *next);
        signatures.extend((*first..end).map(|_| signature.clone()));
    }
    let jobs: Vec<_> = targets.into_iter().zip(signatures).collect();
    let models = parallel_map(jobs, workers(), |(target, signature)| {
        let (_, file) = target.open();
        let file = file?;
        let mut analysis = rtenx::analyze_opened(&file, &options)?;
        analysis.inventory.signature = signature;
        let hashes = super::hashing::model_and_data(&file, &analysis.inventory, false)?;
        Ok::<(rtenx::Analysis, Vec<FileHash>), rtenx::OpenError>((analysis, hashes))
    });
    let mut read = Vec::new();
    for model in models {
        match model {
            Ok(model) => read.push(model),
            Err(e) => {
                super::complain(format_args!("cannot read {e}"));
                failed = true;
            }
        }
    }
    let listed: Vec<rtenx::sbom::Model> = read
        .iter()
        .map(|(a, hashes)| rtenx::sbom::Model {
            inventory: &a.inventory,
            hashes,
        })
        .collect();
    let root = args.root.as_deref().map_or_else(Root::cwd, Root::new);
    let doc = rtenx::sbom::document(&listed, &root);
    let mut out = io::BufWriter::new(io::stdout().lock());
    rtenx::escape::write_json(&mut out, &doc, true)?;
    writeln!(out)?;
    out.flush()?;
    Ok(if failed {
        Outcome::Failure
    } else {
        Outcome::Clean
    })
}
