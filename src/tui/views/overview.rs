//! Overview: the same text as `rtenx inspect`'s summary, scrollable.

use super::Theme;
use crate::tui::app::App;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let mut text = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = crate::summary::write(&mut text, &app.analysis);
    let text = String::from_utf8_lossy(&text).into_owned();
    let lines: Vec<Line> = text
        .lines()
        .map(|l| {
            let heading = !l.starts_with(' ') && !l.is_empty();
            Line::styled(
                l.to_owned(),
                if heading {
                    theme.heading()
                } else {
                    Default::default()
                },
            )
        })
        .collect();
    let total = lines.len();
    app.overview_lines = total;
    let height = area.height.saturating_sub(2) as usize;
    let cursor = app.cursor();
    cursor.selected = cursor.selected.min(total.saturating_sub(height));
    let scroll = cursor.selected as u16;
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((scroll, 0))
            .block(Block::bordered().title(" Overview ")),
        area,
    );
}
