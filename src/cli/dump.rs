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
    /// Read every tensor's values and add their figures to each tensor: how many, zeros, NaN,
    /// infinities, subnormals, and the smallest, largest, mean and standard deviation of the
    /// finite ones (reads every tensor byte, on every core).
    #[arg(long)]
    values: bool,
    #[command(flatten)]
    data: super::DataArgs,
    #[command(flatten)]
    signing: super::check::signature::MaterialArgs,
}

pub fn run(args: DumpArgs) -> io::Result<Outcome> {
    let DumpArgs {
        file,
        json: _,
        values,
        data,
        signing,
    } = args;
    let opened = match data
        .readable()
        .and_then(|()| super::folder::open_one(&file))
    {
        Ok(opened) => opened,
        Err(outcome) => return Ok(outcome),
    };
    let run = match super::check::signature::given(&signing, std::slice::from_ref(&file)) {
        Ok(run) => run,
        Err(outcome) => return Ok(outcome),
    };
    let mut analysis = match super::analyze_file(&opened, &data, true) {
        Ok(a) => a,
        Err(outcome) => return Ok(outcome),
    };
    analysis.inventory.signature = super::check::signature::of(&file, &signing, &run);
    let scan = match values {
        true => {
            let progress = super::progress::Progress::new("reading");
            let report = |done, total| progress.show(done, total);
            let options = rtenx::values::Options {
                moments: true,
                threads: super::targets::workers(),
                cancel: None,
                progress: Some(&report),
            };
            let files = rtenx::values::Files::open(&analysis.inventory, Some(&opened));
            let scan = rtenx::values::scan(&files, &options);
            progress.finish();
            if let Err(e) = files.settled() {
                super::complain(e);
                return Ok(Outcome::Failure);
            }
            Some(scan)
        }
        false => None,
    };
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    rtenx::json_dump::write_with_values(&mut out, &analysis, scan.as_ref())?;
    out.flush()?;
    super::release_at_exit(analysis);
    Ok(Outcome::Clean)
}
