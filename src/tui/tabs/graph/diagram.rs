//! Drawing the neighbourhood view: the boxes of [`super::neighbourhood::layout`] and the
//! lines between them.

use super::boundary::Boundary;
use super::titles::{breadcrumb, search_status};
use super::neighbourhood::{layout, Centre, Item, Joint, Placed};
use super::rows::{flow, kind, label, name, tail, type_text};
use super::GraphTab;
use crate::escape::sanitize;
use crate::inventory::{AttrValue, Graph, GraphId, Inventory, NodeId, NodeKind, ScopeTree};
use crate::tui::marks::Marks;
use crate::tui::theme::Theme;
use humansize::{format_size, BINARY};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Draws the neighbourhood of the tab's centre in `area`, and keeps the layout for the keys.
pub fn draw(tab: &mut GraphTab, frame: &mut Frame, area: Rect, inv: &Inventory, theme: Theme) {
    tab.index(inv);
    let search = search_status(tab);
    let (Some(graph), Some(index), Some(d)) = (
        inv.graphs.get(tab.graph),
        tab.index.as_ref(),
        tab.diagram.as_mut(),
    ) else {
        return;
    };
    let block = Block::bordered();
    let centre = match &d.scope {
        Some(b) => Centre::Scope(b),
        None => Centre::Node(d.centre),
    };
    d.layout = layout(graph, index, centre, block.inner(area));
    d.selected = d.selected.min(d.layout.boxes.len().saturating_sub(1));
    let tree = tab.scopes.tree();
    let status = match d.layout.boxes.get(d.selected).map(|b| b.item) {
        Some(Item::Node(n)) => format!(" {} ", label(graph, n)),
        Some(Item::Graph(g)) => format!(" graph {g} · Enter goes in "),
        Some(Item::Scope(s)) => format!(" scope {} · b back ", tail(&tree.path_text(s), 60)),
        _ => String::new(),
    };
    let block = block
        .title(format!(
            " neighbourhood · {} {}",
            breadcrumb(inv, tab.graph),
            search
        ))
        .title_bottom(Line::from(status).right_aligned());
    frame.render_widget(block, area);
    for (i, placed) in d.layout.boxes.iter().enumerate() {
        let style = if i == d.selected {
            theme.selected()
        } else if placed.level == 0 {
            theme.heading()
        } else {
            ratatui::style::Style::new()
        };
        let lines = match (placed.item, &d.scope) {
            (Item::Scope(_), Some(b)) => scope_text(tree, b, &tab.marks, theme),
            _ => text(inv, (graph, tab.graph), placed, &tab.marks, theme),
        };
        let paragraph = Paragraph::new(lines).block(Block::bordered().style(style));
        let paragraph = match placed.item {
            Item::Node(_) | Item::Scope(_) if placed.level == 0 => paragraph,
            _ => paragraph.centered(),
        };
        frame.render_widget(paragraph, placed.rect);
    }
    let buf = frame.buffer_mut();
    for joint in &d.layout.joints {
        join(buf, joint);
    }
    // A short line from the centre to each subgraph box beside it.
    for b in d.layout.boxes.iter().filter(|b| b.level == 0).skip(1) {
        put(
            buf,
            b.rect.x.saturating_sub(1),
            b.rect.y + b.rect.height / 2,
            "─",
        );
    }
}

/// The lines inside a box, a node's first line after its diff mark if the model is compared.
fn text(
    inv: &Inventory,
    (graph, gid): (&Graph, GraphId),
    placed: &Placed,
    marks: &Marks,
    theme: Theme,
) -> Vec<Line<'static>> {
    match placed.item {
        Item::More { count, partial } => {
            let mut lines = vec![Line::raw(format!("+{count} more"))];
            if partial {
                lines.push(Line::raw("(not all read)"));
            }
            lines
        }
        Item::Graph(g) => {
            let sub = inv.graphs.get(g);
            let nodes = sub.map_or(0, |s| s.nodes.len());
            vec![
                Line::raw(format!("subgraph {g}")),
                Line::raw(sub.map_or_else(String::new, |s| subgraph_name(inv, g, s))),
                Line::raw(format!("{nodes} nodes")),
            ]
        }
        // Drawn by `scope_text`, which has the boundary.
        Item::Scope(_) => Vec::new(),
        Item::Node(id) if placed.level == 0 => {
            let mut lines = centre_text(inv, graph, id);
            if let Some(first) = lines.first_mut() {
                first.spans.insert(0, marks.node(gid, id, theme));
            }
            lines
        }
        Item::Node(id) => {
            let mark = marks.node(gid, id, theme);
            let width =
                usize::from(placed.rect.width.saturating_sub(2)).saturating_sub(mark.width());
            let (first, second) = match graph.node(id).map(|n| n.kind) {
                Some(NodeKind::Operator(_)) => (kind(graph, id), name(graph, id)),
                _ => (name(graph, id), type_text(inv, graph, id)),
            };
            vec![
                Line::from(vec![mark, Span::raw(tail(&first, width))]),
                Line::raw(tail(&second, width)),
            ]
        }
    }
}

