//! Sizes: where the model's bytes go, one bar chart per breakdown of the inventory's size
//! tables; Enter on a row that is one tensor shows it in the Tensors tab.

use super::column;
use crate::analysis::Analysis;
use crate::escape::sanitize;
use crate::inventory::display::bits_text;
use crate::inventory::{Inventory, SizeRow};
use crate::tui::component::Component;
use crate::tui::cursor::Cursor;
use crate::tui::event::Event;
use crate::tui::keys::Action;
use crate::tui::list;
use crate::tui::theme::Theme;
use humansize::{format_size, BINARY};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;

/// The widest bar, in cells, drawn for a table's largest row.
const BAR_WIDTH: usize = 32;

/// Columns a label takes.
const LABEL_WIDTH: usize = 40;

/// One line of the tab: a table's heading or one of its rows.
#[derive(Debug, Clone, Copy)]
enum Entry {
    Heading { table: usize },
    Row { table: usize, row: usize },
}

/// The Sizes tab: its lines, made once, and where the list is.
pub struct SizesTab {
    entries: Vec<Entry>,
    /// All the files' bytes, which shares are of.
    whole: u64,
    cursor: Cursor,
}

impl SizesTab {
    /// The Sizes tab of `inv`.
    pub fn new(inv: &Inventory) -> Self {
        let mut entries = Vec::new();
        for (table, t) in inv.sizes.iter().enumerate() {
            entries.push(Entry::Heading { table });
            entries.extend((0..t.rows.len()).map(|row| Entry::Row { table, row }));
        }
        let sizes = inv.files.iter().filter_map(|f| f.size);
        SizesTab {
            entries,
            whole: sizes.fold(0u64, u64::saturating_add).max(1),
            cursor: Cursor::default(),
        }
    }

    fn row<'i>(&self, inv: &'i Inventory, i: usize) -> Option<&'i SizeRow> {
        match self.entries.get(i)? {
            Entry::Row { table, row } => inv.sizes.get(*table)?.rows.get(*row),
            Entry::Heading { .. } => None,
        }
    }

    /// One line: a heading, or a row with its size, share, count and bar.
    fn line(&self, inv: &Inventory, i: usize, theme: Theme) -> Line<'static> {
        let entry = self.entries[i];
        let (table, row) = match entry {
            Entry::Heading { table } => {
                let title = inv.sizes.get(table).map_or("", |t| t.title);
                return Line::styled(format!("Size {title}"), theme.heading());
            }
            Entry::Row { table, row } => (table, row),
        };
        let Some(r) = inv.sizes.get(table).and_then(|t| t.rows.get(row)) else {
            return Line::default();
        };
        let largest = inv.sizes[table]
            .rows
            .iter()
            .map(|r| r.bytes)
            .max()
            .unwrap_or(0);
        let share = r.bytes as f64 * 100.0 / self.whole as f64;
        let items = r.items.map(|n| format!("({n})")).unwrap_or_default();
        let label = column(&sanitize(&r.label.display()), LABEL_WIDTH);
        let bits = match bits_text(&inv.sizes[table], r) {
            bits if bits.is_empty() => bits,
            bits => format!("{bits:>10} "),
        };
        // The bits column takes its width from the bar.
        let cells = bar_cells(r.bytes, largest, BAR_WIDTH - bits.len());
        Line::from(vec![
            Span::raw(format!(
                "  {label:<LABEL_WIDTH$} {:>10} {share:>6.1}% {items:>8} {bits}",
                format_size(r.bytes, BINARY)
            )),
            Span::styled("█".repeat(cells), theme.heading()),
        ])
    }
}

/// Cells of a bar for `bytes` when `largest` fills `width`; at least one for any byte.
fn bar_cells(bytes: u64, largest: u64, width: usize) -> usize {
    if bytes == 0 || largest == 0 {
        return 0;
    }
    let cells = (bytes as u128 * width as u128).div_ceil(largest as u128);
    (cells as usize).clamp(1, width.max(1))
}

impl Component for SizesTab {
    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        if self.cursor.navigate(action, self.entries.len()) || action != Action::Follow {
            return None;
        }
        let row = self.row(&analysis.inventory, self.cursor.selected)?;
        row.tensor.map(Event::ShowTensor)
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        let title = " sizes (Enter on a tensor: show it) ".to_owned();
        let len = self.entries.len();
        let mut cursor = self.cursor;
        list::draw(frame, area, title, &mut cursor, len, theme, |i| {
            self.line(&analysis.inventory, i, theme)
        });
        self.cursor = cursor;
    }

    fn selection(&self, analysis: &Analysis) -> Option<String> {
        let row = self.row(&analysis.inventory, self.cursor.selected)?;
        Some(row.label.display().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::{bar_cells, BAR_WIDTH};

    #[test]
    fn bars_scale_to_the_largest_row_and_show_any_byte() {
        assert_eq!(bar_cells(100, 100, BAR_WIDTH), BAR_WIDTH);
        assert_eq!(bar_cells(50, 100, BAR_WIDTH), BAR_WIDTH / 2);
        assert_eq!(bar_cells(1, u64::MAX, BAR_WIDTH), 1);
        assert_eq!(bar_cells(0, 100, BAR_WIDTH), 0);
        assert_eq!(bar_cells(u64::MAX, u64::MAX, BAR_WIDTH), BAR_WIDTH);
    }
}
