//! The help overlay, generated from the binding table so that it always matches behaviour.

use super::keys::{self, Scope};
use super::tabs::{Tab, Tabs};
use super::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

/// The Graph tab's search terms (see `tabs::graph::query`).
const QUERY: [(&str, &str); 5] = [
    ("text", "in the name or op type"),
    ("op:Conv", "operators of a type"),
    ("dtype:f16", "values of a type, ops using them"),
    ("shape:1,3,*,*", "the same for a shape"),
    ("group>1 pad=SAME", "attributes: = != < <= > >="),
];

/// Draws every binding in a box centred in `area`, with the tabs it applies in, then the
/// search terms.
pub fn draw(frame: &mut Frame, area: Rect, tabs: &Tabs, theme: Theme) {
    let mut lines: Vec<Line> = keys::BINDINGS
        .iter()
        .filter(|b| !b.label.is_empty())
        .map(|b| {
            let where_ = if b.scope == Scope::Tab {
                let numbers: Vec<String> = (Tab::ALL.into_iter())
                    .filter(|&t| b.applies(&tabs.mode(t)))
                    .map(|t| t.number().to_string())
                    .collect();
                format!("tabs {}", numbers.join(" "))
            } else {
                "all tabs".to_owned()
            };
            Line::from(vec![
                Span::styled(format!("{:<14}", b.label), theme.heading()),
                Span::raw(format!("{:<22}", b.help)),
                Span::styled(where_, theme.dim()),
            ])
        })
        .collect();
    lines.extend(QUERY.iter().map(|&(term, what)| {
        Line::from(vec![
            Span::styled(format!("  {term:<20}"), theme.heading()),
            Span::raw(what),
        ])
    }));
    let height = (lines.len() as u16 + 2).min(area.height);
    let width = 64.min(area.width);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .title(" keys (? or Esc to close) ")
                    .title_bottom(" / in tab 3: rows matching all the terms above "),
            )
            .wrap(Wrap { trim: false }),
        popup,
    );
}
