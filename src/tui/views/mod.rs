//! Drawing: the frame (tab bar, body, key bar, help) and one module per tab.

mod findings;
mod graph;
mod layout;
mod lists;
mod operators;
mod overview;
mod tensors;
mod tensors_detail;

use super::app::{App, Tab};
use super::keys;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Tabs, Wrap};
use ratatui::Frame;

/// Styles, honouring `NO_COLOR`: without colour only bold and reverse video are used.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    /// Use colours.
    pub color: bool,
}

impl Theme {
    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// The selected row.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Headings.
    pub fn heading(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Secondary text.
    pub fn dim(self) -> Style {
        self.fg(Color::DarkGray)
    }

    /// A severity's colour.
    pub fn severity(self, s: crate::check::Severity) -> Style {
        use crate::check::Severity::*;
        self.fg(match s {
            Error => Color::Red,
            Warning => Color::Yellow,
            Info => Color::Blue,
        })
        .add_modifier(Modifier::BOLD)
    }
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &mut App, theme: Theme) {
    let [bar, body, keys_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let titles: Vec<String> = Tab::ALL
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{} {}", i + 1, t.title()))
        .collect();
    let tabs_width = titles
        .iter()
        .map(|t| t.chars().count() as u16 + 3)
        .sum::<u16>();
    let selected = Tab::ALL.iter().position(|t| *t == app.tab).unwrap_or(0);
    let [tabs_area, file_area] =
        Layout::horizontal([Constraint::Length(tabs_width), Constraint::Min(0)]).areas(bar);
    frame.render_widget(
        Tabs::new(titles)
            .select(selected)
            .highlight_style(theme.selected())
            .divider("│"),
        tabs_area,
    );
    let path = &app.analysis.inventory.main_file().path;
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    frame.render_widget(
        Paragraph::new(Span::styled(
            crate::text::sanitize(&file).into_owned(),
            theme.dim(),
        ))
        .right_aligned(),
        file_area,
    );
    app.page = body.height.saturating_sub(3) as usize;
    match app.tab {
        Tab::Overview => overview::draw(frame, body, app, theme),
        Tab::Layout => layout::draw(frame, body, app, theme),
        Tab::Graph => graph::draw(frame, body, app, theme),
        Tab::Operators => operators::draw(frame, body, app, theme),
        Tab::Tensors => tensors::draw(frame, body, app, theme),
        Tab::Findings => findings::draw(frame, body, app, theme),
    }
    frame.render_widget(key_bar(app, theme), keys_area);
    if app.help {
        help(frame, body, theme);
    }
}

fn key_bar(app: &App, theme: Theme) -> Paragraph<'static> {
    if app.typing {
        return Paragraph::new(Line::from(vec![
            Span::styled("/", theme.heading()),
            Span::raw(crate::text::sanitize(&app.filter).into_owned()),
            Span::styled("▏  Enter done · Esc clear", theme.dim()),
        ]));
    }
    let mut spans = Vec::new();
    for b in keys::shown(app.tab) {
        spans.push(Span::styled(format!(" {} ", b.label), theme.heading()));
        spans.push(Span::styled(format!("{} ", b.help), theme.dim()));
    }
    Paragraph::new(Line::from(spans))
}

fn help(frame: &mut Frame, area: Rect, theme: Theme) {
    let lines: Vec<Line> = keys::BINDINGS
        .iter()
        .filter(|b| !b.label.is_empty())
        .map(|b| {
            let where_ = if b.tabs.is_empty() || b.tabs.len() == Tab::ALL.len() {
                "all tabs".to_owned()
            } else {
                let numbers: Vec<String> = b
                    .tabs
                    .iter()
                    .map(|t| (Tab::ALL.iter().position(|x| x == t).unwrap_or(0) + 1).to_string())
                    .collect();
                format!("tabs {}", numbers.join(" "))
            };
            Line::from(vec![
                Span::styled(format!("{:<14}", b.label), theme.heading()),
                Span::raw(format!("{:<22}", b.help)),
                Span::styled(where_, theme.dim()),
            ])
        })
        .collect();
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
            .block(Block::bordered().title(" keys (? or Esc to close) "))
            .wrap(Wrap { trim: false }),
        popup,
    );
}

/// A list title with the active filter appended.
pub fn filtered(title: &str, filter: &str) -> String {
    if filter.is_empty() {
        title.to_owned()
    } else {
        format!("{title}· /{} ", crate::text::sanitize(filter))
    }
}
