//! Overview: the model described part by part, then the findings, scrollable.

use crate::analysis::Analysis;
use crate::check::{Counts, Finding};
use crate::escape::sanitize;
use crate::inventory::display::{self, Part};
use crate::tui::component::Component;
use crate::tui::cursor::Cursor;
use crate::tui::event::Event;
use crate::tui::keys::Action;
use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Findings listed before a pointer to the Findings tab.
const MAX_FINDINGS: usize = 50;

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
    /// The Overview of `analysis`.
    pub fn new(analysis: &Analysis) -> Self {
        let mut parts = display::describe(&analysis.inventory);
        parts.push(findings(&analysis.findings));
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

/// Finding counts and the first findings.
fn findings(findings: &[Finding]) -> Part {
    let counts = Counts::of(findings);
    let mut lines: Vec<String> = findings
        .iter()
        .take(MAX_FINDINGS)
        .map(|f| {
            let at = f.offset.map(|o| format!(" @{o}")).unwrap_or_default();
            format!(
                "{}[{}]{at} {}",
                f.severity,
                f.rule.code,
                sanitize(&f.message)
            )
        })
        .collect();
    if findings.len() > MAX_FINDINGS {
        lines.push(format!(
            "... and {} more (tab 6 lists them all)",
            findings.len() - MAX_FINDINGS
        ));
    }
    Part {
        heading: format!(
            "Findings: {} errors, {} warnings, {} infos",
            counts.errors, counts.warnings, counts.infos
        ),
        lines,
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
