//! Tensors: a sortable table of constants.

use super::{lists, Theme};
use crate::tui::app::App;
use humansize::{format_size, BINARY};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let inv = &app.analysis.inventory;
    let rows = &app.tensor_rows;
    let (column, descending) = app.tensor_sort;
    let title = format!(
        " tensors · sorted by {} {} (s: column, r: reverse) ",
        column.title(),
        if descending { "↓" } else { "↑" },
    );
    let title = super::filtered(&title, &app.filter);
    let [header, area, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(7),
    ])
    .areas(area);
    // Fixed columns take 64 cells (74 with elements, shown from 100 columns); the name
    // gets the rest.
    let wide = area.width >= 100;
    let fixed = if wide { 74 } else { 64 };
    let name_width = (area.width as usize).saturating_sub(fixed + 2).max(8);
    let elements_header = if wide {
        format!(" {:>9}", "elements")
    } else {
        String::new()
    };
    let columns = format!(
        " {:<name_width$} {:<5} {:<8} {:<16}{elements_header} {:>10} {:>6} {:>12}",
        "name", "dtype", "storage", "shape", "bytes", "align", "offset"
    );
    frame.render_widget(
        Paragraph::new(Line::styled(columns, theme.heading())),
        header,
    );
    let mut cursor = app.cursors[4];
    lists::draw(frame, area, title, &mut cursor, rows.len(), theme, |i| {
        let t = &inv.tensors[rows[i]];
        let dtype = t.dtype.map_or("?".to_owned(), |d| d.to_string());
        let storage = format!("{:?}", t.storage).to_lowercase();
        let (offset, align) = t.data.map_or(("-".to_owned(), "-".to_owned()), |d| {
            (
                d.offset.to_string(),
                (1u64 << d.offset.trailing_zeros().min(12)).to_string(),
            )
        });
        let bytes = t
            .byte_size
            .map_or("?".to_owned(), |b| format_size(b, BINARY));
        let elements = if wide {
            format!(
                " {:>9}",
                t.elements.map_or("?".to_owned(), |e| e.to_string())
            )
        } else {
            String::new()
        };
        let name: String = t.name.display().chars().take(name_width).collect();
        let shape: String = format!("{:?}", t.shape).chars().take(16).collect();
        Line::raw(format!("{name:<name_width$} {dtype:<5} {storage:<8} {shape:<16}{elements} {bytes:>10} {align:>6} {offset:>12}"))
    });
    app.cursors[4] = cursor;
    super::tensors_detail::draw(frame, detail, app, theme);
}
