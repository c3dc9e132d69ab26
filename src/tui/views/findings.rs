//! Findings: the check results, with the selected rule's explanation.

use super::{lists, Theme};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let [list, detail] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let findings = &app.analysis.findings;
    let inv = &app.analysis.inventory;
    let rows = &app.finding_rows;
    let title = super::filtered(" findings (Enter: jump to the item) ", &app.filter);
    let mut cursor = app.cursors[5];
    lists::draw(frame, list, title, &mut cursor, rows.len(), theme, |i| {
        let f = &findings[rows[i]];
        let at = f.offset.map(|o| format!("@{o} ")).unwrap_or_default();
        Line::from(vec![
            Span::styled(
                format!("{:<7} {} ", f.severity.name(), f.rule.code),
                theme.severity(f.severity),
            ),
            Span::raw(format!("{at}{}", crate::escape::sanitize(&f.message))),
        ])
    });
    app.cursors[5] = cursor;
    let selected = rows.get(cursor.selected).and_then(|&i| findings.get(i));
    let text: Vec<Line> = selected.map_or_else(Vec::new, |f| {
        let item = f.item.map(|i| i.describe(inv)).unwrap_or_default();
        vec![
            Line::styled(
                format!("{} {} ({})", f.rule.code, f.rule.name, f.rule.summary),
                theme.heading(),
            ),
            Line::raw(format!("at: {item}")),
            Line::raw(crate::escape::sanitize(&f.message).into_owned()),
            Line::raw(""),
            Line::raw(f.rule.explanation),
        ]
    });
    frame.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" why ")),
        detail,
    );
}
