//! Drawing the Graph tab: the node list (virtualised) and the selected node's details.

use super::{GraphTab, Link};
use crate::inventory::display::{attr_text, dims_text, dtype_text, shape_text};
use crate::inventory::{Graph, Inventory, NodeId, NodeKind};
use crate::tui::theme::Theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// One-word description of a node.
fn kind(graph: &Graph, id: NodeId) -> String {
    match graph.node(id).map(|n| &n.kind) {
        Some(NodeKind::Operator(op)) => op.op_type.to_string(),
        Some(NodeKind::Value(_)) => "value".into(),
        Some(NodeKind::Constant { .. }) => "const".into(),
        Some(NodeKind::Unknown { tag }) => format!("?{tag}"),
        None => "missing".into(),
    }
}

fn name(graph: &Graph, id: NodeId) -> String {
    graph
        .node(id)
        .map(|n| n.name.display().into_owned())
        .unwrap_or_default()
}

fn label(graph: &Graph, id: NodeId) -> String {
    format!("#{id} {} \"{}\"", kind(graph, id), name(graph, id))
}

/// Draws `tab` in `area`.
pub fn draw(tab: &mut GraphTab, frame: &mut Frame, area: Rect, inv: &Inventory, theme: Theme) {
    let [list, detail] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    tab.index(inv); // Built once per graph, so that the detail pane below can read it.
    let Some(graph) = inv.graphs.get(tab.graph) else {
        return;
    };
    let mut title = format!(" graph {} ", tab.graph);
    if let Some(parent) = graph.parent {
        title.push_str(&format!(
            "(subgraph of graph {} node {}) ",
            parent.graph, parent.node
        ));
    }
    if let Some(op) = &tab.op_filter {
        title.push_str(&format!("· {op} only "));
    }
    tab.list.draw(frame, list, &title, theme, |id| {
        Line::from(vec![
            Span::styled(format!("{id:>7} "), theme.dim()),
            Span::styled(format!("{:<18} ", kind(graph, id)), theme.heading()),
            Span::raw(name(graph, id)),
        ])
    });
    let lines = match tab.selected_node() {
        Some(id) => details(tab, inv, graph, id, theme),
        None => Vec::new(),
    };
    let title = if lines.is_empty() {
        " node "
    } else {
        " node · h/l choose · Enter jump · b back "
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(title)),
        detail,
    );
}

/// The details of node `id`, with its links numbered in the order [`GraphTab::links`] gives
/// them, the chosen one marked.
fn details(
    tab: &mut GraphTab,
    inv: &Inventory,
    graph: &Graph,
    id: NodeId,
    theme: Theme,
) -> Vec<Line<'static>> {
    let links = tab.links(inv);
    let chosen = tab.link.min(links.len().saturating_sub(1));
    let mut next = 0;
    let mut link_line = |text: String| {
        let line = if next == chosen {
            Line::styled(format!("▶ {text}"), theme.selected())
        } else {
            Line::raw(format!("  {text}"))
        };
        next += 1;
        line
    };
    let mut lines = vec![Line::styled(label(graph, id), theme.heading())];
    let index = tab.index.as_ref();
    match graph.node(id).map(|node| &node.kind) {
        Some(NodeKind::Operator(op)) => {
            if let Some(domain) = &op.domain {
                lines.push(Line::raw(format!("domain {domain}")));
            }
            lines.push(Line::styled("attributes", theme.dim()));
            for a in op.attrs.iter() {
                lines.push(Line::raw(format!(
                    "  {} = {}",
                    a.name,
                    attr_text(inv, &a.value)
                )));
            }
            lines.push(Line::styled("inputs (produced by)", theme.dim()));
            for &input in op.inputs.iter().flatten() {
                let by = index
                    .and_then(|i| i.producer(input))
                    .map_or("graph input or constant".to_owned(), |p| label(graph, p));
                lines.push(link_line(format!("{}  ← {by}", label(graph, input))));
            }
            lines.push(Line::styled("outputs (read by)", theme.dim()));
            for &output in op.outputs.iter().flatten() {
                let readers = index
                    .map_or(&[][..], |i| i.consumers(output))
                    .iter()
                    .map(|&c| format!("#{c}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                lines.push(link_line(format!("{}  → {readers}", label(graph, output))));
            }
            for &g in op.subgraphs.iter() {
                let nodes = inv.graphs.get(g).map_or(0, |g| g.nodes.len());
                lines.push(link_line(format!("subgraph {g} ({nodes} nodes)")));
            }
            return lines;
        }
        Some(NodeKind::Value(v)) => lines.push(Line::raw(format!(
            "{} {}",
            dtype_text(v.dtype),
            shape_text(v.shape.as_deref())
        ))),
        Some(NodeKind::Constant { tensor }) => {
            if let Some(t) = inv.tensors.get(*tensor) {
                lines.push(Line::raw(format!(
                    "{} {} {:?}, {} bytes",
                    dtype_text(t.dtype),
                    dims_text(&t.shape),
                    t.storage,
                    t.byte_size.unwrap_or(0)
                )));
            }
        }
        _ => {}
    }
    lines.push(Line::styled("written by / read by", theme.dim()));
    for link in links {
        if let Link::Node(other) = link {
            lines.push(link_line(label(graph, other)));
        }
    }
    lines
}
