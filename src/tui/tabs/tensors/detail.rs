//! Drawing the selected tensor's pane: a hex dump of its first bytes and its statistics.

use super::{StatsView, TensorsTab};
use crate::escape::sanitize;
use crate::inventory::{Inventory, NodeKind};
use crate::tui::theme::Theme;
use crate::values::Unit;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Bytes shown in the hex dump.
const HEX_BYTES: usize = 64;

/// Draws the pane of the tensor selected in `tab`, in `area`.
pub fn draw(tab: &mut TensorsTab, frame: &mut Frame, area: Rect, inv: &Inventory, theme: Theme) {
    let Some(id) = tab.selected_tensor() else {
        frame.render_widget(Block::bordered().title(" tensor "), area);
        return;
    };
    let mut lines = match tab.tensor_bytes(inv, id) {
        Ok(bytes) => hex_dump(&bytes[..bytes.len().min(HEX_BYTES)]),
        Err(e) => vec![Line::styled(e, theme.dim())],
    };
    lines.extend(stats(&tab.stats, id, inv.tensors[id].elements, theme));
    let name = inv.tensors[id].name.display().into_owned();
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::bordered().title(format!(" {name} · {} ", what(inv, id)))),
        area,
    );
}

/// What tensor `id` is: a weight (an initializer, stored in the file for the graph to read), a
/// constant an operator holds in an attribute, or, in a file without a graph, a tensor.
fn what(inv: &Inventory, id: usize) -> String {
    let t = &inv.tensors[id];
    let graph = inv.graphs.get(t.graph);
    let holder = t.node.and_then(|n| Some((n, graph?.node(n)?.kind)));
    match holder {
        Some((n, NodeKind::Operator(op))) => {
            format!(
                "constant in an attribute of #{n} {}",
                sanitize(op.op_type())
            )
        }
        _ if graph.is_some() => "weight (initializer)".into(),
        _ => "tensor".into(),
    }
}

/// 16 bytes a line: offset, hex and ASCII.
fn hex_dump(bytes: &[u8]) -> Vec<Line<'static>> {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(row, chunk)| {
            let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
            let ascii: String = chunk
                .iter()
                .map(|&b| if b.is_ascii_graphic() { b as char } else { '.' })
                .collect();
            Line::raw(format!("{:>6}  {:<47}  {ascii}", row * 16, hex.join(" ")))
        })
        .collect()
}

/// The statistics of tensor `id`: progress, the figures, why there are none, or how to ask.
/// `claimed` is the element count the tensor's shape gives.
fn stats(view: &StatsView, id: usize, claimed: Option<u64>, theme: Theme) -> Vec<Line<'static>> {
    match view {
        StatsView::Running {
            tensor,
            done,
            total,
        } if *tensor == id => {
            let pct = if *total == 0 { 0 } else { done * 100 / total };
            vec![Line::raw(format!(
                "statistics: {pct}% ({done} of {total} elements)"
            ))]
        }
        StatsView::Done {
            tensor,
            result: Ok(s),
        } if *tensor == id => {
            let figures = match (s.min, s.max, s.mean, s.std) {
                (Some(min), Some(max), Some(mean), Some(std)) => {
                    format!("min {min:.6} · max {max:.6} · mean {mean:.6} · std {std:.6}")
                }
                _ if s.unit == Unit::Blocks => "block scales only: elements not decoded".into(),
                _ => "no finite values".to_owned(),
            };
            let unit = match s.unit {
                Unit::Elements => "elements",
                Unit::Parts => "complex parts",
                Unit::Blocks => "blocks",
            };
            let mut lines = vec![
                Line::raw(figures),
                Line::raw(format!(
                    "zeros {} · NaN {} · Inf {} · subnormal {} · of {} {unit}",
                    s.zeros, s.nan, s.inf, s.subnormal, s.count
                )),
            ];
            let elements = (s.unit == Unit::Elements).then_some(s.count);
            if let Some(claimed) = claimed.filter(|&c| elements.is_some_and(|n| n != c)) {
                let note = format!(
                    "the shape claims {claimed} elements; the stored bytes hold {}",
                    s.count
                );
                lines.push(Line::styled(note, theme.dim()));
            }
            lines
        }
        StatsView::Done {
            tensor,
            result: Err(e),
        } if *tensor == id => vec![Line::styled(format!("statistics: {e}"), theme.dim())],
        _ => vec![Line::styled(
            "Enter: compute min, max, mean, std, zeros, NaN and Inf",
            theme.dim(),
        )],
    }
}
