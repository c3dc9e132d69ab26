//! Graph: nodes in order (virtualised), and the selected node's details with its links.

use super::{lists, Theme};
use crate::inventory::display::{attr_text, shape_text};
use crate::inventory::{Graph, NodeKind};
use crate::tui::app::{App, Link};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// One-word description of a node.
fn kind(graph: &Graph, id: u32) -> String {
    match graph.node(id).map(|n| &n.kind) {
        Some(NodeKind::Operator(op)) => op.op_type.to_string(),
        Some(NodeKind::Value(_)) => "value".into(),
        Some(NodeKind::Constant { .. }) => "const".into(),
        Some(NodeKind::Unknown { tag }) => format!("?{tag}"),
        None => "missing".into(),
    }
}

fn label(graph: &Graph, id: u32) -> String {
    let name = graph
        .node(id)
        .map(|n| n.name.display().into_owned())
        .unwrap_or_default();
    format!("#{id} {} \"{name}\"", kind(graph, id))
}

pub fn draw(frame: &mut Frame, area: Rect, app: &mut App, theme: Theme) {
    let [list, detail] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    app.index(); // Built once per graph, so that drawing below can read it.
    let links = app.links();
    let inv = &app.analysis.inventory;
    let Some(graph) = inv.graphs.get(app.graph) else {
        return;
    };
    let mut title = format!(" graph {} ", app.graph);
    if let Some(parent) = graph.parent {
        title.push_str(&format!(
            "(subgraph of graph {} node {}) ",
            parent.graph, parent.node
        ));
    }
    if let Some(op) = &app.op_filter {
        title.push_str(&format!("· {op} only "));
    }
    if !app.filter.is_empty() {
        title.push_str(&format!("· /{} ", crate::text::sanitize(&app.filter)));
    }
    let rows = &app.graph_rows;
    let mut cursor = app.cursors[2];
    lists::draw(frame, list, title, &mut cursor, rows.len(), theme, |i| {
        let id = rows[i];
        let name = graph
            .node(id)
            .map(|n| n.name.display().into_owned())
            .unwrap_or_default();
        Line::from(vec![
            Span::styled(format!("{id:>7} "), theme.dim()),
            Span::styled(format!("{:<18} ", kind(graph, id)), theme.heading()),
            Span::raw(name),
        ])
    });
    app.cursors[2] = cursor;
    let Some(id) = rows.get(cursor.selected).copied() else {
        frame.render_widget(Block::bordered().title(" node "), detail);
        return;
    };
    let mut lines = vec![Line::styled(label(graph, id), theme.heading())];
    let selected_link = app.link.min(links.len().saturating_sub(1));
    let link_line = |n: usize, text: String| {
        if n == selected_link {
            Line::styled(format!("▶ {text}"), theme.selected())
        } else {
            Line::raw(format!("  {text}"))
        }
    };
    let mut n = 0;
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
            let index = app.index_ref();
            for &input in op.inputs.iter().flatten() {
                let by = index
                    .and_then(|i| i.producer(input))
                    .map_or("graph input or constant".to_owned(), |p| label(graph, p));
                lines.push(link_line(n, format!("{}  ← {by}", label(graph, input))));
                n += 1;
            }
            lines.push(Line::styled("outputs (read by)", theme.dim()));
            for &output in op.outputs.iter().flatten() {
                let readers = index
                    .map_or(&[][..], |i| i.consumers(output))
                    .iter()
                    .map(|&c| format!("#{c}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                lines.push(link_line(
                    n,
                    format!("{}  → {readers}", label(graph, output)),
                ));
                n += 1;
            }
            for &g in op.subgraphs.iter() {
                let nodes = inv.graphs.get(g).map_or(0, |g| g.nodes.len());
                lines.push(link_line(n, format!("subgraph {g} ({nodes} nodes)")));
                n += 1;
            }
        }
        Some(NodeKind::Value(v)) => {
            let dtype = v.dtype.map_or("?".to_owned(), |d| d.to_string());
            lines.push(Line::raw(format!(
                "{dtype} {}",
                shape_text(v.shape.as_deref())
            )));
        }
        Some(NodeKind::Constant { tensor }) => {
            if let Some(t) = inv.tensors.get(*tensor) {
                let dtype = t.dtype.map_or("?".to_owned(), |d| d.to_string());
                lines.push(Line::raw(format!(
                    "{dtype} {:?} {:?}, {} bytes",
                    t.shape,
                    t.storage,
                    t.byte_size.unwrap_or(0)
                )));
            }
        }
        _ => {}
    }
    if !matches!(
        graph.node(id).map(|node| &node.kind),
        Some(NodeKind::Operator(_))
    ) {
        lines.push(Line::styled("written by / read by", theme.dim()));
        for link in &links {
            if let Link::Node(other) = link {
                lines.push(link_line(n, label(graph, *other)));
                n += 1;
            }
        }
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" node · h/l choose · Enter jump · b back ")),
        detail,
    );
}
