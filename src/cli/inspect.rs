//! `rtenx inspect`.

use super::check::signature::{self, MaterialArgs};
use super::folder::Named;
use super::{DataArgs, Outcome};
use clap::Args;
use rtenx::diff::Diff;
use rtenx::source::ModelFile;
use rtenx::tui::loader::Loader;
use rtenx::tui::{App, Tab};
use rtenx::Analysis;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The model file, or a folder: the model it holds, or a choice of the ones it holds.
    file: PathBuf,
    /// The tab to open on.
    #[arg(long, value_enum, default_value = "overview")]
    tab: Tab,
    /// Print the text summary even on a terminal.
    #[arg(long)]
    summary: bool,
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    signing: MaterialArgs,
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
    let run = match signature::given(&args.signing, std::slice::from_ref(&args.file)) {
        Ok(run) => run,
        Err(outcome) => return Ok(outcome),
    };
    let (mut analysis, other) = match &args.diff {
        None => {
            let file = match super::folder::open(&args.file) {
                Ok(Named::One(file)) => file,
                Ok(Named::Several(models)) => {
                    let mut out = io::stdout().lock();
                    super::folder::write_list(&mut out, &args.file, &models)?;
                    return Ok(Outcome::Clean);
                }
                Err(outcome) => return Ok(outcome),
            };
            match args
                .data
                .readable()
                .and_then(|()| super::analyze_file(&file, &args.data, true))
            {
                Ok(a) => (a, None),
                Err(outcome) => return Ok(outcome),
            }
        }
        Some(b) => match super::diff::analyze_two([(&args.file, &args.data), (b, &data_b)], true) {
            Ok([(_, a), (_, b)]) => (a, Some(b)),
            Err(outcome) => return Ok(outcome),
        },
    };
    analysis.inventory.signature = signature::of(&args.file, &args.signing, &run);
    let diff = other.as_ref().map(|b| Diff::against(&analysis, b));
    let mut out = io::BufWriter::new(io::stdout().lock());
    rtenx::summary::write_compared(&mut out, &analysis, diff.as_ref())?;
    out.flush()?;
    super::release_at_exit((analysis, other, diff));
    Ok(Outcome::Clean)
}

/// Reads the opened `file` with its data files for the browser, and `b` with its own beside
/// it when comparing; errors are the reason shown in place of the model.
fn read(
    file: &ModelFile,
    data: &DataArgs,
    b: Option<(&ModelFile, &DataArgs)>,
) -> Result<(Analysis, Option<Diff>), String> {
    let read = |file: &ModelFile, data: &DataArgs| {
        let options = rtenx::formats::ReadOptions {
            data: &data.files,
            ..Default::default()
        };
        rtenx::analyze_opened(file, &options).map_err(|e| e.to_string())
    };
    let Some((b_file, b_data)) = b else {
        return Ok((read(file, data)?, None));
    };
    let (shown, other) = std::thread::scope(|scope| {
        let other = scope.spawn(|| read(b_file, b_data));
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
/// one it is compared with) on a background thread meanwhile. A folder that holds several
/// models first asks which one.
fn browse(args: InspectArgs) -> io::Result<Outcome> {
    let data_b = DataArgs { files: args.data_b };
    if let Err(outcome) = args.data.readable().and_then(|()| data_b.readable()) {
        return Ok(outcome);
    }
    let file = match super::folder::open(&args.file) {
        Ok(Named::One(file)) => file,
        Ok(Named::Several(models)) => {
            let title = format!("{} holds {} model files", args.file.display(), models.len());
            let Some(chosen) = rtenx::tui::choose(&title, &super::folder::rows(&models))? else {
                return Ok(Outcome::Clean);
            };
            match models[chosen].open() {
                Ok(file) => file,
                Err(e) => {
                    super::complain(e);
                    return Ok(Outcome::Failure);
                }
            }
        }
        Err(outcome) => return Ok(outcome),
    };
    let b = match args
        .diff
        .as_deref()
        .map(super::folder::open_one)
        .transpose()
    {
        Ok(b) => b,
        Err(outcome) => return Ok(outcome),
    };
    let run = match signature::given(&args.signing, std::slice::from_ref(&args.file)) {
        Ok(run) => run,
        Err(outcome) => return Ok(outcome),
    };
    let preview = rtenx::preview_of(&file);
    let (data, tab, path, signing) = (args.data, args.tab, args.file, args.signing);
    // Open while browsing: a remote file's tensor bytes are fetched from it when shown.
    let file = std::sync::Arc::new(file);
    let read_file = file.clone();
    let loader = Loader::spawn_compared(move || {
        let (mut shown, diff) = read(&read_file, &data, b.as_ref().map(|b| (b, &data_b)))?;
        shown.inventory.signature = signature::of(&path, &signing, &run);
        Ok((shown, diff))
    });
    let app = rtenx::tui::run(App::loading(preview, tab, loader))?;
    super::release_at_exit(app);
    drop(file);
    Ok(Outcome::Clean)
}
