//! `rtenx completions` and `rtenx man`: shell completions and manual pages, generated from the
//! clap definition so that they always match the arguments.

use super::Outcome;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use clap_mangen::Man;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    shell: Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A command whose page to write (such as `check`); without one, the page of `rtenx`.
    command: Option<String>,
    /// Write every page (`rtenx.1`, `rtenx-check.1`, ...) into this directory instead.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    dir: Option<PathBuf>,
}

/// The command line as the generators see it, without clap's `help` subcommand.
fn command() -> clap::Command {
    super::Args::command().disable_help_subcommand(true)
}

pub fn completions(args: CompletionsArgs) -> io::Result<Outcome> {
    let mut out = io::stdout().lock();
    clap_complete::generate(args.shell, &mut command(), "rtenx", &mut out);
    out.flush()?;
    Ok(Outcome::Clean)
}

pub fn man(args: ManArgs) -> io::Result<Outcome> {
    let pages = pages();
    if let Some(dir) = args.dir {
        for page in pages {
            page.generate_to(&dir)?;
        }
        return Ok(Outcome::Clean);
    }
    let title = match &args.command {
        None => "rtenx".to_owned(),
        Some(name) => format!("rtenx-{name}"),
    };
    let Some(page) = pages
        .into_iter()
        .find(|p| p.get_filename() == format!("{title}.1"))
    else {
        let name = args.command.unwrap_or_default();
        super::complain(format_args!("no command `{name}`; `rtenx man` lists them"));
        return Ok(Outcome::Failure);
    };
    let mut out = io::stdout().lock();
    page.render(&mut out)?;
    out.flush()?;
    Ok(Outcome::Clean)
}

/// The page of `rtenx` and one for each of its commands, titled `rtenx-check` and so on.
fn pages() -> Vec<Man> {
    let mut cmd = command();
    // Building sets each subcommand's display name, which titles its page.
    cmd.build();
    let source = concat!("rtenx ", env!("CARGO_PKG_VERSION"));
    let subcommands: Vec<_> = cmd.get_subcommands().cloned().collect();
    std::iter::once(cmd)
        .chain(subcommands)
        .map(|c| Man::new(c).source(source))
        .collect()
}
