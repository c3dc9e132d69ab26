//! Human-readable check output, in the style of compiler diagnostics.

use super::baseline::Compared;
use super::fold::Folder;
use super::{FileResult, Root, Summary};
use crate::check::Severity;
use crate::escape::{self, sanitize};
use anstyle::{AnsiColor, Style};
use std::collections::HashSet;
use std::io::{self, Write};

/// `text` in `style` when colouring. Every `text` painted here is sanitized or rtenx's own,
/// so the only escape sequences in the output are these styles, which the caller's stream
/// (anstream) passes on, translates for the Windows console, or strips.
fn paint(color: bool, style: Style, text: &str) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_owned()
    }
}

fn bold(color: AnsiColor) -> Style {
    color.on_default().bold()
}

fn severity_style(s: Severity) -> Style {
    bold(match s {
        Severity::Error => AnsiColor::Red,
        Severity::Warning => AnsiColor::Yellow,
        Severity::Info => AnsiColor::Cyan,
    })
}

pub(super) fn write(
    w: &mut dyn Write,
    results: &[FileResult],
    root: &Root,
    color: bool,
    all: bool,
    baseline: Option<&Compared>,
) -> io::Result<()> {
    for result in results {
        if let Err(e) = &result.outcome {
            let label = paint(color, bold(AnsiColor::Red), "error");
            let error = root.message(&e.to_string()).into_owned();
            writeln!(w, "{label}: cannot read {}", sanitize(&error))?;
            continue;
        }
        let mut folder = Folder::default();
        // The rules whose fix this file's report has given.
        let mut helped = HashSet::new();
        for (f, place) in result.placed() {
            if !all && !folder.show(f, &place.path) {
                continue;
            }
            let head = paint(
                color,
                severity_style(f.severity),
                &format!("{}[{}]", f.severity, f.rule.code),
            );
            let message = root.message(&f.message);
            // What happens on the first line; the detail, after ` — `, below the place.
            let (first, detail) = match message.split_once(" — ") {
                Some((first, detail)) => (first, Some(detail)),
                None => (&*message, None),
            };
            writeln!(w, "{head}: {}", sanitize(first))?;
            let path = escape::path(&root.show(&place.path)).into_owned();
            let at = match f.offset {
                Some(o) => format!("{path} @ {o} (0x{o:x})"),
                None => path,
            };
            let arrow = paint(color, bold(AnsiColor::Blue), "-->");
            match &place.item {
                Some(item) => writeln!(w, "  {arrow} {at}, {}", sanitize(item))?,
                None => writeln!(w, "  {arrow} {at}")?,
            }
            if let Some(detail) = detail {
                let label = paint(color, bold(AnsiColor::Blue), "note");
                writeln!(w, "   = {label}: {}", sanitize(detail))?;
            }
            if let Some(help) = f.rule.help().filter(|_| helped.insert(f.rule.code)) {
                let label = paint(color, bold(AnsiColor::Cyan), "help");
                writeln!(w, "   = {label}: {}", sanitize(&help))?;
            }
        }
        for held in folder.held() {
            let head = paint(
                color,
                severity_style(held.severity),
                &format!("{}[{}]", held.severity, held.rule.code),
            );
            writeln!(
                w,
                "{head}: {} more like this in {} (--all shows them)",
                held.count,
                escape::path(&root.show(held.path))
            )?;
        }
    }
    write_notes(w, results, root, color)?;
    if let Some(compared) = baseline {
        for fixed in &compared.fixed {
            let head = paint(
                color,
                bold(AnsiColor::Green),
                &format!("fixed[{}]", fixed.code),
            );
            writeln!(w, "{head}: {}", sanitize(&fixed.message))?;
            let arrow = paint(color, bold(AnsiColor::Blue), "-->");
            match &fixed.item {
                Some(item) => {
                    writeln!(w, "  {arrow} {}, {}", sanitize(&fixed.path), sanitize(item))?
                }
                None => writeln!(w, "  {arrow} {}", sanitize(&fixed.path))?,
            }
        }
        writeln!(w, "baseline: {}", BaselineSummary(compared))?;
    }
    write_fetched(w, results)?;
    writeln!(w, "checked {}", Summary::of(results))
}

