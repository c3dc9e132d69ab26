//! `rtenx check`.

mod file;
#[cfg(all(unix, feature = "remote"))]
mod hub;
pub(super) mod signature;

use super::choices::{Format, Runtime};
use super::config::discover::{self, Ignored};
use super::config::settings::{self, Settings};
use super::config::{with_actions, Config, Layer};
use super::progress::Progress;
use super::targets::{parallel_map, remote_models, scan_folder, workers, Target};
use super::{ColorChoice, Outcome};
use clap::{Args, ValueEnum};
use rtenx::catalogue;
use rtenx::check::{Selector, SelectorError};
use rtenx::report::{self, baseline, plural, ReportFormat, Root, Summary};

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Model files, or directories to search for them (symlinks inside them are not
    /// followed).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format [default: text, or the configuration's `format`].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Treat a rule code or a level (error, warning, info) as an error.
    #[arg(long, value_name = "CODE|LEVEL", value_parser = selector)]
    deny: Vec<Selector>,
    /// Treat a rule code or a level as a warning.
    #[arg(long, value_name = "CODE|LEVEL", value_parser = selector)]
    warn: Vec<Selector>,
    /// Silence a rule code or a whole level.
    #[arg(long, value_name = "CODE|LEVEL", value_parser = selector)]
    allow: Vec<Selector>,
    /// Do not read a file larger than this (such as 20GB or 512MiB): report it (RX018).
    #[arg(long, value_name = "SIZE", value_parser = super::config::parse_size)]
    max_size: Option<u64>,
    /// Give up on a file that takes longer than this (such as 30s or 500ms): report it
    /// (RX019) and go on with the others.
    #[arg(long, value_name = "DURATION", value_parser = super::config::parse_duration)]
    timeout: Option<Duration>,
    /// Hash external data files and compare them with the SHA-1 checksums the model records
    /// (reads every data byte; without it, check reads no tensor data).
    #[arg(long)]
    verify_checksums: bool,
    /// Read every tensor's values and report NaN, infinities, broken quantisation scales,
    /// all-zero and constant weights and zero tails (the VX rules; reads every tensor byte,
    /// on every core).
    #[arg(long)]
    values: bool,
    /// Also check what this runtime refuses beyond the format's specification (rten: the
    /// narrower ONNX external data locations it reads, OX024).
    #[arg(long, value_enum, value_name = "RUNTIME")]
    target: Option<Runtime>,
    /// Add each file's digest, and each data file's, to the JSON and SARIF reports (reads
    /// every byte).
    #[arg(long, value_enum, value_name = "ALGORITHM")]
    hash: Option<HashAlgorithm>,
    /// Hold each local model and data file to what this Hub repository records at the same
    /// path below the folder checked (`hf://ORG/REPO[@REVISION]`): size, and SHA-256 or git
    /// blob id (HF007, HF008); hashes every file, as `--hash sha256` does.
    #[arg(long, value_name = "REPOSITORY")]
    expect_hub: Option<String>,
    /// Use this configuration file, instead of the `rtenx.toml` or `pyproject.toml` of the
    /// working directory or its parents.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    config: Option<PathBuf>,
    /// Read no configuration file.
    #[arg(long)]
    isolated: bool,
    /// Leave out of a folder scan the files whose path in the folder matches this glob
    /// (`*` stays within a folder, `**` crosses folders, a pattern without `/` matches a
    /// file name anywhere), besides the configuration's `exclude`; may be repeated.
    #[arg(long, value_name = "GLOB", value_parser = super::config::parse_glob)]
    exclude: Vec<globset::Glob>,
    /// Print the settings that apply to each file, and check nothing.
    #[arg(long)]
    show_settings: bool,
    /// Fail only on findings not in this baseline file; report the ones fixed since
    /// [default: the configuration's `baseline`].
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write every finding of this run to a baseline file, and report none (exit code 0,
    /// unless a file could not be checked).
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Show paths relative to this folder rather than the working directory; a path outside
    /// it is shown as given.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// When to colour text output.
    #[arg(long, value_enum, default_value_t)]
    color: ColorChoice,
    /// Print every finding in text output; by default only the first 3 of each rule per
    /// file are printed, and the rest are counted (`--all-infos` is the old name).
    #[arg(long, alias = "all-infos")]
    all: bool,
    #[command(flatten)]
    data: super::DataArgs,
    #[command(flatten)]
    signing: signature::SignatureArgs,
}

fn selector(s: &str) -> Result<Selector, SelectorError> {
    Selector::parse(s, catalogue::lookup)
}

/// Digests `--hash` computes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum HashAlgorithm {
    Sha256,
}

