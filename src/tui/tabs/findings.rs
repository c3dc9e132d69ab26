//! Findings: the check results, with the selected rule's explanation (J and K scroll it);
//! Enter jumps to the node, tensor, section or import at fault.

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
    /// The explanation's first line shown, and the finding it explains.
    why: (u16, Option<usize>),
}

impl FindingsTab {
    /// The Findings tab listing `findings`.
    pub fn new(findings: &[Finding]) -> Self {
        FindingsTab {
            list: FilteredList::new((0..findings.len()).collect()),
            why: (0, None),
        }
    }

    /// The findings listed (indices into the findings), in order.
    pub fn rows(&self) -> &[usize] {
        self.list.rows()
    }
}

impl Component for FindingsTab {
    fn actions(&self) -> &'static [Action] {
        &[Action::Follow, Action::DetailDown, Action::DetailUp, Action::Copy]
    }

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
        match action {
            Action::DetailDown => self.why.0 = self.why.0.saturating_add(1),
            Action::DetailUp => self.why.0 = self.why.0.saturating_sub(1),
            _ => {}
        }
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
        // A new finding's explanation starts at its top; scrolling stops at its last line.
        let selected = self.list.selected();
        if self.why.1 != selected {
            self.why = (0, selected);
        }
        let why = Paragraph::new(text).wrap(Wrap { trim: true });
        let inner = detail.height.saturating_sub(2);
        let lines = why.line_count(detail.width.saturating_sub(2));
        let last = u16::try_from(lines)
            .unwrap_or(u16::MAX)
            .saturating_sub(inner);
        self.why.0 = self.why.0.min(last);
        let title = match last {
            0 => " why ".to_owned(),
            _ => format!(" why · J K scroll · line {} of {lines} ", self.why.0 + 1),
        };
        frame.render_widget(
            why.scroll((self.why.0, 0))
                .block(Block::bordered().title(title)),
            detail,
        );
    }

    fn filter(&self) -> Option<&TextFilter> {
        Some(self.list.filter())
    }
}