/// What the remote files of `results` and their data files cost: `fetched 3.40 MiB of
/// 133.69 GiB in 150 requests (30 remote files)`.
fn write_fetched(w: &mut dyn Write, results: &[FileResult]) -> io::Result<()> {
    let remote: Vec<_> = results.iter().filter_map(|r| r.remote.as_ref()).collect();
    if remote.is_empty() {
        return Ok(());
    }
    let mut all = crate::source::Cost::default();
    for r in &remote {
        all.add(r);
        let data = r.data_files.unwrap_or_default();
        all.files += data.files;
        all.size += data.size;
        all.fetched += data.fetched;
        all.requests += data.requests;
    }
    let [fetched, size] =
        [all.fetched, all.size].map(|n| humansize::format_size(n, humansize::BINARY));
    let plural = |n: u64, one: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    let requests = plural(all.requests, "request");
    let files = plural(all.files, "remote file");
    writeln!(w, "fetched {fetched} of {size} in {requests} ({files})")
}

/// Notes shown before the summary: a check of a few models says, for each that is more
/// than one file or has a loader's verdict, what it read and what the loader would say.
const NOTES: usize = 10;

/// The notes of `results` ([`super::Checked::note`]), at most [`NOTES`] and then how many
/// more there are.
fn write_notes(
    w: &mut dyn Write,
    results: &[FileResult],
    root: &Root,
    color: bool,
) -> io::Result<()> {
    let notes: Vec<(&FileResult, &str)> = (results.iter())
        .filter_map(|r| Some((r, r.outcome.as_ref().ok()?.note.as_deref()?)))
        .collect();
    let label = paint(color, bold(AnsiColor::Green), "note");
    for (result, note) in notes.iter().take(NOTES) {
        let path = escape::path(&root.show(&result.path)).into_owned();
        writeln!(w, "{label}: {path}: {}", sanitize(note))?;
    }
    if notes.len() > NOTES {
        let more = notes.len() - NOTES;
        writeln!(w, "{label}: {more} more models read with data files or judged by a loader's table (rtenx inspect shows each)")?;
    }
    Ok(())
}

/// `3 known findings not counted, 1 fixed`.
pub(super) struct BaselineSummary<'a>(pub &'a Compared);

impl std::fmt::Display for BaselineSummary<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = self.0.matched;
        let s = if known == 1 { "" } else { "s" };
        write!(
            f,
            "{known} known finding{s} not counted, {} fixed",
            self.0.fixed.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Finding, Place};
    use crate::formats::onnx::rules::{EXTERNAL_OFFSET_UNALIGNED, OPSET_MISSING};
    use crate::inventory::{FileEntry, FileFormat, Inventory};

    /// Text output for one file with five infos of one code and two errors of another.
    fn output(all: bool) -> String {
        render(false, all, "error")
    }

    /// The same file, coloured or not, its errors' messages starting with `error`.
    fn render(color: bool, all: bool, error: &str) -> String {
        let main = FileEntry::model("m.onnx", 0);
        let mut findings: Vec<Finding> = (0..5)
            .map(|i| Finding::new(&EXTERNAL_OFFSET_UNALIGNED, Place::FILE, format!("info {i}")))
            .collect();
        findings.extend(
            (0..2).map(|i| Finding::new(&OPSET_MISSING, Place::FILE, format!("{error} {i}"))),
        );
        let analysis = crate::Analysis {
            inventory: Inventory::new(FileFormat::Read("onnx"), "", main),
            findings,
        };
        let results = [FileResult::new("m.onnx".into(), Ok(analysis)).0];
        let mut out = Vec::new();
        write(&mut out, &results, &Root::cwd(), color, all, None).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn findings_beyond_three_per_rule_are_counted_unless_asked_for() {
        let short = output(false);
        assert!(
            short.contains("info 2") && !short.contains("info 3"),
            "{short}"
        );
        assert!(short.contains("info[OX023]: 2 more like this in m.onnx (--all shows them)"));
        assert!(short.contains("error 0") && short.contains("error 1"));
        assert!(
            short.ends_with("checked 1 file: 2 errors, 0 warnings, 5 infos\n"),
            "{short}"
        );
        let all = output(true);
        assert!(
            all.contains("info 4") && !all.contains("more like this"),
            "{all}"
        );
    }

    #[test]
    fn colour_comes_only_from_rtenx_styles() {
        let text = render(true, false, "\x1b[2Jerror");
        let red = bold(AnsiColor::Red);
        assert!(
            text.contains(&format!("{red}error[OX004]{red:#}: \\u{{1b}}[2Jerror 0")),
            "{text}"
        );
        assert!(!text.contains("\x1b[2J"), "{text}");
    }
}
