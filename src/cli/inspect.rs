//! `rtenx inspect`.

use super::Outcome;
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The model file.
    file: PathBuf,
}

pub fn run(args: InspectArgs) -> io::Result<Outcome> {
    let analysis = match super::analyze_one(&args.file) {
        Ok(a) => a,
        Err(outcome) => return Ok(outcome),
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    rtenx::summary::write(&mut out, &analysis)?;
    out.flush()?;
    Ok(Outcome::Clean)
}
