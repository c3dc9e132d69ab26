//! `rtenx dump`.

use super::Outcome;
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The model file, or a folder that holds one.
    file: PathBuf,
    /// Write JSON: the only dump format, so the flag may be left out.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    data: super::DataArgs,
}

pub fn run(args: DumpArgs) -> io::Result<Outcome> {
    let DumpArgs {
        file,
        json: _,
        data,
    } = args;
    let analysis = match super::analyze_one(&file, &data, true) {
        Ok(a) => a,
        Err(outcome) => return Ok(outcome),
    };
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    rtenx::json_dump::write(&mut out, &analysis)?;
    out.flush()?;
    super::release_at_exit(analysis);
    Ok(Outcome::Clean)
}
