//! The byte map: one bar per file, drawn to scale, each cell showing the section that covers
//! most of its bytes, or X where sections or tensors overlap.

use super::shared_bytes;
use crate::inventory::{ByteRange, Inventory, Section, SectionKind};
use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Files drawn in the byte map; the section list covers the rest.
const MAX_BARS: usize = 8;

/// The letter and colour of a section kind.
pub fn glyph(kind: SectionKind) -> (char, Color) {
    match kind {
        SectionKind::Header => ('H', Color::Magenta),
        SectionKind::ModelData => ('M', Color::Cyan),
        SectionKind::TensorData => ('T', Color::Green),
        SectionKind::ExternalData => ('E', Color::Green),
        SectionKind::BlobData => ('B', Color::Blue),
        SectionKind::Padding => ('.', Color::DarkGray),
        SectionKind::Gap => ('?', Color::Yellow),
        SectionKind::Trailing => ('!', Color::Red),
    }
}

/// Rows the byte map of `inv` takes, borders included.
pub fn height(inv: &Inventory) -> u16 {
    let files = inv.files.len();
    (files.min(MAX_BARS) + usize::from(files > MAX_BARS) + 3) as u16
}

/// Draws the byte map of `inv` in `area`; `shared` holds, for each file, the bytes two or
/// more tensors claim.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    inv: &Inventory,
    shared: &[Vec<ByteRange>],
    theme: Theme,
) {
    let width = area.width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = inv
        .files
        .iter()
        .enumerate()
        .take(MAX_BARS)
        .map(|(file, entry)| {
            let shared = shared.get(file).map_or(&[][..], Vec::as_slice);
            bar(
                inv,
                file,
                entry.size.unwrap_or(0).max(1),
                shared,
                width,
                theme,
            )
        })
        .collect();
    let more = inv.files.len().saturating_sub(MAX_BARS);
    if more > 0 {
        lines.push(Line::styled(
            format!("… and {more} more files: see the sections below"),
            theme.dim(),
        ));
    }
    lines.push(Line::styled(
        "H header  M model data  T/E tensor data  B blob  . padding  ? gap  ! trailing  X overlap",
        theme.dim(),
    ));
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" byte map ")),
        area,
    );
}

/// The bar of file `file`, `size` bytes long, in `width` cells.
fn bar(
    inv: &Inventory,
    file: usize,
    size: u64,
    shared: &[ByteRange],
    width: usize,
    theme: Theme,
) -> Line<'static> {
    // Sections are sorted by file, then offset.
    let all = &inv.sections;
    let (lo, hi) = (
        all.partition_point(|s| s.file < file),
        all.partition_point(|s| s.file <= file),
    );
    let sections: Vec<&Section> = all[lo..hi.max(lo)].iter().collect();
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
            let (c, color) =
                if overlapping(&sections, start, end) || shared_bytes::meets(shared, start, end) {
                    ('X', Color::Red)
                } else {
                    best.map_or((' ', Color::Reset), |s| glyph(s.kind))
                };
            Span::styled(c.to_string(), theme.fg(color))
        })
        .collect();
    Line::from(spans)
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
