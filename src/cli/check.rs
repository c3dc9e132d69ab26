//! `rtenx check`.

use super::progress::Progress;
use super::{ColorChoice, Outcome};
use clap::{Args, ValueEnum};
use rtenx::check::{Overrides, Selector, Severity};
use rtenx::formats::ReadOptions;
use rtenx::report::{self, FileResult, ReportFormat, Summary};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Model files, or directories to search for them (symlinks are not followed).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Treat a rule code or a level (error, warning, info) as an error.
    #[arg(long, value_name = "CODE|LEVEL")]
    deny: Vec<Selector>,
    /// Treat a rule code or a level as a warning.
    #[arg(long, value_name = "CODE|LEVEL")]
    warn: Vec<Selector>,
    /// Silence a rule code or a whole level.
    #[arg(long, value_name = "CODE|LEVEL")]
    allow: Vec<Selector>,
    /// Hash external data files and compare them with the SHA-1 checksums the model records
    /// (reads every data byte; without it, check reads no tensor data).
    #[arg(long)]
    verify_checksums: bool,
    /// When to colour text output.
    #[arg(long, value_enum, default_value_t)]
    color: ColorChoice,
    /// Print every info finding in text output; by default only the first 3 of each code per
    /// file are printed, and the rest are counted.
    #[arg(long)]
    all_infos: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

pub fn run(args: CheckArgs) -> io::Result<Outcome> {
    let mut overrides = Overrides::default();
    for (selectors, action) in [
        (&args.deny, Some(Severity::Error)),
        (&args.warn, Some(Severity::Warning)),
        (&args.allow, None),
    ] {
        for s in selectors {
            overrides.set(s.clone(), action);
        }
    }
    let progress = Progress::new();
    let report = |done, total| progress.show(done, total);
    let options = ReadOptions {
        verify_checksums: args.verify_checksums,
        progress: Some(&report),
    };
    let mut results = Vec::new();
    let mut usage_problem = false;
    for path in &args.paths {
        if path.is_dir() {
            let found = model_files(path);
            if found.is_empty() {
                eprintln!("rtenx: no model files found under {}", path.display());
                usage_problem = true;
            }
            results.extend(found.into_iter().map(|p| check_file(p, &options)));
        } else {
            results.push(check_file(path.clone(), &options));
        }
    }
    progress.finish();
    for r in &mut results {
        if let Ok(a) = &mut r.outcome {
            overrides.apply(&mut a.findings);
        }
    }
    let format = match args.format {
        Format::Text => ReportFormat::Text {
            color: args.color.enabled(),
            all_infos: args.all_infos,
        },
        Format::Json => ReportFormat::Json,
        Format::Sarif => ReportFormat::Sarif,
        Format::Github => ReportFormat::Github,
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    report::write(format, &mut out, &results)?;
    out.flush()?;
    let summary = Summary::of(&results);
    super::release_at_exit(results);
    Ok(if summary.unreadable > 0 || usage_problem {
        Outcome::Failure
    } else if summary.counts.errors > 0 {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

fn check_file(path: PathBuf, options: &ReadOptions) -> FileResult {
    let outcome = rtenx::analyze_with(&path, options);
    FileResult { path, outcome }
}

/// Model files below `dir`, by extension, sorted; symlinks are not followed.
fn model_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && rtenx::formats::is_model_path(e.path()))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}
