//! Operators: op types with counts and shares; Enter shows one type in the Graph tab.

use crate::analysis::Analysis;
use crate::inventory::Inventory;
use crate::tui::component::Component;
use crate::tui::event::Event;
use crate::tui::filter::TextFilter;
use crate::tui::filtered_list::FilteredList;
use crate::tui::keys::Action;
use crate::tui::marks::Marks;
use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;
use std::sync::Arc;

/// The Operators tab: the histogram, made once, and the rows the filter keeps.
pub struct OperatorsTab {
    /// Operator types with counts, most frequent first.
    histogram: Vec<(String, u64)>,
    /// Indices into `histogram`.
    list: FilteredList<usize>,
    /// What differs from the model compared with.
    pub(crate) marks: Arc<Marks>,
}

impl OperatorsTab {
    /// The Operators tab of `inv`.
    pub fn new(inv: &Inventory) -> Self {
        let histogram: Vec<(String, u64)> = inv
            .operator_histogram()
            .into_iter()
            .map(|(op, n)| (op.to_owned(), n))
            .collect();
        OperatorsTab {
            list: FilteredList::new((0..histogram.len()).collect()),
            histogram,
            marks: Arc::default(),
        }
    }

    /// The operator types listed, in order.
    pub fn rows(&self) -> impl Iterator<Item = &str> {
        self.list
            .rows()
            .iter()
            .map(|&i| self.histogram[i].0.as_str())
    }
}

impl Component for OperatorsTab {
    fn actions(&self) -> &'static [Action] {
        &[Action::Follow, Action::Copy]
    }

    fn mark(&mut self, marks: &Arc<Marks>) {
        self.marks = Arc::clone(marks);
    }

    fn selection(&self, _: &Analysis) -> Option<String> {
        Some(self.histogram.get(self.list.selected()?)?.0.clone())
    }

    fn handle(&mut self, action: Action, _: &Analysis) -> Option<Event> {
        let hist = &self.histogram;
        let keeps = |filter: &TextFilter| {
            (0..hist.len())
                .filter(|&i| filter.matches(&hist[i].0))
                .collect()
        };
        if self.list.handle(action, keeps) || action != Action::Follow {
            return None;
        }
        let op = &hist[self.list.selected()?].0;
        Some(Event::FilterOperator(op.clone()))
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, _: &Analysis, theme: Theme) {
        let (hist, marks) = (&self.histogram, &self.marks);
        let total: u64 = hist.iter().map(|(_, n)| n).sum::<u64>().max(1);
        let title = " operators (Enter: show in Graph) ";
        self.list.draw(frame, area, title, theme, |i| {
            let (op, n) = &hist[i];
            let share = *n as f64 * 100.0 / total as f64;
            let bar = "█".repeat((share / 2.5).round() as usize);
            Line::from(vec![
                marks.operator(op, theme),
                Span::raw(format!(
                    "{:<28} {n:>9} {share:>6.1}%  {bar}",
                    crate::escape::sanitize(op)
                )),
            ])
        });
    }

    fn filter(&self) -> Option<&TextFilter> {
        Some(self.list.filter())
    }
}
