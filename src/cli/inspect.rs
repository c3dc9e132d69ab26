//! `rtenx inspect`.

use super::Outcome;
use clap::Args;
use rtenx::tui::Tab;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The model file.
    file: PathBuf,
    /// The tab to open on.
    #[arg(long, value_enum, default_value = "overview")]
    tab: Tab,
    /// Print the text summary even on a terminal.
    #[arg(long)]
    summary: bool,
    #[command(flatten)]
    data: super::DataArgs,
}

pub fn run(args: InspectArgs) -> io::Result<Outcome> {
    let analysis = match super::analyze_one(&args.file, &args.data) {
        Ok(a) => a,
        Err(outcome) => return Ok(outcome),
    };
    let tty = io::stdout().is_terminal() && io::stdin().is_terminal();
    if tty && !args.summary {
        rtenx::tui::run(analysis, args.tab)?;
        return Ok(Outcome::Clean);
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    rtenx::summary::write(&mut out, &analysis)?;
    out.flush()?;
    Ok(Outcome::Clean)
}
