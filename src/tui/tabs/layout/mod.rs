//! Layout: the files' byte map drawn to scale, the sections, and what lives in the selected one.

mod byte_map;
mod shared_bytes;

use crate::analysis::Analysis;
use crate::inventory::{ByteRange, Inventory};
use crate::tui::component::Component;
use crate::tui::cursor::Cursor;
use crate::tui::event::Event;
use crate::tui::keys::Action;
use crate::tui::list;
use crate::tui::theme::Theme;
use humansize::{format_size, BINARY};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// The Layout tab: the selected section, and the bytes tensors share, found once.
pub struct LayoutTab {
    cursor: Cursor,
    /// For each file, the bytes two or more tensors claim.
    shared: Vec<Vec<ByteRange>>,
}

impl LayoutTab {
    /// The Layout tab of `inv`.
    pub fn new(inv: &Inventory) -> Self {
        LayoutTab {
            cursor: Cursor::default(),
            shared: shared_bytes::by_file(inv),
        }
    }

    /// Selects section `section`.
    pub fn show(&mut self, section: usize) {
        self.cursor.selected = section;
    }

    /// The selected section's file, and the tensors whose data lies in it (at most `max`).
    fn contents(&self, inv: &Inventory, max: usize, theme: Theme) -> Vec<Line<'static>> {
        let Some(s) = inv.sections.get(self.cursor.selected) else {
            return Vec::new();
        };
        // The file name only: absolute paths of data files would crowd out the contents.
        let path = inv
            .files
            .get(s.file)
            .and_then(|f| f.path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut lines = vec![Line::styled(
            format!("{} in {}", s.kind.label(), crate::escape::sanitize(&path)),
            theme.heading(),
        )];
        let inside: Vec<_> = inv
            .tensors
            .iter()
            .filter_map(|t| Some((t, t.data?)))
            .filter(|(_, d)| {
                d.file == s.file
                    && d.offset < s.range.end()
                    && d.end().unwrap_or(u64::MAX) > s.range.start
            })
            .collect();
        let n = inside.len();
        lines.push(Line::raw(format!(
            "{n} tensor{} here",
            if n == 1 { "" } else { "s" }
        )));
        let breakdown = breakdown(inv, theme);
        let room = max.saturating_sub(breakdown.len() + 4);
        lines.extend(inside.iter().take(room).map(|(t, d)| {
            Line::raw(format!(
                "  {:>12} {:>10}  {}",
                d.offset,
                format_size(d.len, BINARY),
                t.name
            ))
        }));
        lines.extend(breakdown);
        lines
    }
}

/// The first size table of the files (where the bytes go, by kind of content), if the
/// reader made one.
fn breakdown(inv: &Inventory, theme: Theme) -> Vec<Line<'static>> {
    let Some(table) = inv.sizes.first() else {
        return Vec::new();
    };
    let mut lines = vec![
        Line::raw(""),
        Line::styled(format!("all files, {}", table.title), theme.heading()),
    ];
    lines.extend(table.rows.iter().map(|row| {
        Line::raw(format!(
            "  {:<24} {:>10}",
            row.label.display(),
            format_size(row.bytes, BINARY)
        ))
    }));
    lines
}

impl Component for LayoutTab {
    fn receive(&mut self, event: &Event, _: &Inventory) -> bool {
        let &Event::ShowSection(section) = event else {
            return false;
        };
        self.show(section);
        true
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        self.cursor
            .navigate(action, analysis.inventory.sections.len());
        None
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        let inv = &analysis.inventory;
        let [map, rest] = Layout::vertical([
            Constraint::Length(byte_map::height(inv)),
            Constraint::Min(3),
        ])
        .areas(area);
        byte_map::draw(frame, map, inv, &self.shared, theme);
        let [list, detail] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(rest);
        let sections = &inv.sections;
        list::draw(
            frame,
            list,
            " sections ".into(),
            &mut self.cursor,
            sections.len(),
            theme,
            |i| {
                let s = &sections[i];
                let (c, _) = byte_map::glyph(s.kind);
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
        frame.render_widget(
            Paragraph::new(self.contents(inv, detail.height as usize, theme))
                .block(Block::bordered().title(" contents ")),
            detail,
        );
    }
}
