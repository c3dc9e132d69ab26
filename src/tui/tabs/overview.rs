//! Overview: the model's summary (see [`crate::summary`]), scrollable.

use crate::analysis::Analysis;
use crate::diff::Diff;
use crate::tui::component::Component;
use crate::tui::cursor::Cursor;
use crate::tui::event::Event;
use crate::tui::keys::Action;
use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// One line of the Overview.
struct Row {
    text: String,
    heading: bool,
}

/// The Overview tab: lines made once, and how far they are scrolled.
pub struct OverviewTab {
    rows: Vec<Row>,
    /// The first line shown.
    cursor: Cursor,
}

impl OverviewTab {
    /// The Overview of `analysis`, with what `diff` found first.
    pub fn new(analysis: &Analysis, diff: Option<&Diff>) -> Self {
        let parts = crate::summary::parts(analysis, diff, "tab 6 lists them all");
        let mut rows = Vec::new();
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                rows.push(Row {
                    text: String::new(),
                    heading: false,
                });
            }
            rows.push(Row {
                text: part.heading,
                heading: true,
            });
            rows.extend(part.lines.into_iter().map(|line| Row {
                text: format!("  {line}"),
                heading: false,
            }));
        }
        OverviewTab {
            rows,
            cursor: Cursor::default(),
        }
    }
}

impl Component for OverviewTab {
    fn handle(&mut self, action: Action, _: &Analysis) -> Option<Event> {
        self.cursor.navigate(action, self.rows.len());
        None
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, _: &Analysis, theme: Theme) {
        let height = area.height.saturating_sub(2) as usize;
        let cursor = &mut self.cursor;
        // The selection is the first line shown; the last page stays full.
        cursor.selected = cursor.selected.min(self.rows.len().saturating_sub(height));
        cursor.fit(self.rows.len(), height);
        let lines: Vec<Line> = self.rows[cursor.selected..]
            .iter()
            .take(height)
            .map(|row| {
                let style = if row.heading {
                    theme.heading()
                } else {
                    Default::default()
                };
                Line::styled(row.text.as_str(), style)
            })
            .collect();
        frame.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(" Overview ")),
            area,
        );
    }
}
