//! The Tensors view's detail pane: a hex dump of the first bytes and value statistics.

use super::Theme;
use crate::tui::app::{App, StatsView};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Bytes shown in the hex dump.
const HEX_BYTES: usize = 64;

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let Some(id) = app.selected_tensor() else {
        frame.render_widget(Block::bordered().title(" tensor "), area);
        return;
    };
    let mut lines = Vec::new();
    match app.tensor_bytes(id) {
        Ok(bytes) => {
            let head = &bytes[..bytes.len().min(HEX_BYTES)];
            for (row, chunk) in head.chunks(16).enumerate() {
                let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
                let ascii: String = chunk
                    .iter()
                    .map(|&b| if b.is_ascii_graphic() { b as char } else { '.' })
                    .collect();
                lines.push(Line::raw(format!(
                    "{:>6}  {:<47}  {ascii}",
                    row * 16,
                    hex.join(" ")
                )));
            }
        }
        Err(e) => lines.push(Line::styled(e, theme.dim())),
    }
    match &app.stats {
        StatsView::Running(t, done, total) if *t == id => {
            let pct = if *total == 0 { 0 } else { done * 100 / total };
            lines.push(Line::raw(format!(
                "statistics: {pct}% ({done} of {total} elements)"
            )));
        }
        StatsView::Done(t, Ok(s)) if *t == id => {
            lines.push(Line::raw(format!(
                "min {:.6} · max {:.6} · mean {:.6} · std {:.6}",
                s.min, s.max, s.mean, s.std
            )));
            lines.push(Line::raw(format!(
                "zeros {} · NaN {} · Inf {} · of {} elements",
                s.zeros, s.nans, s.infs, s.count
            )));
        }
        StatsView::Done(t, Err(e)) if *t == id => {
            lines.push(Line::styled(format!("statistics: {e}"), theme.dim()))
        }
        _ => lines.push(Line::styled(
            "Enter: compute min, max, mean, std, zeros, NaN and Inf",
            theme.dim(),
        )),
    }
    let name = app.analysis.inventory.tensors[id]
        .name
        .display()
        .into_owned();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(format!(" {name} "))),
        area,
    );
}
