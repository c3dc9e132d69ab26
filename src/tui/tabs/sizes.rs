//! Sizes: where the model's bytes go, one bar chart per breakdown of the inventory's size
//! tables; Enter on a row that is one tensor shows it in the Tensors tab.

use super::column;
use crate::analysis::Analysis;
use crate::escape::sanitize;
use crate::inventory::display::bits_text;
use crate::inventory::{Inventory, ScopeTree, SizeRow, SizeTable};
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

/// The table by scope at a depth the user chose, and the tree it comes from.
struct ByScope {
    /// Index of the table by scope in the inventory's tables.
    table: usize,
    tree: ScopeTree,
    depth: u32,
    rows: SizeTable,
}

/// The Sizes tab: its lines, made once, and where the list is.
pub struct SizesTab {
    entries: Vec<Entry>,
    /// The table by scope once `+` or `-` chose its depth.
    by_scope: Option<ByScope>,
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
            by_scope: None,
            whole: sizes.fold(0u64, u64::saturating_add).max(1),
            cursor: Cursor::default(),
        }
    }

    /// Table `table`: the inventory's, or the table by scope at the depth chosen.
    fn table<'a>(&'a self, inv: &'a Inventory, table: usize) -> Option<&'a SizeTable> {
        match &self.by_scope {
            Some(b) if b.table == table => Some(&b.rows),
            _ => inv.sizes.get(table),
        }
    }

    fn row<'a>(&'a self, inv: &'a Inventory, i: usize) -> Option<&'a SizeRow> {
        match self.entries.get(i)? {
            Entry::Row { table, row } => self.table(inv, *table)?.rows.get(*row),
            Entry::Heading { .. } => None,
        }
    }

    /// `+` or `-`: the table by scope one level deeper or shallower (the tree is built the
    /// first time), its rows listed again.
    fn deepen(&mut self, inv: &Inventory, step: i32) {
        let Some(table) = inv.sizes.iter().position(|t| t.title == "by scope") else {
            return;
        };
        let b = self.by_scope.get_or_insert_with(|| {
            let tree = ScopeTree::build(inv);
            let depth = tree.dividing_depth();
            let rows = inv.sizes[table].clone();
            ByScope {
                table,
                tree,
                depth,
                rows,
            }
        });
        let deepest = b.tree.scopes.iter().map(|s| s.depth).max().unwrap_or(1);
        b.depth = b.depth.saturating_add_signed(step).clamp(1, deepest.max(1));
        b.rows = SizeTable::by_scope(&b.tree, b.depth);
        let mut entries = Vec::new();
        for t in 0..inv.sizes.len() {
            let rows = self.table(inv, t).map_or(0, |t| t.rows.len());
            entries.push(Entry::Heading { table: t });
            entries.extend((0..rows).map(|row| Entry::Row { table: t, row }));
        }
        self.entries = entries;
        self.cursor.limit(self.entries.len());
    }

    /// One line: a heading, or a row with its size, share, count and bar.
    fn line(&self, inv: &Inventory, i: usize, theme: Theme) -> Line<'static> {
        let entry = self.entries[i];
        let (table, row) = match entry {
            Entry::Heading { table } => {
                let title = self.table(inv, table).map_or("", |t| t.title);
                let depth = match &self.by_scope {
                    Some(b) if b.table == table => format!(", {} deep", b.depth),
                    _ => String::new(),
                };
                let keys = if title == "by scope" {
                    " (+ - deeper, shallower)"
                } else {
                    ""
                };
                return Line::styled(format!("Size {title}{depth}{keys}"), theme.heading());
            }
            Entry::Row { table, row } => (table, row),
        };
        let Some(t) = self.table(inv, table) else {
            return Line::default();
        };
        let Some(r) = t.rows.get(row) else {
            return Line::default();
        };
        let largest = t.rows.iter().map(|r| r.bytes).max().unwrap_or(0);
        let share = r.bytes as f64 * 100.0 / self.whole as f64;
        let items = r.items.map(|n| format!("({n})")).unwrap_or_default();
        let label = column(&sanitize(&r.label.display()), LABEL_WIDTH);
        let bits = match bits_text(t, r) {
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
    fn actions(&self) -> &'static [Action] {
        &[Action::Follow, Action::Deeper, Action::Shallower, Action::Copy]
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        match action {
            Action::Deeper => self.deepen(&analysis.inventory, 1),
            Action::Shallower => self.deepen(&analysis.inventory, -1),
            _ => {}
        }
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