/// The lines of a scope drawn as one box: its path, what it holds, and what crosses its edge.
fn scope_text(tree: &ScopeTree, b: &Boundary, marks: &Marks, theme: Theme) -> Vec<Line<'static>> {
    let Some(scope) = tree.scopes.get(b.scope as usize) else {
        return Vec::new();
    };
    let plural = |n: usize, one: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    vec![
        Line::from(vec![
            marks.scope(b.scope, theme),
            Span::styled(
                format!("scope {}", tail(&tree.path_text(b.scope), 50)),
                theme.heading(),
            ),
        ]),
        Line::raw(format!(
            "{} ops · {} params · {}",
            scope.operators,
            scope.parameters,
            format_size(scope.bytes, BINARY)
        )),
        Line::raw(format!(
            "in {} ← {} · out {} → {}",
            plural(b.edges_in, "link"),
            plural(b.producers.len(), "node"),
            plural(b.edges_out, "link"),
            plural(b.consumers.len(), "node"),
        )),
    ]
}

/// A subgraph's name, or else the name of the attribute of its operator that holds it (such
/// as `then_branch`).
fn subgraph_name(inv: &Inventory, id: GraphId, sub: &Graph) -> String {
    if !sub.name.is_empty() {
        return tail(&sub.name.display(), 32);
    }
    let owner = sub
        .parent
        .and_then(|p| inv.graphs.get(p.graph)?.node(p.node));
    let Some(NodeKind::Operator(op)) = owner.map(|n| n.kind) else {
        return String::new();
    };
    let holds = |value: &AttrValue| match value {
        AttrValue::Graph(r) => r.graph == id,
        AttrValue::Graphs(rs) => rs.iter().any(|r| r.graph == id),
        _ => false,
    };
    op.attrs()
        .iter()
        .find(|a| holds(&a.value))
        .map_or_else(String::new, |a| tail(&sanitize(&a.name), 32))
}

/// The centre's lines: its kind and name, then what flows in and out of an operator, or a
/// value's type and readers.
fn centre_text(inv: &Inventory, graph: &Graph, id: NodeId) -> Vec<Line<'static>> {
    let mut lines = vec![Line::raw(label(graph, id))];
    match graph.node(id).map(|n| n.kind) {
        Some(NodeKind::Operator(op)) => {
            let (ins, outs) = flow(inv, graph, op);
            lines.push(Line::raw(format!("in  {ins}")));
            lines.push(Line::raw(format!("out {outs}")));
        }
        _ => lines.push(Line::raw(type_text(inv, graph, id))),
    }
    lines
}

/// Draws the lines of `joint`: each upper box comes down to the joint's row, which runs
/// across to each lower box.
fn join(buf: &mut Buffer, joint: &Joint) {
    let all = joint.uppers.iter().chain(&joint.lowers);
    let (Some(&left), Some(&right)) = (all.clone().min(), all.max()) else {
        return;
    };
    for x in left..=right {
        let up = joint.uppers.contains(&x);
        let down = joint.lowers.contains(&x);
        let symbol = match (up, down, x > left, x < right) {
            (false, false, _, _) => "─",
            (true, true, true, true) => "┼",
            (true, true, false, true) => "├",
            (true, true, true, false) => "┤",
            (true, true, false, false) => "│",
            (true, false, true, true) => "┴",
            (true, false, false, _) => "└",
            (true, false, true, false) => "┘",
            (false, true, true, true) => "┬",
            (false, true, false, _) => "┌",
            (false, true, true, false) => "┐",
        };
        put(buf, x, joint.row, symbol);
    }
    for &x in &joint.uppers {
        put(buf, x, joint.row.wrapping_sub(1), "┬");
    }
    for &x in &joint.lowers {
        put(buf, x, joint.row.saturating_add(1), "┴");
    }
}

/// Sets one cell's symbol, if it is on the screen.
fn put(buf: &mut Buffer, x: u16, y: u16, symbol: &str) {
    if let Some(cell) = buf.cell_mut((x, y)) {
        cell.set_symbol(symbol);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joints_draw_a_bus_from_each_upper_box_to_each_lower_box() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 9, 3));
        join(
            &mut buf,
            &Joint {
                row: 1,
                uppers: vec![0, 4, 8],
                lowers: vec![4],
            },
        );
        let row: String = (0..9).map(|x| buf[(x, 1)].symbol().to_owned()).collect();
        assert_eq!(row, "└───┼───┘");
        assert_eq!(buf[(4, 0)].symbol(), "┬");
        assert_eq!(buf[(4, 2)].symbol(), "┴");
        // Off-screen joints are skipped.
        join(
            &mut buf,
            &Joint {
                row: 0,
                uppers: vec![500],
                lowers: vec![2],
            },
        );
        assert_eq!(buf[(2, 0)].symbol(), "┌");
    }
}
