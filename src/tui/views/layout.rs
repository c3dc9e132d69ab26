//! Layout: the file's byte map drawn to scale, the sections, and what lives in the selected one.

use super::{lists, Theme};
use crate::inventory::{Section, SectionKind};
use crate::tui::app::App;
use humansize::{format_size, BINARY};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

fn glyph(kind: SectionKind) -> (char, Color) {
    match kind {
        SectionKind::Header => ('H', Color::Magenta),
        SectionKind::ModelData => ('M', Color::Cyan),
        SectionKind::TensorData => ('T', Color::Green),
        SectionKind::ExternalData => ('E', Color::Green),
        SectionKind::Padding => ('.', Color::DarkGray),
        SectionKind::Gap => ('?', Color::Yellow),
        SectionKind::Trailing => ('!', Color::Red),
    }
}

/// Files drawn in the byte map; the section list covers the rest.
const MAX_BARS: usize = 8;

/// One bar per file, for the first [`MAX_BARS`] files: each cell shows the section covering
/// most of its share of the bytes, or X where sections or tensors overlap.
fn bars(app: &App, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let inv = &app.analysis.inventory;
    inv.files
        .iter()
        .enumerate()
        .take(MAX_BARS)
        .map(|(file, entry)| {
            let size = entry.size.unwrap_or(0).max(1);
            // Sections are sorted by file, then offset.
            let all = &inv.sections;
            let (lo, hi) = (
                all.partition_point(|s| s.file < file),
                all.partition_point(|s| s.file <= file),
            );
            let sections: Vec<&Section> = all[lo..hi.max(lo)].iter().collect();
            let shared = app.shared.get(file).map_or(&[][..], Vec::as_slice);
            let spans: Vec<Span> = (0..width as u64)
                .map(|cell| {
                    let (start, end) = (
                        cell * size / width as u64,
                        ((cell + 1) * size / width as u64).max(cell * size / width as u64 + 1),
                    );
                    let best = sections.iter().max_by_key(|s| {
                        s.range
                            .end()
                            .min(end)
                            .saturating_sub(s.range.start.max(start))
                    });
                    let (c, color) = if overlapping(&sections, start, end)
                        || crate::tui::overlaps::meets(shared, start, end)
                    {
                        ('X', Color::Red)
                    } else {
                        best.map_or((' ', Color::Reset), |s| glyph(s.kind))
                    };
                    Span::styled(
                        c.to_string(),
                        if theme.color {
                            Style::new().fg(color)
                        } else {
                            Style::new()
                        },
                    )
                })
                .collect();
            Line::from(spans)
        })
        .collect()
}

/// True if two declared sections both cover some byte of `start..end`.
fn overlapping(sections: &[&Section], start: u64, end: u64) -> bool {
    let declared: Vec<_> = sections
        .iter()
        .filter(|s| s.kind.is_declared() && s.range.len > 0)
        .collect();
    declared.iter().enumerate().any(|(i, a)| {
        declared[i + 1..].iter().any(|b| {
            let lo = a.range.start.max(b.range.start).max(start);
            let hi = a.range.end().min(b.range.end()).min(end);
            lo < hi
        })
    })
}

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let files = app.analysis.inventory.files.len();
    let more = files.saturating_sub(MAX_BARS);
    let rows = files.min(MAX_BARS) + usize::from(more > 0) + 3;
    let [map, rest] =
        Layout::vertical([Constraint::Length(rows as u16), Constraint::Min(3)]).areas(area);
    let mut lines = bars(app, map.width.saturating_sub(2) as usize, theme);
    if more > 0 {
        lines.push(Line::styled(
            format!("… and {more} more files: see the sections below"),
            theme.dim(),
        ));
    }
    lines.push(Line::styled(
        "H header  M model data  T/E tensor data  . padding  ? gap  ! trailing  X overlap",
        theme.dim(),
    ));
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" byte map ")),
        map,
    );
    let [list, detail] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(rest);
    let inv = &app.analysis.inventory;
    let sections = inv.sections.clone();
    let len = sections.len();
    let mut cursor = app.cursors[1];
    lists::draw(
        frame,
        list,
        " sections ".into(),
        &mut cursor,
        len,
        theme,
        |i| {
            let s = &sections[i];
            let (c, _) = glyph(s.kind);
            Line::raw(format!(
                "{c} {:<13} {:>10}..{:<10} {:>9} f{}",
                s.kind.label(),
                s.range.start,
                s.range.end(),
                format_size(s.range.len, BINARY),
                s.file
            ))
        },
    );
    app.cursors[1] = cursor;
    let mut lines = Vec::new();
    if let Some(s) = sections.get(cursor.selected) {
        // The file name only: absolute paths of data files would crowd out the contents.
        let path = inv
            .files
            .get(s.file)
            .and_then(|f| f.path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        lines.push(Line::styled(
            format!("{} in {}", s.kind.label(), crate::escape::sanitize(&path)),
            theme.heading(),
        ));
        let inside: Vec<_> = inv
            .tensors
            .iter()
            .filter(|t| {
                t.data.is_some_and(|d| {
                    d.file == s.file
                        && d.offset < s.range.end()
                        && d.end().unwrap_or(u64::MAX) > s.range.start
                })
            })
            .collect();
        let n = inside.len();
        lines.push(Line::raw(format!(
            "{n} tensor{} here",
            if n == 1 { "" } else { "s" }
        )));
        for t in inside.iter().take(detail.height as usize) {
            let d = t.data.unwrap_or(crate::inventory::DataRange {
                file: 0,
                offset: 0,
                len: 0,
            });
            lines.push(Line::raw(format!(
                "  {:>12} {:>10}  {}",
                d.offset,
                format_size(d.len, BINARY),
                t.name
            )));
        }
    }
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" contents ")),
        detail,
    );
}
