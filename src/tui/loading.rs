//! What the body of the screen shows while the model is read: the file as far as it is known
//! at once, and what the background thread is doing.

use super::loader::Loader;
use super::theme::Theme;
use crate::analysis::Analysis;
use crate::escape::sanitize;
use humansize::{format_size, BINARY};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// Spinner frames, one every tenth of a second.
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Draws the preview of `analysis` and the state of `loader` in `area`.
pub fn draw(frame: &mut Frame, area: Rect, analysis: &Analysis, loader: &Loader, theme: Theme) {
    let file = analysis.inventory.main_file();
    let size = file.size.map_or_else(
        || "unknown".to_owned(),
        |s| format!("{} ({s} bytes)", format_size(s, BINARY)),
    );
    let field = |name: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("  {name:<8}"), theme.dim()),
            Span::raw(value),
        ])
    };
    let mut lines = vec![
        field(
            "file",
            sanitize(&file.path.display().to_string()).into_owned(),
        ),
        field("size", size),
        field("format", analysis.inventory.format.to_string()),
        Line::default(),
    ];
    let seconds = loader.elapsed().as_secs_f64();
    lines.push(match loader.error() {
        Some(error) => Line::from(vec![
            Span::styled(
                "  cannot read the model: ",
                theme.severity(crate::check::Severity::Error),
            ),
            Span::raw(sanitize(error).into_owned()),
        ]),
        None => {
            let frame_index = (seconds * 10.0) as usize % SPINNER.len();
            Line::from(vec![
                Span::styled(format!("  {} ", SPINNER[frame_index]), theme.heading()),
                Span::raw(format!("{}… {seconds:.1} s", loader.phase().label())),
            ])
        }
    });
    let block = Block::bordered().title(" Opening ");
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
