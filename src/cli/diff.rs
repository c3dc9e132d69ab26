//! `rtenx diff`.

use super::{DataArgs, Outcome};
use clap::{Args, ValueEnum};
use rtenx::diff::text::Lists;
use rtenx::diff::{Aspect, Diff, Options, RenameRule};
use rtenx::source::ModelFile;
use rtenx::Analysis;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The first model, A (the old one).
    a: PathBuf,
    /// The second model, B (the new one).
    b: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// A data file of A, as `check --data` takes it; repeatable.
    #[arg(long = "data-a", value_name = "FILE")]
    data_a: Vec<PathBuf>,
    /// A data file of B; repeatable.
    #[arg(long = "data-b", value_name = "FILE")]
    data_b: Vec<PathBuf>,
    /// Rewrite A's tensor names that the regular expression FROM matches to TO (`$1` for a
    /// group) before they are compared with B's; repeatable, the first that matches applies.
    #[arg(long, value_name = "FROM=TO")]
    rename: Vec<RenameRule>,
    /// Compare tensor bytes, and numeric tensors element by element (reads every tensor byte
    /// once, in parallel, with bounded memory).
    #[arg(long)]
    values: bool,
    /// With --values: the largest absolute difference between two elements that still
    /// counts as equal.
    #[arg(long, value_name = "ABS", default_value_t = 0.0, value_parser = tolerance)]
    tolerance: f64,
    /// List every item of every section in text (by default each list stops after 50 and
    /// says how many more there are).
    #[arg(long)]
    all: bool,
    /// What makes the exit code 1, as a comma-separated list.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "ASPECTS",
        default_value = "interface,graph,tensors,values,findings"
    )]
    fail_on: Vec<Aspect>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn tolerance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t >= 0.0 && t.is_finite() => Ok(t),
        _ => Err(format!("expected a finite number >= 0, got {s:?}")),
    }
}

/// Reads the two `sides` (a model and its data files) side by side, each as
/// [`super::analyze_one`] does; either failing fails both. The files stay open, for their
/// tensor bytes.
pub(super) fn analyze_two(
    sides: [(&Path, &DataArgs); 2],
    views: bool,
) -> Result<[(ModelFile, Analysis); 2], Outcome> {
    let [a, b] = std::thread::scope(|scope| {
        sides
            .map(|(path, data)| scope.spawn(move || super::analyze_one(path, data, views)))
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    });
    Ok([a?, b?])
}

pub fn run(args: DiffArgs) -> io::Result<Outcome> {
    let data = |files: &[PathBuf]| DataArgs {
        files: files.to_vec(),
    };
    let sides = [
        (&*args.a, &data(&args.data_a)),
        (&*args.b, &data(&args.data_b)),
    ];
    let [(file_a, a), (file_b, b)] = match analyze_two(sides, false) {
        Ok(both) => both,
        Err(outcome) => return Ok(outcome),
    };
    let options = Options {
        renames: args.rename,
        values: args.values,
        tolerance: args.tolerance,
    };
    let diff = Diff::of(&a, &b, &options);
    // A remote file whose tensor bytes could not all be fetched compared nothing.
    for file in [&file_a, &file_b] {
        if let Err(e) = file.fetch_touched() {
            super::complain(e);
            return Ok(Outcome::Failure);
        }
    }
    let different = args.fail_on.iter().any(|&f| diff.differs(f));
    let mut out = io::BufWriter::new(io::stdout().lock());
    match args.format {
        Format::Text => {
            let lists = if args.all { Lists::All } else { Lists::Cut };
            rtenx::diff::text::write(&mut out, &diff, [(&args.a, &a), (&args.b, &b)], lists)?
        }
        Format::Json => diff.write_json(&mut out, [&args.a, &args.b], different)?,
    }
    out.flush()?;
    super::release_at_exit((a, b, diff));
    Ok(if different {
        Outcome::Different
    } else {
        Outcome::Clean
    })
}