/// A finding for a checked path that is not about any one of its files (RX021), and the
/// jobs of that path, the first readable of which it is attached to.
struct Note {
    jobs: std::ops::Range<usize>,
    finding: rtenx::check::Finding,
    /// The signed folder whose SG finding it is: reported on the folder itself when none of
    /// its files can carry it.
    signed: Option<PathBuf>,
}

/// What `--show-settings` prints for one file.
struct Shown {
    path: PathBuf,
    excluded: bool,
    settings: Settings,
    /// The nearest settings file inside the checked path that was not applied.
    ignored: Option<PathBuf>,
}

pub fn run(args: CheckArgs) -> io::Result<Outcome> {
    match run_configured(args) {
        Ok(outcome) => outcome,
        Err(e) => {
            super::complain(e);
            Ok(Outcome::Failure)
        }
    }
}

/// The command line as the last layer of settings.
fn command_line(args: &CheckArgs) -> Layer {
    let mut rules = Vec::new();
    for (selectors, action) in with_actions(&args.deny, &args.warn, &args.allow) {
        for s in selectors {
            let text = match s {
                Selector::Level(level) => level.to_string(),
                Selector::Code(code) => (*code).to_owned(),
            };
            rules.push((text, s.clone(), action));
        }
    }
    Layer {
        rules,
        max_size: args.max_size,
        timeout: args.timeout,
        data: args.data.files.clone(),
        target: args.target.map(Runtime::target),
        values: args.values.then_some(true),
        zero_tail: None,
    }
}

/// Where the run's settings come from, by the trust model (docs/security.md): `--config`,
/// none with `--isolated`, or else the working directory and its parents, passing over every
/// folder at or below a checked folder. Also the canonical working directory while
/// discovering, to tell which settings inside the checked paths were passed over.
fn run_settings(args: &CheckArgs) -> Result<(Option<PathBuf>, Option<Arc<Config>>), String> {
    if args.isolated {
        return Ok((None, None));
    }
    if let Some(path) = &args.config {
        return Ok((
            None,
            Some(discover::named(path).map_err(|e| e.to_string())?),
        ));
    }
    let cwd = match std::env::current_dir().and_then(std::fs::canonicalize) {
        Ok(cwd) => cwd,
        Err(e) => {
            super::complain(format_args!(
                "cannot tell the working directory ({e}): no settings file is read"
            ));
            return Ok((None, None));
        }
    };
    let folders: Vec<PathBuf> = (args.paths.iter())
        .filter(|p| p.is_dir())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let config = discover::discover(&cwd, &folders).map_err(|e| e.to_string())?;
    Ok((Some(cwd), config))
}

/// The repository `--expect-hub` names, listed.
#[cfg(all(unix, feature = "remote"))]
fn expect_hub(args: &CheckArgs) -> Result<Option<hub::Expected>, rtenx::OpenError> {
    let Some(given) = &args.expect_hub else {
        return Ok(None);
    };
    super::targets::remote_budgets()?;
    hub::Expected::open(given, &args.paths).map(Some)
}

#[cfg(not(all(unix, feature = "remote")))]
fn expect_hub(args: &CheckArgs) -> Result<Option<std::convert::Infallible>, rtenx::OpenError> {
    match &args.expect_hub {
        Some(given) => Err(rtenx::OpenError::Remote {
            url: given.clone(),
            cause: "this rtenx reads no remote files (they need the `remote` feature, on Unix)"
                .to_owned(),
        }),
        None => Ok(None),
    }
}

/// Adds the HF007 and HF008 findings of `--expect-hub`, with each file's severity overrides.
#[cfg(all(unix, feature = "remote"))]
fn held_to_hub(
    expected: &hub::Expected,
    results: &mut [rtenx::report::FileResult],
    config: Option<&Arc<Config>>,
    cli: &Layer,
) {
    for (i, finding) in expected.compare(results) {
        let Some(result) = results.get_mut(i) else {
            continue;
        };
        let mut findings = vec![finding];
        Settings::of(&result.path, config, cli)
            .overrides
            .apply(&mut findings);
        for finding in findings {
            if let Err(finding) = result.add(finding) {
                complain_note(&finding);
            }
        }
    }
}

