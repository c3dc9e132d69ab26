//! Argument parsing and dispatch. Exit codes: 0 no errors (or no difference), 1 errors found
//! (or a difference), 2 usage or I/O.

mod check;
mod choices;
mod config;
mod diff;
mod dump;
mod explain;
mod folder;
mod generate;
mod hashing;
mod inspect;
mod progress;
mod sbom;
mod targets;

use clap::{Parser, Subcommand, ValueEnum};
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Inspect and validate machine-learning model files (the formats are the package
/// description's, which the README's test holds to the registry).
#[derive(Debug, Parser)]
#[command(name = "rtenx", version, about, propagate_version = true)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate model files and report every problem; exits 1 if any error is found.
    Check(Box<check::CheckArgs>),
    /// Explain a check code, or list every rule.
    Explain(explain::ExplainArgs),
    /// Write the whole inventory and findings of a model as JSON.
    Dump(dump::DumpArgs),
    /// Compare two models, of one format or two: files, interface, graph, tensors, values,
    /// findings; exits 1 if they differ.
    Diff(diff::DiffArgs),
    /// Browse a model: header, sections, graph, operators, tensors, metadata, findings.
    Inspect(inspect::InspectArgs),
    /// Write a CycloneDX 1.6 bill of materials (ML-BOM) of models as JSON.
    Sbom(sbom::SbomArgs),
    /// Write a shell completion script to standard output.
    Completions(generate::CompletionsArgs),
    /// Write a manual page (roff) to standard output, or every page into a directory.
    Man(generate::ManArgs),
}

/// When to use colour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal that supports it, as `NO_COLOR`, `CLICOLOR_FORCE`, `CLICOLOR` and
    /// `TERM` allow.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// `out` with this choice applied by anstream: styles passed through, turned into console
    /// calls on a Windows console without ANSI support, or stripped.
    pub fn stream<W: anstream::stream::RawStream>(self, out: W) -> anstream::AutoStream<W> {
        let choice = match self {
            ColorChoice::Auto => anstream::ColorChoice::Auto,
            ColorChoice::Always => anstream::ColorChoice::Always,
            ColorChoice::Never => anstream::ColorChoice::Never,
        };
        anstream::AutoStream::new(out, choice)
    }
}

/// How a command ended.
pub enum Outcome {
    /// No errors.
    Clean,
    /// Errors were found in a model.
    Errors,
    /// Two models differ.
    Different,
    /// A file could not be read or the arguments were wrong.
    Failure,
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> Self {
        ExitCode::from(match o {
            Outcome::Clean => 0,
            Outcome::Errors | Outcome::Different => 1,
            Outcome::Failure => 2,
        })
    }
}

/// Parses arguments and runs the command.
pub fn run() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Command::Check(a) => check::run(*a),
        Command::Explain(a) => explain::run(a),
        Command::Dump(a) => dump::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Sbom(a) => sbom::run(a),
        Command::Completions(a) => generate::completions(a),
        Command::Man(a) => generate::man(a),
    };
    match result {
        Ok(outcome) => outcome.into(),
        // A closed pipe (`rtenx dump | head`) is not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            complain(e);
            ExitCode::from(2)
        }
    }
}

/// Lets the process reclaim `value` at exit rather than free it piece by piece: dropping the
/// inventory of a large model just before exiting costs more than a small model's whole check.
fn release_at_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Prints a problem on stderr. Messages quote paths and names from the command line and
/// from files, so control characters are escaped.
fn complain(message: impl std::fmt::Display) {
    eprintln!("rtenx: {}", rtenx::escape::sanitize(&message.to_string()));
}

/// Data files to pair with a model, for `check`, `inspect` and `dump`.
#[derive(Debug, Default, clap::Args)]
pub struct DataArgs {
    /// A data file that belongs to the model, for formats whose model does not name its data
    /// files (ExecuTorch `.ptd`, Paddle `.pdiparams`); repeatable. Without it, matching files
    /// beside the model are used.
    #[arg(long = "data", value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

impl DataArgs {
    /// Opens every data file named, so that one that cannot be read stops the command
    /// before any model is read: it is a file that cannot be read (exit code 2), not a
    /// finding about the model.
    fn readable(&self) -> Result<(), Outcome> {
        let mut readable = true;
        for path in &self.files {
            if let Err(e) = rtenx::source::ModelFile::open(path) {
                complain(format_args!("cannot read --data {e}"));
                readable = false;
            }
        }
        readable.then_some(()).ok_or(Outcome::Failure)
    }
}

/// Opens and analyses one named model (a file, or a folder that holds one), printing the
/// error if it cannot be read; with what only `inspect` and `dump` show
/// ([`ReadOptions::views`](rtenx::formats::ReadOptions)), or without.
fn analyze_one(
    path: &Path,
    data: &DataArgs,
    views: bool,
) -> Result<(rtenx::source::ModelFile, rtenx::Analysis), Outcome> {
    data.readable()?;
    let file = folder::open_one(path)?;
    let analysis = analyze_file(&file, data, views)?;
    Ok((file, analysis))
}

/// Analyses the opened model `file` with the data files `data`, as [`analyze_one`] does.
fn analyze_file(
    file: &rtenx::source::ModelFile,
    data: &DataArgs,
    views: bool,
) -> Result<rtenx::Analysis, Outcome> {
    let options = rtenx::formats::ReadOptions {
        data: &data.files,
        views,
        ..Default::default()
    };
    rtenx::analyze_opened(file, &options).map_err(|e| {
        complain(e);
        Outcome::Failure
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn arguments_are_consistent() {
        super::Args::command().debug_assert();
    }
}
