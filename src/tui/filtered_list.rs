//! A tab's list: the rows its text filter keeps, the cursor over them, and drawing only the
//! visible ones.

use super::cursor::Cursor;
use super::filter::TextFilter;
use super::keys::Action;
use super::list;
use super::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::Frame;

/// Rows of items (indices into the inventory or findings) behind a text filter.
pub struct FilteredList<T> {
    rows: Vec<T>,
    cursor: Cursor,
    filter: TextFilter,
}

impl<T: Copy + PartialEq> FilteredList<T> {
    /// A list of `rows`, unfiltered, at the top.
    pub fn new(rows: Vec<T>) -> Self {
        FilteredList {
            rows,
            cursor: Cursor::default(),
            filter: TextFilter::default(),
        }
    }

    /// The rows, in order.
    pub fn rows(&self) -> &[T] {
        &self.rows
    }

    /// The selected row's item.
    pub fn selected(&self) -> Option<T> {
        self.rows.get(self.cursor.selected).copied()
    }

    /// The row holding `item`.
    pub fn position(&self, item: T) -> Option<usize> {
        self.rows.iter().position(|&r| r == item)
    }

    /// Selects row `row`.
    pub fn select_row(&mut self, row: usize) {
        self.cursor.selected = row;
    }

    /// The text filter.
    pub fn filter(&self) -> &TextFilter {
        &self.filter
    }

    /// Empties the filter; the caller makes the rows again.
    pub fn clear_filter(&mut self) {
        self.filter.clear();
    }

    /// Replaces the rows, keeping the selection inside them.
    pub fn set_rows(&mut self, rows: Vec<T>) {
        self.rows = rows;
        self.cursor.limit(self.rows.len());
    }

    /// Applies a move or a filter action, making the rows again with `make` after an edit of
    /// the filter; false for any other action.
    pub fn handle(&mut self, action: Action, make: impl FnOnce(&TextFilter) -> Vec<T>) -> bool {
        if self.cursor.navigate(action, self.rows.len()) {
            return true;
        }
        let Some(edited) = self.filter.apply(action) else {
            return false;
        };
        if edited {
            self.set_rows(make(&self.filter));
        }
        true
    }

    /// Draws the list in `area` under `title`, with the filter appended; `row` makes the line
    /// of an item, and is called for the visible rows only.
    pub fn draw<'a>(
        &mut self,
        frame: &mut Frame,
        area: Rect,
        title: &str,
        theme: Theme,
        mut row: impl FnMut(T) -> Line<'a>,
    ) {
        let rows = &self.rows;
        let title = self.filter.title(title);
        list::draw(
            frame,
            area,
            title,
            &mut self.cursor,
            rows.len(),
            theme,
            |i| row(rows[i]),
        );
    }
}
