//! A virtualised list: only the visible rows are built.

use super::cursor::Cursor;
use super::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Draws `len` rows in `area` inside a bordered block titled `title`, building only the rows
/// that fit: `row(i)` is called for visible indices only.
pub fn draw<'a>(
    frame: &mut Frame,
    area: Rect,
    title: String,
    cursor: &mut Cursor,
    len: usize,
    theme: Theme,
    mut row: impl FnMut(usize) -> Line<'a>,
) {
    let height = area.height.saturating_sub(2) as usize;
    cursor.fit(len, height);
    let mut lines: Vec<Line> = (cursor.offset..len.min(cursor.offset + height))
        .map(|i| {
            let line = row(i);
            if i == cursor.selected {
                line.style(theme.selected())
            } else {
                line
            }
        })
        .collect();
    if len == 0 {
        // An empty list says so, in the first word of its title ("no findings").
        let what = title.split_whitespace().next().unwrap_or("rows");
        let what = what.trim_end_matches(|c: char| !c.is_alphanumeric());
        lines.push(Line::styled(format!("no {what}"), theme.dim()));
    }
    let position = if len == 0 {
        "empty".to_owned()
    } else {
        format!("{}/{len}", cursor.selected + 1)
    };
    let block = Block::bordered()
        .title(title)
        .title_bottom(Line::from(position).right_aligned());
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
