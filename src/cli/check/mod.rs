//! `rtenx check`.

mod file;

use super::config::discover::{self, Discovery};
use super::config::settings::{self, Settings};
use super::config::{with_actions, Config, ConfigError, Layer};
use super::progress::Progress;
use super::{ColorChoice, Outcome};
use clap::{Args, ValueEnum};
use rtenx::check::{Selector, SelectorError};
use rtenx::formats::{registry, scan};
use rtenx::report::{self, baseline, ReportFormat, Summary};
use rtenx::source::{ModelFile, OpenError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
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
    /// Also check what this runtime refuses beyond the format's specification (rten: the
    /// narrower ONNX external data locations it reads, OX024).
    #[arg(long, value_enum, value_name = "RUNTIME")]
    target: Option<Runtime>,
    /// Add each file's digest, and each data file's, to the JSON and SARIF reports (reads
    /// every byte).
    #[arg(long, value_enum, value_name = "ALGORITHM")]
    hash: Option<HashAlgorithm>,
    /// Use this configuration file for every path, instead of the `rtenx.toml` or
    /// `pyproject.toml` found above each.
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
    /// Write every finding of this run to a baseline file.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// When to colour text output.
    #[arg(long, value_enum, default_value_t)]
    color: ColorChoice,
    /// Print every finding in text output; by default only the first 3 of each rule per
    /// file are printed, and the rest are counted (`--all-infos` is the old name).
    #[arg(long, alias = "all-infos")]
    all: bool,
    #[command(flatten)]
    data: super::DataArgs,
}

fn selector(s: &str) -> Result<Selector, SelectorError> {
    Selector::parse(s, registry::lookup)
}

/// Output formats, on the command line and in the configuration (`format = "sarif"`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

/// Runtimes `--target` names.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Runtime {
    Rten,
}

impl Runtime {
    fn target(self) -> rtenx::formats::Target {
        match self {
            Runtime::Rten => rtenx::formats::Target::Rten,
        }
    }
}

/// Digests `--hash` computes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum HashAlgorithm {
    Sha256,
}

/// Where each path's configuration comes from.
enum Configs {
    /// `--isolated`.
    None,
    /// `--config FILE`.
    Named(Arc<Config>),
    /// Found above each path.
    Discovered(Discovery),
}

impl Configs {
    fn for_path(&mut self, path: &Path) -> Result<Option<Arc<Config>>, ConfigError> {
        match self {
            Configs::None => Ok(None),
            Configs::Named(config) => Ok(Some(Arc::clone(config))),
            Configs::Discovered(discovery) => discovery.config_for(path),
        }
    }
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
    }
}

