//! The selected tensor's pane: a hex dump of its first bytes, its statistics and histogram.

use super::{Figures, StatsView, TensorsTab};
use crate::escape::sanitize;
use crate::inventory::{Inventory, NodeKind};
use crate::tui::theme::Theme;
use crate::values::Unit;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// Bytes shown in the hex dump.
const HEX_BYTES: usize = 64;

/// The pane of the tensor selected in `tab`, and the rows it takes: seven at least, more
/// for the statistics and their histogram.
pub fn pane(tab: &mut TensorsTab, inv: &Inventory, theme: Theme) -> (Paragraph<'static>, u16) {
    let Some(id) = tab.selected_tensor() else {
        return (Paragraph::default().block(Block::bordered().title(" tensor ")), 7);
    };
    let mut lines = match tab.tensor_bytes(inv, id) {
        Ok(bytes) => hex_dump(&bytes[..bytes.len().min(HEX_BYTES)]),
        Err(e) => vec![Line::styled(e, theme.dim())],
    };
    lines.extend(stats(&tab.stats, id, inv.tensors[id].elements, theme));
    let name = inv.tensors[id].name.display().into_owned();
    let height = (lines.len() + 2).max(7) as u16;
    let title = format!(" {name} · {} ", what(inv, id));
    (Paragraph::new(lines).block(Block::bordered().title(title)), height)
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
            vec![Line::raw(format!("statistics: {pct}%"))]
        }
        StatsView::Done {
            tensor,
            result: Ok(Figures { stats: s, histogram }),
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
            if let Some(h) = histogram {
                lines.push(Line::from(vec![
                    Span::styled(format!("{:.3} ", h.low), theme.dim()),
                    Span::raw(h.bars()),
                    Span::styled(format!(" {:.3}", h.high), theme.dim()),
                ]));
            }
            lines
        }
        StatsView::Done {
            tensor,
            result: Err(e),
        } if *tensor == id => vec![Line::styled(format!("statistics: {e}"), theme.dim())],
        _ => vec![Line::styled(
            "Enter: compute min, max, mean, std, zeros, NaN, Inf and a histogram",
            theme.dim(),
        )],
    }
}
