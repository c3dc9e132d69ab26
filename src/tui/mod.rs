//! `rtenx inspect`: the interactive terminal browser over the format-neutral inventory.
//!
//! The state ([`app`]) is changed only by actions ([`keys`]), and drawing ([`views`]) reads
//! it, so the browser is testable without a terminal (see `tests/tui.rs`).

pub mod app;
mod index;
pub mod keys;
mod overlaps;
mod stats;
pub mod views;

pub use app::{App, Tab};

use crate::analysis::Analysis;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseEventKind,
};
use ratatui::crossterm::execute;
use std::io;
use std::time::Duration;

/// Colours unless `NO_COLOR` is set (to anything but the empty string).
pub fn theme() -> views::Theme {
    views::Theme {
        color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Runs the browser on the terminal until the user quits. The terminal is restored on
/// return and on panic.
pub fn run(analysis: Analysis, tab: Tab) -> io::Result<()> {
    let mut terminal = ratatui::try_init()?;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(io::stdout(), DisableMouseCapture);
        hook(info);
    }));
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let mut app = App::new(analysis, tab);
    let theme = theme();
    let result = (|| -> io::Result<()> {
        let mut redraw = true;
        while !app.quit {
            redraw |= app.poll();
            if redraw {
                terminal.draw(|frame| views::draw(frame, &mut app, theme))?;
                redraw = false;
            }
            // While statistics run, wake up to show progress; otherwise wait for input.
            let timeout = if app.busy() {
                Duration::from_millis(50)
            } else {
                Duration::from_secs(3600)
            };
            if !event::poll(timeout)? {
                continue;
            }
            redraw = true;
            match event::read()? {
                Event::Key(key) if key.kind == KeyEventKind::Press => {
                    if let Some(action) = keys::action(key, &app) {
                        app.apply(action);
                    }
                }
                Event::Mouse(m) => match m.kind {
                    MouseEventKind::ScrollDown => app.apply(keys::Action::Down),
                    MouseEventKind::ScrollUp => app.apply(keys::Action::Up),
                    _ => {}
                },
                _ => {}
            }
        }
        Ok(())
    })();
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}
