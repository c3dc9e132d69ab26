//! `rtenx check`.

use super::progress::Progress;
use super::{ColorChoice, Outcome};
use clap::{Args, ValueEnum};
use rtenx::check::{Overrides, Selector, SelectorError, Severity};
use rtenx::formats::ReadOptions;
use rtenx::formats::{registry, scan};
use rtenx::report::{self, FileResult, ReportFormat, Summary};
use rtenx::source::ModelFile;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Mutex;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Model files, or directories to search for them (symlinks inside them are not
    /// followed).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Treat a rule code or a level (error, warning, info) as an error.
    #[arg(long, value_name = "CODE|LEVEL", value_parser = selector)]
    deny: Vec<Selector>,
    /// Treat a rule code or a level as a warning.
    #[arg(long, value_name = "CODE|LEVEL", value_parser = selector)]
    warn: Vec<Selector>,
    /// Silence a rule code or a whole level.
    #[arg(long, value_name = "CODE|LEVEL", value_parser = selector)]
    allow: Vec<Selector>,
    /// Hash external data files and compare them with the SHA-1 checksums the model records
    /// (reads every data byte; without it, check reads no tensor data).
    #[arg(long)]
    verify_checksums: bool,
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

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

pub fn run(args: CheckArgs) -> io::Result<Outcome> {
    if let Err(outcome) = args.data.readable() {
        return Ok(outcome);
    }
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
        data: &args.data.files,
        size_tables: false,
    };
    let mut targets = Vec::new();
    let mut usage_problem = false;
    for path in &args.paths {
        if !path.is_dir() {
            targets.push(Target::Named(path.clone()));
            continue;
        }
        let found = scan::models_in(path);
        for error in &found.errors {
            super::complain(format_args!("cannot read {error}"));
        }
        if found.files.is_empty() && found.errors.is_empty() {
            super::complain(format_args!(
                "no model files found under {}",
                path.display()
            ));
        }
        usage_problem |= found.files.is_empty() || !found.errors.is_empty();
        targets.extend(found.files.into_iter().map(Target::Found));
    }
    // Hashing already uses every core within a file; otherwise files are checked side by side.
    let workers = if args.verify_checksums { 1 } else { workers() };
    let lone = targets.len() == 1;
    let results = parallel_map(targets, workers, |target| {
        let (path, file) = match target {
            Target::Named(path) => {
                let file = ModelFile::open(&path);
                (path, file)
            }
            Target::Found(found) => {
                let file = found.open();
                (found.path, file)
            }
        };
        let mut outcome = file.and_then(|file| rtenx::analyze_opened(&file, &options));
        if let Ok(a) = &mut outcome {
            overrides.apply(&mut a.findings);
        }
        let (result, inventory) = FileResult::new(path, outcome);
        // Each inventory is freed once its findings are placed, so that checking many models
        // holds one per thread; a lone model's is left to the OS at exit, which is faster.
        if lone {
            super::release_at_exit(inventory);
        }
        result
    });
    progress.finish();
    let stdout = io::stdout().lock();
    let (format, out): (ReportFormat, Box<dyn Write>) = match args.format {
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
    report::write(format, &mut out, &results)?;
    out.flush()?;
    let summary = Summary::of(&results);
    super::release_at_exit(results);
    Ok(
        if summary.unreadable > 0 || summary.unchecked > 0 || usage_problem {
            Outcome::Failure
        } else if summary.counts.errors > 0 {
            Outcome::Errors
        } else {
            Outcome::Clean
        },
    )
}

/// A file to check. One named on the command line is opened by its path, following a
/// symlink, since the user named it; one a folder scan found is opened from the folder
/// following none, and only if it is still the file the scan saw.
enum Target {
    Named(PathBuf),
    Found(scan::Scanned),
}

/// Threads for checking files: one per core.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `f` applied to every item on up to `workers` threads, with the results in input order.
fn parallel_map<T: Send, R: Send>(
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
