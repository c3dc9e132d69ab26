//! The screen: the tab bar, the current tab, the key bar and the help overlay.

use super::app::App;
use super::clipboard::Clip;
use super::filter::TextFilter;
use super::help;
use super::keys;
use super::loading;
use super::tabs::Tab;
use super::theme::Theme;
use crate::escape::sanitize;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs};
use ratatui::Frame;
use std::borrow::Cow;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &mut App, theme: Theme) {
    let [bar, body, keys_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    tab_bar(frame, bar, app, theme);
    if let Some(loader) = &app.loader {
        loading::draw(frame, body, &app.analysis, loader, theme);
    } else {
        let current = app.tabs.get(app.tab);
        current.draw(frame, body, &app.analysis, theme);
    }
    let current = app.tabs.view(app.tab);
    let bar = match current.filter().filter(|f| f.typing()) {
        Some(typing) => typing_bar(typing, theme),
        None => key_bar(app.mode(), keys_area.width, theme),
    };
    match app.copied.take() {
        Some(text) => frame.render_widget(copied(&text, theme), keys_area),
        None => frame.render_widget(bar, keys_area),
    }
    if app.help {
        help::draw(frame, frame.area(), &app.tabs, theme);
    }
}

/// The tabs, the current one highlighted, and the file's name on the right.
fn tab_bar(frame: &mut Frame, area: Rect, app: &App, theme: Theme) {
    let titles: Vec<String> = Tab::ALL
        .iter()
        .map(|t| format!("{} {}", t.number(), t.title()))
        .collect();
    let tabs_width = titles
        .iter()
        .map(|t| t.chars().count() as u16 + 3)
        .sum::<u16>();
    let [tabs_area, file_area] =
        Layout::horizontal([Constraint::Length(tabs_width), Constraint::Min(0)]).areas(area);
    frame.render_widget(
        Tabs::new(titles)
            .select(app.tab.number() - 1)
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
        Paragraph::new(Span::styled(sanitize(&file).into_owned(), theme.dim())).right_aligned(),
        file_area,
    );
}

/// What `y` copied, until the next key.
fn copied(text: &Clip, theme: Theme) -> Paragraph<'static> {
    let shown = crate::escape::clip(Cow::Borrowed(text), 80).into_owned();
    Paragraph::new(Line::from(vec![
        Span::styled(" copied ", theme.heading()),
        Span::raw(shown),
    ]))
}

/// The filter being typed.
fn typing_bar(filter: &TextFilter, theme: Theme) -> Paragraph<'static> {
    Paragraph::new(Line::from(vec![
        Span::styled("/", theme.heading()),
        Span::raw(sanitize(filter.text()).into_owned()),
        Span::styled("▏  Enter done · Esc clear", theme.dim()),
    ]))
}

/// The keys that apply in `mode` and fit in `width` columns, most useful first; a binding
/// that does not fit is left out whole, and `?` lists them all.
fn key_bar(mode: keys::Mode, width: u16, theme: Theme) -> Paragraph<'static> {
    let text = |b: &keys::Binding| (format!(" {} ", b.label), format!("{} ", b.help));
    let width_of = |(label, help): &(String, String)| label.chars().count() + help.chars().count();
    // `?` always shows, last, since it lists whatever does not fit.
    let (help_key, others): (Vec<_>, Vec<_>) =
        keys::shown(mode).partition(|b| b.action == keys::Action::Help);
    let help_key: Vec<_> = help_key.into_iter().map(text).collect();
    let mut left = usize::from(width).saturating_sub(help_key.iter().map(width_of).sum());
    let fitting = others.into_iter().map(text).filter(|t| {
        let fits = width_of(t) <= left;
        if fits {
            left -= width_of(t);
        }
        fits
    });
    let mut spans = Vec::new();
    for (label, help) in fitting.collect::<Vec<_>>().into_iter().chain(help_key) {
        spans.push(Span::styled(label, theme.heading()));
        spans.push(Span::styled(help, theme.dim()));
    }
    Paragraph::new(Line::from(spans))
}
