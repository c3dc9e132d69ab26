//! A scrolling list's position, and the keys that move it.

use super::keys::Action;

/// Where a list is: the selected row, the first row shown, and how many rows fit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Selected row.
    pub selected: usize,
    /// First visible row.
    pub offset: usize,
    /// Rows visible at the last draw: a page.
    height: usize,
}

impl Cursor {
    /// Keeps the selection inside `len` rows, and the first row shown at or above it.
    pub fn limit(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        self.offset = self.offset.min(self.selected);
    }

    /// Fits the cursor to a window of `height` rows over `len`: the selection stays inside
    /// the list and visible, and a page becomes `height` rows.
    pub fn fit(&mut self, len: usize, height: usize) {
        self.height = height.max(1);
        self.limit(len);
        if self.selected >= self.offset + self.height {
            self.offset = self.selected + 1 - self.height;
        }
    }

    /// Moves through `len` rows for a move action; false, and no move, for any other action.
    pub fn navigate(&mut self, action: Action, len: usize) -> bool {
        let page = self.height.max(1) as isize;
        let delta = match action {
            Action::Down => 1,
            Action::Up => -1,
            Action::PageDown => page,
            Action::PageUp => -page,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            _ => return false,
        };
        let target = (self.selected as isize).saturating_add(delta).max(0) as usize;
        self.selected = target.min(len.saturating_sub(1));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_as_high_as_the_list_drawn_and_moves_stay_inside() {
        let mut c = Cursor::default();
        c.fit(100, 10);
        assert!(c.navigate(Action::PageDown, 100));
        assert_eq!(c.selected, 10);
        c.fit(100, 10);
        assert_eq!(c.offset, 1, "the selection is kept visible");
        c.navigate(Action::Bottom, 100);
        assert_eq!(c.selected, 99);
        c.navigate(Action::Up, 100);
        c.limit(5);
        assert_eq!((c.selected, c.offset), (4, 1));
        assert!(!c.navigate(Action::Help, 5));
        c.navigate(Action::Top, 5);
        c.limit(5);
        assert_eq!((c.selected, c.offset), (0, 0));
    }
}
