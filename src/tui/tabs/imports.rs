//! Imports: what loading the file would import and run (a pickle's globals with the calls
//! that use them, code a loader compiles), each with its trust; Enter shows its bytes in the
//! Layout tab.

use crate::analysis::Analysis;
use crate::inventory::{Import, Inventory, Trust};
use crate::tui::component::Component;
use crate::tui::event::Event;
use crate::tui::filter::TextFilter;
use crate::tui::filtered_list::FilteredList;
use crate::tui::keys::Action;
use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::Frame;

/// The Imports tab: the imports the filter keeps (by name, opcode or trust).
pub struct ImportsTab {
    /// Indices into the inventory's imports.
    list: FilteredList<usize>,
}

impl ImportsTab {
    /// The Imports tab of `inv`.
    pub fn new(inv: &Inventory) -> Self {
        ImportsTab {
            list: FilteredList::new((0..inv.imports.len()).collect()),
        }
    }

    /// The imports listed (indices into the inventory's), in order.
    pub fn rows(&self) -> &[usize] {
        self.list.rows()
    }

    /// The selected import (an index into the inventory's).
    pub fn selected_import(&self) -> Option<usize> {
        self.list.selected()
    }

    /// Selects import `index` of `inv`, clearing the filter.
    pub fn show(&mut self, inv: &Inventory, index: usize) {
        self.list.clear_filter();
        self.list.set_rows((0..inv.imports.len()).collect());
        if let Some(row) = self.list.position(index) {
            self.list.select_row(row);
        }
    }
}

/// An import's row: trust, opcode, offset, name, and the first call.
fn line(import: &Import, theme: Theme) -> Line<'static> {
    let color = match import.trust {
        Trust::Unsafe => Color::Red,
        Trust::Module | Trust::Code | Trust::Inert => Color::Yellow,
        _ => Color::Green,
    };
    let call = import.call.map_or_else(String::new, |c| match c.count {
        1 => format!("  ← {} @{}", c.kind, c.offset),
        n => format!("  ← {} @{} and {} more", c.kind, c.offset, n - 1),
    });
    Line::from(vec![
        Span::styled(format!("{:<10} ", import.trust.label()), theme.fg(color)),
        Span::raw(format!(
            "{:<12} {:>10}  {}",
            import.kind,
            format!("@{}", import.offset),
            import.name.display()
        )),
        Span::styled(call, theme.dim()),
    ])
}

impl Component for ImportsTab {
    fn actions(&self) -> &'static [Action] {
        &[Action::Follow, Action::Copy]
    }

    fn receive(&mut self, event: &Event, inv: &Inventory) -> bool {
        let &Event::ShowImport(import) = event else {
            return false;
        };
        self.show(inv, import);
        true
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        let inv = &analysis.inventory;
        let keeps = |filter: &TextFilter| {
            (0..inv.imports.len())
                .filter(|&i| {
                    let import = &inv.imports[i];
                    filter.matches(&import.name.display())
                        || filter.matches(import.kind)
                        || filter.matches(import.trust.label())
                })
                .collect()
        };
        if self.list.handle(action, keeps) || action != Action::Follow {
            return None;
        }
        let import = inv.imports.get(self.list.selected()?)?;
        // The smallest declared section that holds the import's bytes.
        let section = (inv.sections.iter().enumerate())
            .filter(|(_, s)| {
                s.file == import.file
                    && s.kind.is_declared()
                    && s.range.start <= import.offset
                    && import.offset < s.range.end()
            })
            .min_by_key(|(_, s)| s.range.len)?;
        Some(Event::ShowSection(section.0))
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        let imports = &analysis.inventory.imports;
        let title = if imports.is_empty() {
            " imports: loading this file imports and runs no code "
        } else {
            " what loading imports and runs (Enter: show in Layout) "
        };
        self.list
            .draw(frame, area, title, theme, |i| line(&imports[i], theme));
    }

    fn selection(&self, analysis: &Analysis) -> Option<String> {
        let import = analysis.inventory.imports.get(self.list.selected()?)?;
        Some(String::from_utf8_lossy(import.name.as_bytes()).into_owned())
    }

    fn filter(&self) -> Option<&TextFilter> {
        Some(self.list.filter())
    }
}
