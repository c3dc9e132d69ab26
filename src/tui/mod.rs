//! `rtenx inspect`: the interactive terminal browser over the format-neutral inventory.
//!
//! Each tab owns its state ([`tabs`]) behind one trait ([`component`]). Keys become actions
//! ([`keys`]), the app ([`app`]) gives each action to the current tab, and a tab that wants
//! another tab shown returns an [`event::Event`] that the app carries out. Drawing
//! ([`draw`]) reads the same state, so the browser is testable without a terminal (see
//! `tests/tui.rs`).

pub mod app;
pub mod chooser;
pub mod clipboard;
pub mod component;
mod cursor;
pub mod event;
mod files;
pub mod filter;
pub mod filtered_list;
mod help;
pub mod keys;
mod list;
pub mod loader;
mod loading;
mod marks;
mod screen;
pub mod tabs;
#[cfg(unix)]
#[allow(unsafe_code)] // Signal handlers that restore the terminal, each call documented.
mod terminal;
mod theme;

pub use app::App;
use chooser::Chooser;
use ratatui::crossterm::event::KeyCode::{Down, Up};
pub use screen::draw;
pub use tabs::Tab;
pub use theme::Theme;

use keys::Action;
use ratatui::crossterm::event::{
    self as terminal_event, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind,
    MouseEventKind,
};
use ratatui::crossterm::execute;
use std::io;
use std::time::Duration;

/// Runs `body` on the terminal, set up for the browser, and restores it on return, on panic
/// and on a signal that ends the process.
fn session<T>(body: impl FnOnce(&mut ratatui::DefaultTerminal) -> io::Result<T>) -> io::Result<T> {
    #[cfg(unix)]
    terminal::arm();
    let mut terminal = ratatui::try_init().inspect_err(|_| {
        #[cfg(unix)]
        terminal::disarm();
    })?;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(io::stdout(), DisableMouseCapture);
        hook(info);
    }));
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let result = body(&mut terminal);
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    #[cfg(unix)]
    terminal::disarm();
    result
}

/// Asks which of `items` (one line for each model) to open, under `title`; `None` if the
/// user left.
pub fn choose(title: &str, items: &[String]) -> io::Result<Option<usize>> {
    let mut chooser = Chooser::new(title, items.to_vec());
    let theme = Theme::from_env();
    session(|terminal| loop {
        if let Some(answer) = chooser.answer {
            return Ok(answer);
        }
        terminal.draw(|frame| chooser.draw(frame, theme))?;
        match terminal_event::read()? {
            Event::Key(key) if key.kind == KeyEventKind::Press => chooser.key(key),
            Event::Mouse(m) if m.kind == MouseEventKind::ScrollDown => chooser.key(Down.into()),
            Event::Mouse(m) if m.kind == MouseEventKind::ScrollUp => chooser.key(Up.into()),
            _ => {}
        }
    })
}

/// Runs the browser `app` on the terminal until the user quits, and gives it back. The
/// terminal is restored on return, on panic and on a signal that ends the process.
pub fn run(mut app: App) -> io::Result<App> {
    let theme = Theme::from_env();
    session(|terminal| {
        let mut redraw = true;
        while !app.quit {
            let loading = app.loader.is_some();
            redraw |= app.poll();
            if loading && app.loader.is_none() {
                // The model replaces the loading screen: draw it whole, not as a diff.
                // (`clear` would ask the terminal where its cursor is, which not every
                // terminal answers; a resize to the same size clears without asking.)
                let size = terminal.size()?;
                terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
            }
            if redraw {
                terminal.draw(|frame| draw(frame, &mut app, theme))?;
                redraw = false;
            }
            // While the model is read or statistics run, wake up to show progress; otherwise
            // wait for input.
            let timeout = if app.busy() {
                Duration::from_millis(50)
            } else {
                Duration::from_secs(3600)
            };
            if !terminal_event::poll(timeout)? {
                // The loading screen shows the time passing.
                redraw |= app.loader.is_some();
                continue;
            }
            redraw = true;
            match terminal_event::read()? {
                Event::Key(key) if key.kind == KeyEventKind::Press => {
                    app.key(key);
                    if let Some(text) = &app.copied {
                        use std::io::Write;
                        let mut out = io::stdout();
                        out.write_all(clipboard::osc52(text).as_bytes())?;
                        out.flush()?;
                    }
                }
                Event::Mouse(m) => match m.kind {
                    MouseEventKind::ScrollDown => app.apply(Action::Down),
                    MouseEventKind::ScrollUp => app.apply(Action::Up),
                    _ => {}
                },
                _ => {}
            }
        }
        Ok(())
    })
    .map(|()| app)
}
