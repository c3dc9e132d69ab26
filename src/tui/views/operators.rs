//! Operators: op types with counts and shares.

use super::{lists, Theme};
use crate::tui::app::App;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::Frame;

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let hist = &app.histogram;
    let rows = &app.op_rows;
    let total: u64 = hist.iter().map(|(_, n)| n).sum::<u64>().max(1);
    let title = super::filtered(" operators (Enter: show in Graph) ", &app.filter);
    let mut cursor = app.cursors[3];
    lists::draw(frame, area, title, &mut cursor, rows.len(), theme, |i| {
        let (op, n) = &hist[rows[i]];
        let share = *n as f64 * 100.0 / total as f64;
        let bar = "█".repeat((share / 2.5).round() as usize);
        Line::raw(format!(
            "{:<28} {n:>9} {share:>6.1}%  {bar}",
            crate::escape::sanitize(op)
        ))
    });
    app.cursors[3] = cursor;
}