#[cfg(not(all(unix, feature = "remote")))]
fn held_to_hub(
    expected: &std::convert::Infallible,
    _: &mut [rtenx::report::FileResult],
    _: Option<&Arc<Config>>,
    _: &Layer,
) {
    match *expected {}
}

/// `run`, with a configuration or baseline that cannot be used as the error.
fn run_configured(args: CheckArgs) -> Result<io::Result<Outcome>, String> {
    if let Err(outcome) = args.data.readable() {
        return Ok(Ok(outcome));
    }
    let (cwd, config) = run_settings(&args)?;
    let cli = command_line(&args);
    let signing = config.as_ref().map(|c| (&c.signing, c.path.as_path()));
    let verification = signature::for_check(&args.signing, signing, &args.paths)?;
    let expected = expect_hub(&args).map_err(|e| e.to_string())?;
    let format = args
        .format
        .or(config.as_ref().and_then(|c| c.format))
        .unwrap_or(Format::Text);
    let baseline_path = args
        .baseline
        .clone()
        .or(config.as_ref().and_then(|c| c.baseline.clone()));
    let mut excludes = globset::GlobSetBuilder::new();
    for glob in &args.exclude {
        excludes.add(glob.clone());
    }
    let excludes = excludes.build().map_err(|e| e.to_string())?;
    let mut targets = Vec::new();
    let mut usage_problem = false;
    let mut shown = Vec::new();
    let mut ignored = Ignored::default();
    let mut notes = Vec::new();
    let mut signed_only = Vec::new();
    for path in &args.paths {
        let first = targets.len();
        if let Some(models) = remote_models(path) {
            let listed = models.is_ok();
            let models = models.unwrap_or_else(|e| {
                super::complain(format_args!("cannot read {e}"));
                Vec::new()
            });
            let mut kept = 0;
            for model in models {
                let excluded = excludes.is_match(&model.path);
                shown.push(Shown {
                    settings: Settings::of(&model.shown, config.as_ref(), &cli),
                    path: model.shown.clone(),
                    excluded,
                    ignored: None,
                });
                if !excluded {
                    kept += 1;
                    targets.push(Target::Remote(model));
                }
            }
            if kept == 0 && listed {
                super::complain(format_args!("no model files found in {}", path.display()));
            }
            usage_problem |= kept == 0 || !listed;
            continue;
        }
        if !path.is_dir() {
            let settings = Settings::of(path, config.as_ref(), &cli);
            let beside = cwd.as_ref().and_then(|cwd| {
                let folder = path.parent().filter(|f| !f.as_os_str().is_empty());
                let canonical = std::fs::canonicalize(folder.unwrap_or(Path::new("."))).ok()?;
                ignored.beside(path, &canonical, cwd)
            });
            if let Some(file) = &beside {
                let mut finding = vec![discover::ignored_beside(path, file)];
                settings.overrides.apply(&mut finding);
                notes.extend(finding.into_iter().map(|finding| Note {
                    jobs: first..first + 1,
                    finding,
                    signed: None,
                }));
            }
            shown.push(Shown {
                path: path.clone(),
                excluded: false,
                settings,
                ignored: beside,
            });
            targets.push(Target::Named(path.clone()));
            let (mut signed, _) = signature::findings(path, &args.signing, &verification);
            Settings::of(path, config.as_ref(), &cli)
                .overrides
                .apply(&mut signed);
            notes.extend(signed.into_iter().map(|finding| Note {
                jobs: first..first + 1,
                finding,
                signed: None,
            }));
            continue;
        }
        let (files, unreadable) = scan_folder(path);
        let inside = match (&cwd, std::fs::canonicalize(path)) {
            (Some(cwd), Ok(canonical)) => {
                let paths: Vec<&Path> = files.iter().map(|f| f.path.as_path()).collect();
                ignored.in_folder(path, &canonical, &paths, cwd)
            }
            _ => Vec::new(),
        };
        let mut kept = 0;
        // The note about them takes the severity the first file's settings give it.
        let mut first_overrides = None;
        for file in files {
            let excluded = settings::excluded(&file.path, config.as_ref())
                || (file.path.strip_prefix(path)).is_ok_and(|p| excludes.is_match(p));
            let settings = Settings::of(&file.path, config.as_ref(), &cli);
            if !excluded {
                kept += 1;
                first_overrides.get_or_insert_with(|| settings.overrides.clone());
            }
            shown.push(Shown {
                ignored: ignored.nearest(&file.path, path).cloned(),
                path: file.path.clone(),
                excluded,
                settings,
            });
            if !excluded {
                targets.push(Target::Found(file));
            }
        }
        if !inside.is_empty() {
            let mut finding = vec![discover::ignored_inside(path, &inside)];
            let overrides = first_overrides
                .unwrap_or_else(|| Settings::of(path, config.as_ref(), &cli).overrides);
            overrides.apply(&mut finding);
            for finding in finding {
                match first..targets.len() {
                    jobs if jobs.is_empty() => complain_note(&finding),
                    jobs => notes.push(Note {
                        jobs,
                        finding,
                        signed: None,
                    }),
                }
            }
        }
        let (mut signed, present) = signature::findings(path, &args.signing, &verification);
        Settings::of(path, config.as_ref(), &cli)
            .overrides
            .apply(&mut signed);
        notes.extend(signed.into_iter().map(|finding| Note {
            jobs: first..targets.len(),
            finding,
            signed: Some(path.clone()),
        }));
        if kept == 0 && present {
            // The folder was checked against its signature: a result of its own.
            signed_only.push(path.clone());
            usage_problem |= unreadable;
            continue;
        }
        if kept == 0 && !unreadable {
            super::complain(format_args!(
                "no model files found under {}",
                path.display()
            ));
        }
        usage_problem |= kept == 0 || unreadable;
    }
    if args.show_settings {
        let mut out = io::stdout().lock();
        let written = verification.show(&mut out).and_then(|()| {
            shown.iter().try_for_each(|s| {
                s.settings
                    .show(&s.path, s.excluded, s.ignored.as_deref(), &mut out)
            })
        });
        return Ok(written.map(|()| Outcome::Clean));
    }
    let baseline = baseline_path.as_deref().map(baseline::read).transpose()?;
    let jobs: Vec<(Target, Settings)> = {
        let mut settings = shown.into_iter().filter(|s| !s.excluded);
        targets
            .into_iter()
            .map(|t| (t, settings.next().map(|s| s.settings).unwrap_or_default()))
            .collect()
    };
    let values = jobs.iter().any(|(_, settings)| settings.values);
    let progress = Progress::new(if values { "reading" } else { "hashing" });
    let run = file::Run {
        verify_checksums: args.verify_checksums,
        hash: args.hash.is_some() || args.expect_hub.is_some(),
        git_blobs: args.expect_hub.is_some(),
        progress: progress.clone(),
        lone: jobs.len() == 1,
    };
    // Hashing and reading values already use every core within a file; otherwise files are
    // checked side by side. One file needs no count of the cores, which reads the cgroup's
    // quota.
    let remote = (jobs.iter()).any(|(target, _)| matches!(target, Target::Remote(_)));
    let workers = if args.verify_checksums || values || jobs.len() < 2 {
        1
    } else if remote {
        // Remote files wait on the network rather than on a core.
        workers().max(REMOTE_WORKERS)
    } else {
        workers()
    };
    // Remote files are counted as they are checked: each waits on the network.
    let fetching = (remote && workers > 1).then(|| Progress::files("fetching", jobs.len() as u64));
    let outcomes = parallel_map(jobs, workers, |(target, settings)| {
        let outcome = file::check(target, settings, &run);
        fetching.iter().for_each(Progress::done);
        outcome
    });
    progress.finish();
    fetching.iter().for_each(Progress::finish);
    let over_budget = outcomes.iter().any(|o| o.over_budget);
    let mut results: Vec<_> = outcomes.into_iter().map(|o| o.result).collect();
    if let Some(expected) = &expected {
        held_to_hub(expected, &mut results, config.as_ref(), &cli);
    }
    let folders = results.len();
    results.extend(signed_only.into_iter().map(signed_folder));
    for note in notes {
        let mut finding = Some(note.finding);
        for result in results.get_mut(note.jobs).into_iter().flatten() {
            match finding.take().map(|f| result.add(f)) {
                Some(Err(f)) => finding = Some(f),
                _ => break,
            }
        }
        let Some(finding) = finding else { continue };
        let Some(folder) = note.signed else {
            complain_note(&finding);
            continue;
        };
        let at = match (results.iter().skip(folders)).position(|r| r.path == folder) {
            Some(at) => folders + at,
            None => {
                results.push(signed_folder(folder));
                results.len() - 1
            }
        };
        if let Some(Err(finding)) = results.get_mut(at).map(|r| r.add(finding)) {
            complain_note(&finding);
        }
    }
    // A file that could not be checked fails the run whatever its findings.
    let failed = |summary: &Summary| {
        summary.unreadable > 0 || summary.unchecked > 0 || usage_problem || over_budget
    };
    // Baseline paths are relative to the baseline's folder.
    let folder = |file: &Path| match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => Root::new(dir),
        _ => Root::cwd(),
    };
    if let Some(path) = &args.write_baseline {
        let root = folder(path);
        baseline::fingerprint(&mut results, &root);
        let written = baseline::of(&results, &root);
        let shown = path.display();
        baseline::write(&written, path)
            .map_err(|e| format!("cannot write the baseline {shown}: {e}"))?;
        let files: HashSet<&str> = written.findings.iter().map(|e| e.path.as_str()).collect();
        super::complain(format_args!(
            "wrote {} in {} to {shown}",
            plural(written.findings.len() as u64, "finding"),
            plural(files.len() as u64, "file"),
        ));
        let summary = Summary::of(&results);
        return Ok(Ok(match failed(&summary) {
            true => Outcome::Failure,
            false => Outcome::Clean,
        }));
    }
    let mut compared = None;
    if let (Some(path), Some(baseline)) = (&baseline_path, &baseline) {
        let root = folder(path);
        baseline::fingerprint(&mut results, &root);
        compared = Some(baseline::apply(baseline, &mut results, &root));
    }
    let root = args.root.as_deref().map_or_else(Root::cwd, Root::new);
    Ok(
        write_report(&args, format, &mut results, &root, compared.as_ref()).map(|()| {
            let summary = Summary::of(&results);
            super::release_at_exit(results);
            if failed(&summary) {
                Outcome::Failure
            } else if summary.counts.errors > 0 {
                Outcome::Errors
            } else {
                Outcome::Clean
            }
        }),
    )
}

