//! What every tab is: state of its own that actions change and that draws itself.

use super::event::Event;
use super::filter::TextFilter;
use super::keys::Action;
use super::marks::Marks;
use super::theme::Theme;
use crate::analysis::Analysis;
use crate::inventory::Inventory;
use ratatui::layout::Rect;
use ratatui::Frame;
use std::sync::Arc;

/// One tab: its rows, cursor, filter and sort, and how to draw them.
pub trait Component {
    /// Applies `action` to the tab; a move to another tab comes back as an event.
    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event>;

    /// Draws the tab in `area`, building only the rows that are visible.
    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme);

    /// The actions of the key table's tab bindings ([`Scope::Tab`](super::keys::Scope)) the
    /// tab takes now, besides moving, which every tab takes, and `/`, which every tab with a
    /// [`filter`](Component::filter) takes.
    fn actions(&self) -> &'static [Action] {
        &[]
    }

    /// Takes `event` if it is a move to this tab; true if the tab should then be shown.
    fn receive(&mut self, _event: &Event, _inv: &Inventory) -> bool {
        false
    }

    /// Marks what differs from the model compared with (`inspect --diff`).
    fn mark(&mut self, _marks: &Arc<Marks>) {}

    /// Takes the news of the tab's background work; true if it should be redrawn.
    fn poll(&mut self) -> bool {
        false
    }

    /// True while the tab's background work runs.
    fn busy(&self) -> bool {
        false
    }

    /// The tab's text filter, if it has one.
    fn filter(&self) -> Option<&TextFilter> {
        None
    }

    /// The text of the selected row that `y` copies: a name, an op type or a message, as
    /// the file has it; the app escapes it ([`super::clipboard::Clip`]).
    fn selection(&self, _analysis: &Analysis) -> Option<String> {
        None
    }

    /// True if a filter hides rows, so that Esc clears it instead of quitting.
    fn filtered(&self) -> bool {
        self.filter().is_some_and(|f| !f.is_empty())
    }
}
