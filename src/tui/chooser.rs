//! The chooser `rtenx inspect FOLDER` shows when the folder holds several models: their
//! paths in a list; Enter opens the one selected, q or Esc leaves.

use super::cursor::Cursor;
use super::keys::{self, Action, Mode};
use super::theme::Theme;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout};
use ratatui::text::Line;
use ratatui::Frame;

/// The models to choose from and where the list is.
pub struct Chooser {
    title: String,
    items: Vec<String>,
    cursor: Cursor,
    /// Once answered: the model chosen, or `None` if the user left.
    pub answer: Option<Option<usize>>,
}

impl Chooser {
    /// A chooser titled `title` over `items`, shown as given (escaped when drawn).
    pub fn new(title: &str, items: Vec<String>) -> Self {
        Chooser {
            title: crate::escape::sanitize(title).into_owned(),
            items,
            cursor: Cursor::default(),
            answer: None,
        }
    }

    /// The row selected.
    pub fn selected(&self) -> usize {
        self.cursor.selected
    }

    /// Applies `key`: moves, Enter to choose, q, Esc or Ctrl-C to leave.
    pub fn key(&mut self, key: KeyEvent) {
        if key.code == KeyCode::Enter {
            self.answer = Some(Some(self.cursor.selected).filter(|&i| i < self.items.len()));
            return;
        }
        let mode = Mode {
            actions: &[],
            searchable: false,
            help: false,
            typing: false,
            filtered: false,
        };
        match keys::action(key, mode) {
            Some(Action::Quit) => self.answer = Some(None),
            Some(action) => {
                self.cursor.navigate(action, self.items.len());
            }
            None => {}
        }
    }

    /// Draws the list and a key bar.
    pub fn draw(&mut self, frame: &mut Frame, theme: Theme) {
        let [list, bar] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(frame.area());
        let title = format!(" {} · Enter open ", self.title);
        let items = &self.items;
        super::list::draw(
            frame,
            list,
            title,
            &mut self.cursor,
            items.len(),
            theme,
            |i| Line::raw(crate::escape::sanitize(&items[i]).into_owned()),
        );
        let keys = " ↑↓ choose  Enter open  q Esc leave";
        frame.render_widget(Line::styled(keys, theme.dim()), bar);
    }
}
