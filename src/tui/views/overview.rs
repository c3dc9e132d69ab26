//! Overview: the same text as `rtenx inspect`'s summary, scrollable.

use super::Theme;
use crate::tui::app::App;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let lines: Vec<Line> = app
        .overview
        .iter()
        .map(|l| {
            let heading = !l.starts_with(' ') && !l.is_empty();
            Line::styled(
                l.clone(),
                if heading {
                    theme.heading()
                } else {
                    Default::default()
                },
            )
        })
        .collect();
    let total = lines.len();
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