/// The result of a signed folder none of whose models could carry its SG findings: the
/// folder itself, checked against its signature.
fn signed_folder(folder: PathBuf) -> rtenx::report::FileResult {
    use rtenx::inventory::{FileEntry, FileFormat, Inventory};
    let format = FileFormat::NotModel(SIGNED_FOLDER);
    let inventory = Inventory::new(format, "", FileEntry::model(folder.clone(), 0));
    let analysis = rtenx::Analysis {
        inventory,
        findings: Vec::new(),
    };
    rtenx::report::FileResult::new(folder, Ok(analysis)).0
}

/// The format the report gives a signed folder of its own.
const SIGNED_FOLDER: &str = "signed-folder";

/// Prints on standard error a note that no checked file could carry.
fn complain_note(finding: &rtenx::check::Finding) {
    let (code, severity) = (finding.rule.code, finding.severity.name());
    super::complain(format_args!("{severity}[{code}]: {}", finding.message));
}

/// Writes the report on standard output.
fn write_report(
    args: &CheckArgs,
    format: Format,
    results: &mut [report::FileResult],
    root: &Root,
    compared: Option<&baseline::Compared>,
) -> io::Result<()> {
    let stdout = io::stdout().lock();
    let (format, out): (ReportFormat, Box<dyn Write>) = match format {
        Format::Text => {
            let out = args.color.stream(stdout);
            let color = out.current_choice() != anstream::ColorChoice::Never;
            let all = args.all;
            (ReportFormat::Text { color, all }, Box::new(out))
        }
        Format::Json => (ReportFormat::Json, Box::new(stdout)),
        Format::Sarif => (ReportFormat::Sarif, Box::new(stdout)),
        Format::Github => (ReportFormat::Github, Box::new(stdout)),
    };
    let mut out = io::BufWriter::new(out);
    report::write_with(format, &mut out, results, root, compared)?;
    out.flush()
}

/// Files of remote repositories checked at once.
const REMOTE_WORKERS: usize = 8;
