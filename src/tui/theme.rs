//! Styles, honouring `NO_COLOR`: without colour only bold and reverse video are used.

use crate::check::Severity;
use ratatui::style::{Color, Modifier, Style};

/// The browser's styles.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    /// Use colours.
    pub color: bool,
}

impl Theme {
    /// Colours unless `NO_COLOR` is set (to anything but the empty string).
    pub fn from_env() -> Self {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    /// Text in `color`, or plain text without colours.
    pub fn fg(self, color: Color) -> Style {
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
    pub fn severity(self, s: Severity) -> Style {
        self.fg(match s {
            Severity::Error => Color::Red,
            Severity::Warning => Color::Yellow,
            Severity::Info => Color::Blue,
        })
        .add_modifier(Modifier::BOLD)
    }
}
