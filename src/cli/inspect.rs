//! `rtenx inspect`.

use super::Outcome;
use clap::Args;
use rtenx::tui::loader::Loader;
use rtenx::tui::{App, Tab};
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
    let tty = io::stdout().is_terminal() && io::stdin().is_terminal();
    if tty && !args.summary {
        return browse(args);
    }
    let analysis = match super::analyze_one(&args.file, &args.data, true) {
        Ok(a) => a,
        Err(outcome) => return Ok(outcome),
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    rtenx::summary::write(&mut out, &analysis)?;
    out.flush()?;
    super::release_at_exit(analysis);
    Ok(Outcome::Clean)
}

/// Opens the browser on what is known of the file at once, and reads the model on a
/// background thread meanwhile.
fn browse(args: InspectArgs) -> io::Result<Outcome> {
    if let Err(outcome) = args.data.readable() {
        return Ok(outcome);
    }
    let preview = match rtenx::preview(&args.file) {
        Ok(preview) => preview,
        Err(e) => {
            super::complain(e);
            return Ok(Outcome::Failure);
        }
    };
    let InspectArgs {
        file, data, tab, ..
    } = args;
    let loader = Loader::spawn(move || {
        let options = rtenx::formats::ReadOptions {
            data: &data.files,
            ..Default::default()
        };
        rtenx::analyze_with(&file, &options).map_err(|e| e.to_string())
    });
    let app = rtenx::tui::run(App::loading(preview, tab, loader))?;
    super::release_at_exit(app);
    Ok(Outcome::Clean)
}
