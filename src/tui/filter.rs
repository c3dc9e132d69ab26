//! A list's text filter, typed after `/`.

use super::keys::Action;
use crate::inventory::Name;

/// The text a tab's rows must contain, ignoring case.
#[derive(Debug, Clone, Default)]
pub struct TextFilter {
    text: String,
    lowercase: String,
    typing: bool,
}

impl TextFilter {
    /// The filter as typed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True while the filter is being typed.
    pub fn typing(&self) -> bool {
        self.typing
    }

    /// True if the filter keeps every row.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Empties the filter.
    pub fn clear(&mut self) {
        self.text.clear();
        self.lowercase.clear();
    }

    /// Applies a filter action: `Some(true)` after an edit of the text, when the rows must
    /// be made again, `Some(false)` for starting or ending typing, `None` for any other action.
    pub fn apply(&mut self, action: Action) -> Option<bool> {
        match action {
            Action::Filter | Action::EndTyping => {
                self.typing = action == Action::Filter;
                return Some(false);
            }
            Action::Type(c) => self.text.push(c),
            Action::Erase => {
                self.text.pop();
            }
            Action::ClearFilter => {
                self.typing = false;
                self.text.clear();
            }
            _ => return None,
        }
        self.lowercase = self.text.to_lowercase();
        Some(true)
    }

    /// True if `text` contains the filter, ignoring case.
    pub fn matches(&self, text: &str) -> bool {
        self.lowercase.is_empty() || text.to_lowercase().contains(&self.lowercase)
    }

    /// [`Self::matches`] for a name from the file, made into text only if there is a filter.
    pub fn matches_name(&self, name: &Name) -> bool {
        self.lowercase.is_empty() || self.matches(&name.display())
    }

    /// `title` with the filter appended, if there is one.
    pub fn title(&self, title: &str) -> String {
        if self.text.is_empty() {
            title.to_owned()
        } else {
            format!("{title}· /{} ", crate::escape::sanitize(&self.text))
        }
    }
}
