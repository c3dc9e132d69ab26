//! `rtenx inspect`.

use super::{DataArgs, Outcome};
use clap::Args;
use rtenx::diff::Diff;
use rtenx::tui::loader::Loader;
use rtenx::tui::{App, Tab};
use rtenx::Analysis;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

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
    data: DataArgs,
    /// Compare with the model B: the Overview starts with what `rtenx diff B FILE` finds,
    /// the tabs mark with `+` what only FILE has and with `~` what B has otherwise.
    #[arg(long, value_name = "B")]
    diff: Option<PathBuf>,
    /// A data file of B; repeatable.
    #[arg(long = "data-b", value_name = "FILE", requires = "diff")]
    data_b: Vec<PathBuf>,
}

pub fn run(args: InspectArgs) -> io::Result<Outcome> {
    let tty = io::stdout().is_terminal() && io::stdin().is_terminal();
    if tty && !args.summary {
        return browse(args);
    }
    let data_b = DataArgs {
        files: args.data_b.clone(),
    };
    let (analysis, other) = match &args.diff {
        None => match super::analyze_one(&args.file, &args.data, true) {
            Ok(a) => (a, None),
            Err(outcome) => return Ok(outcome),
        },
        Some(b) => match super::diff::analyze_two([(&args.file, &args.data), (b, &data_b)], true) {
            Ok([a, b]) => (a, Some(b)),
            Err(outcome) => return Ok(outcome),
        },
    };
    let diff = other.as_ref().map(|b| Diff::against(&analysis, b));
    let mut out = io::BufWriter::new(io::stdout().lock());
    rtenx::summary::write_compared(&mut out, &analysis, diff.as_ref())?;
    out.flush()?;
    super::release_at_exit((analysis, other, diff));
    Ok(Outcome::Clean)
}

/// Reads `file` with its data files for the browser, and `b` with its own beside it when
/// comparing; errors are the reason shown in place of the model.
fn read(
    file: &Path,
    data: &DataArgs,
    b: Option<(&Path, &DataArgs)>,
) -> Result<(Analysis, Option<Diff>), String> {
    let read = |path: &Path, data: &DataArgs| {
        let options = rtenx::formats::ReadOptions {
            data: &data.files,
            ..Default::default()
        };
        rtenx::analyze_with(path, &options).map_err(|e| e.to_string())
    };
    let Some((b_path, b_data)) = b else {
        return Ok((read(file, data)?, None));
    };
    let (shown, other) = std::thread::scope(|scope| {
        let other = scope.spawn(|| read(b_path, b_data));
        let shown = read(file, data);
        (
            shown,
            other
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
        )
    });
    let (shown, other) = (shown?, other.map_err(|e| format!("--diff: {e}"))?);
    let diff = Diff::against(&shown, &other);
    Ok((shown, Some(diff)))
}

/// Opens the browser on what is known of the file at once, and reads the model (and the
/// one it is compared with) on a background thread meanwhile.
fn browse(args: InspectArgs) -> io::Result<Outcome> {
    let data_b = DataArgs { files: args.data_b };
    if let Err(outcome) = args.data.readable().and_then(|()| data_b.readable()) {
        return Ok(outcome);
    }
    let preview = match rtenx::preview(&args.file) {
        Ok(preview) => preview,
        Err(e) => {
            super::complain(e);
            return Ok(Outcome::Failure);
        }
    };
    let (file, data, b, tab) = (args.file, args.data, args.diff, args.tab);
    let loader =
        Loader::spawn_compared(move || read(&file, &data, b.as_deref().map(|b| (b, &data_b))));
    let app = rtenx::tui::run(App::loading(preview, tab, loader))?;
    super::release_at_exit(app);
    Ok(Outcome::Clean)
}
