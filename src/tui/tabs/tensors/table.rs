//! Drawing the Tensors table: a header line and the rows (virtualised).

use super::TensorsTab;
use crate::check::Severity;
use crate::inventory::display::{dims_text, dtype_text};
use crate::inventory::{Inventory, TensorId};
use crate::tui::theme::Theme;
use humansize::{format_size, BINARY};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::collections::HashSet;

/// Draws the column header in `header` and the rows of `tab` in `area`.
pub fn draw(
    tab: &mut TensorsTab,
    frame: &mut Frame,
    [header, area]: [Rect; 2],
    inv: &Inventory,
    theme: Theme,
) {
    let sort = tab.sort;
    // Tensors the model's architecture does not expect are marked with `!`.
    let unexpected: HashSet<TensorId> = (inv.architecture.iter())
        .flat_map(|a| a.unexpected.iter().copied())
        .collect();
    let flagged = if unexpected.is_empty() {
        String::new()
    } else {
        format!(
            "{} not expected by the architecture (!) · ",
            unexpected.len()
        )
    };
    let title = format!(
        " tensors · {flagged}sorted by {} {} (s: column, r: reverse) ",
        sort.column.title(),
        if sort.descending { "↓" } else { "↑" },
    );
    // Fixed columns take 64 cells (74 with elements, shown from 100 columns); the name
    // gets the rest.
    let wide = area.width >= 100;
    // A compared model's rows start with a two-cell mark.
    let gutter = if tab.marks.compared { 2 } else { 0 } + if flagged.is_empty() { 0 } else { 2 };
    let fixed = if wide { 74 } else { 64 } + gutter;
    let name_width = (area.width as usize).saturating_sub(fixed + 2).max(8);
    let elements_header = if wide {
        format!(" {:>9}", "elements")
    } else {
        String::new()
    };
    let columns = format!(
        " {:gutter$}{:<name_width$} {:<5} {:<8} {:<16}{elements_header} {:>10} {:>6} {:>12}",
        "", "name", "dtype", "storage", "shape", "bytes", "align", "offset"
    );
    frame.render_widget(
        Paragraph::new(Line::styled(columns, theme.heading())),
        header,
    );
    let marks = &tab.marks;
    tab.list.draw(frame, area, &title, theme, |id| {
            let t = &inv.tensors[id];
            let dtype = dtype_text(t.dtype);
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
            let shape: String = dims_text(&t.shape).chars().take(16).collect();
            let flag = match (unexpected.is_empty(), unexpected.contains(&id)) {
                (true, _) => Span::raw(""),
                (false, true) => Span::styled("! ", theme.severity(Severity::Error)),
                (false, false) => Span::raw("  "),
            };
            Line::from(vec![
                marks.tensor(id, theme),
                flag,
                Span::raw(format!("{name:<name_width$} {dtype:<5} {storage:<8} {shape:<16}{elements} {bytes:>10} {align:>6} {offset:>12}")),
            ])
    });
}