/// `run`, with a configuration or baseline that cannot be used as the error.
fn run_configured(args: CheckArgs) -> Result<io::Result<Outcome>, String> {
    if let Err(outcome) = args.data.readable() {
        return Ok(Ok(outcome));
    }
    let mut configs = if args.isolated {
        Configs::None
    } else if let Some(path) = &args.config {
        Configs::Named(discover::named(path).map_err(|e| e.to_string())?)
    } else {
        Configs::Discovered(Discovery::default())
    };
    let cli = command_line(&args);
    // The run's own settings come from the configuration of the working directory.
    let here = configs
        .for_path(Path::new("."))
        .map_err(|e| e.to_string())?;
    let format = args
        .format
        .or(here.as_ref().and_then(|c| c.format))
        .unwrap_or(Format::Text);
    let baseline_path = args
        .baseline
        .clone()
        .or(here.as_ref().and_then(|c| c.baseline.clone()));
    let mut excludes = globset::GlobSetBuilder::new();
    for glob in &args.exclude {
        excludes.add(glob.clone());
    }
    let excludes = excludes.build().map_err(|e| e.to_string())?;
    let mut targets = Vec::new();
    let mut usage_problem = false;
    let mut shown = Vec::new();
    for path in &args.paths {
        if !path.is_dir() {
            let config = configs.for_path(path).map_err(|e| e.to_string())?;
            shown.push((
                path.clone(),
                false,
                Settings::of(path, config.as_ref(), &cli),
            ));
            targets.push(Target::Named(path.clone()));
            continue;
        }
        let (files, unreadable) = scan_folder(path);
        let mut kept = 0;
        for file in files {
            let config = configs.for_path(&file.path).map_err(|e| e.to_string())?;
            let excluded = settings::excluded(&file.path, config.as_ref())
                || (file.path.strip_prefix(path)).is_ok_and(|p| excludes.is_match(p));
            shown.push((
                file.path.clone(),
                excluded,
                Settings::of(&file.path, config.as_ref(), &cli),
            ));
            if !excluded {
                kept += 1;
                targets.push(Target::Found(file));
            }
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
        let written = shown
            .iter()
            .try_for_each(|(path, excluded, s)| s.show(path, *excluded, &mut out));
        return Ok(written.map(|()| Outcome::Clean));
    }
    let baseline = baseline_path.as_deref().map(baseline::read).transpose()?;
    let jobs: Vec<(Target, Settings)> = {
        let mut settings = shown.into_iter().filter(|(_, excluded, _)| !excluded);
        targets
            .into_iter()
            .map(|t| (t, settings.next().map(|(_, _, s)| s).unwrap_or_default()))
            .collect()
    };
    let progress = Progress::new();
    let run = file::Run {
        verify_checksums: args.verify_checksums,
        hash: args.hash.is_some(),
        target: args.target.map(Runtime::target),
        progress: progress.clone(),
        lone: jobs.len() == 1,
    };
    // Hashing already uses every core within a file; otherwise files are checked side by side.
    // One file needs no count of the cores, which reads the cgroup's quota.
    let workers = if args.verify_checksums || jobs.len() < 2 {
        1
    } else {
        workers()
    };
    let outcomes = parallel_map(jobs, workers, |(target, settings)| {
        file::check(target, settings, &run)
    });
    progress.finish();
    let over_budget = outcomes.iter().any(|o| o.over_budget);
    let mut results: Vec<_> = outcomes.into_iter().map(|o| o.result).collect();
    let mut compared = None;
    // Baseline paths are relative to the baseline's folder.
    let root = |file: &Path| match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    };
    if let Some(path) = &args.write_baseline {
        baseline::fingerprint(&mut results, &root(path));
        let written = baseline::write(&baseline::of(&results, &root(path)), path);
        written.map_err(|e| format!("cannot write the baseline {}: {e}", path.display()))?;
    }
    if let (Some(path), Some(baseline)) = (&baseline_path, &baseline) {
        baseline::fingerprint(&mut results, &root(path));
        compared = Some(baseline::apply(baseline, &mut results, &root(path)));
    }
    Ok(
        write_report(&args, format, &mut results, compared.as_ref()).map(|()| {
            let summary = Summary::of(&results);
            super::release_at_exit(results);
            if summary.unreadable > 0 || summary.unchecked > 0 || usage_problem || over_budget {
                Outcome::Failure
            } else if summary.counts.errors > 0 {
                Outcome::Errors
            } else {
                Outcome::Clean
            }
        }),
    )
}

/// Writes the report on standard output.
fn write_report(
    args: &CheckArgs,
    format: Format,
    results: &mut [report::FileResult],
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
    report::write_with(format, &mut out, results, compared)?;
    out.flush()
}

/// A file to check. One named on the command line is opened by its path, following a
/// symlink, since the user named it; one a folder scan found is opened from the folder
/// following none, and only if it is still the file the scan saw.
pub enum Target {
    Named(PathBuf),
    Found(scan::Scanned),
}

impl Target {
    /// The path, and the file opened and mapped.
    pub fn open(self) -> (PathBuf, Result<ModelFile, OpenError>) {
        match self {
            Target::Named(path) => {
                let file = ModelFile::open(&path);
                (path, file)
            }
            Target::Found(found) => {
                let file = found.open();
                (found.path, file)
            }
        }
    }
}

/// The files a scan of the folder `path` finds; entries it cannot read are reported on
/// standard error, and make the second value true.
pub fn scan_folder(path: &Path) -> (Vec<scan::Scanned>, bool) {
    let found = scan::models_in(path);
    for error in &found.errors {
        super::complain(format_args!("cannot read {error}"));
    }
    (found.files, !found.errors.is_empty())
}

/// Threads for checking files: one per core.
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `f` applied to every item on up to `workers` threads, with the results in input order.
pub fn parallel_map<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let workers = workers.clamp(1, items.len().max(1));
    if workers == 1 {
        return items.into_iter().map(f).collect();
    }
    let queue = Mutex::new(items.into_iter().enumerate());
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                        let Some((index, item)) = next else {
                            return mine;
                        };
                        mine.push((index, f(item)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_unstable_by_key(|&(index, _)| index);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::parallel_map;

    #[test]
    fn parallel_map_keeps_input_order() {
        let items: Vec<u64> = (0..200).collect();
        // Uneven work, so that threads finish out of order.
        let slow_square = |i: u64| {
            std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 300));
            i * i
        };
        let expected: Vec<u64> = items.iter().map(|i| i * i).collect();
        for workers in [1, 2, 3, 8, 500] {
            assert_eq!(parallel_map(items.clone(), workers, slow_square), expected);
        }
        assert!(parallel_map(Vec::<u64>::new(), 4, slow_square).is_empty());
    }
}
