//! Findings: the check results, with the selected rule's explanation; Enter jumps to the
//! node, tensor, section or import at fault.

use crate::analysis::Analysis;
use crate::check::{DocBlock, Finding, Item};
use crate::tui::component::Component;
use crate::tui::event::Event;
use crate::tui::filter::TextFilter;
use crate::tui::filtered_list::FilteredList;
use crate::tui::keys::Action;
use crate::tui::theme::Theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// The Findings tab: the findings the filter keeps (by message, code or rule name).
pub struct FindingsTab {
    /// Indices into the findings.
    list: FilteredList<usize>,
}

impl FindingsTab {
    /// The Findings tab listing `findings`.
    pub fn new(findings: &[Finding]) -> Self {
        FindingsTab {
            list: FilteredList::new((0..findings.len()).collect()),
        }
    }

    /// The findings listed (indices into the findings), in order.
    pub fn rows(&self) -> &[usize] {
        self.list.rows()
    }
}

impl Component for FindingsTab {
    fn selection(&self, analysis: &Analysis) -> Option<String> {
        let f = analysis.findings.get(self.list.selected()?)?;
        Some(format!("{} {}", f.rule.code, f.message))
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        let findings = &analysis.findings;
        let keeps = |filter: &TextFilter| {
            (0..findings.len())
                .filter(|&i| {
                    let f = &findings[i];
                    filter.matches(&f.message)
                        || filter.matches(f.rule.code)
                        || filter.matches(f.rule.name)
                })
                .collect()
        };
        if self.list.handle(action, keeps) || action != Action::Follow {
            return None;
        }
        match findings[self.list.selected()?].item? {
            Item::Node { graph, node } => Some(Event::ShowNode { graph, node }),
            Item::Tensor { tensor } => Some(Event::ShowTensor(tensor)),
            Item::Section { section } => Some(Event::ShowSection(section)),
            Item::Import { import } => Some(Event::ShowImport(import)),
            Item::Field { .. } | Item::Graph { .. } | Item::GraphRef { .. } => None,
        }
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        let [list, detail] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
        let findings = &analysis.findings;
        let title = " findings (Enter: jump to the item) ";
        self.list.draw(frame, list, title, theme, |i| {
            let f = &findings[i];
            let at = f.offset.map(|o| format!("@{o} ")).unwrap_or_default();
            Line::from(vec![
                Span::styled(
                    format!("{:<7} {} ", f.severity.name(), f.rule.code),
                    theme.severity(f.severity),
                ),
                Span::raw(format!("{at}{}", crate::escape::sanitize(&f.message))),
            ])
        });
        let text: Vec<Line> = self.list.selected().map_or_else(Vec::new, |i| {
            let f = &findings[i];
            let item = f
                .item
                .map(|i| i.describe(&analysis.inventory))
                .unwrap_or_default();
            let mut lines = vec![
                Line::styled(
                    format!("{} {} ({})", f.rule.code, f.rule.name, f.rule.summary),
                    theme.heading(),
                ),
                Line::raw(format!("at: {item}")),
                Line::raw(crate::escape::sanitize(&f.message).into_owned()),
            ];
            for block in f.rule.blocks() {
                match block {
                    DocBlock::Heading(text) => {
                        lines.push(Line::raw(""));
                        lines.push(Line::styled(text, theme.heading()));
                    }
                    DocBlock::Paragraph(text) => lines.push(Line::raw(text)),
                }
            }
            lines
        });
        frame.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .block(Block::bordered().title(" why ")),
            detail,
        );
    }

    fn filter(&self) -> Option<&TextFilter> {
        Some(self.list.filter())
    }
}
