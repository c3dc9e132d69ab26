//! Drawing the Graph tab's list view: the rows (virtualised) and the selected node's details.

use super::index::Origin;
use super::rows::{label, summary};
use super::titles::{breadcrumb, search_status};
use super::{GraphTab, Link, SHOWN};
use crate::inventory::display::{attr_text, dims_text, dtype_text, shape_text};
use crate::inventory::{Graph, Inventory, NodeId, NodeKind};
use crate::tui::theme::Theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// Draws `tab` in `area` as a list or the scope tree.
pub fn draw(tab: &mut GraphTab, frame: &mut Frame, area: Rect, inv: &Inventory, theme: Theme) {
    if tab.tree {
        return tree(tab, frame, area, inv, theme);
    }
    let [list, detail] =
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    tab.index(inv); // Built once per graph, so that the detail pane below can read it.
    let Some(graph) = inv.graphs.get(tab.graph) else {
        return no_graph(frame, area, inv, theme);
    };
    let what = if tab.all_nodes { "nodes" } else { "operators" };
    let mut title = format!(" {what} · {} ", breadcrumb(inv, tab.graph));
    if let Some(op) = &tab.op_filter {
        title.push_str(&format!("· {} only ", crate::escape::sanitize(op)));
    }
    title.push_str(&search_status(tab));
    tab.list.draw(frame, list, &title, theme, |id| {
        let (kind, name, flow) = summary(inv, graph, id);
        Line::from(vec![
            tab.marks.node(tab.graph, id, theme),
            Span::styled(format!("{id:>6} "), theme.dim()),
            Span::styled(format!("{kind:<14} "), theme.heading()),
            Span::raw(format!("{name:<12} ")),
            Span::styled(flow, theme.dim()),
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

/// The scope tree, with the search's state in the title.
fn tree(tab: &mut GraphTab, frame: &mut Frame, area: Rect, inv: &Inventory, theme: Theme) {
    let scopes = tab.scopes.tree().scopes.len().saturating_sub(1);
    let title = if tab.scopes.weights_only() {
        format!(
            " scopes · {scopes} from the tensor names · → open · ← close · Enter a tensor's details {}",
            search_status(tab)
        )
    } else {
        format!(
            " scopes · {scopes} in main · → Enter open · ← close · v neighbourhood · t list {}",
            search_status(tab)
        )
    };
    let title = tab.list.filter().title(&title);
    let (view, marks) = (&mut tab.scopes, &tab.marks);
    let mut cursor = view.cursor;
    let len = view.row_count();
    crate::tui::list::draw(frame, area, title, &mut cursor, len, theme, |i| {
        view.line(inv, i, marks, theme)
    });
    view.cursor = cursor;
}

/// What the tab shows for a file that holds no graph (weights only, such as safetensors
/// and GGUF): where to look instead.
fn no_graph(frame: &mut Frame, area: Rect, inv: &Inventory, theme: Theme) {
    let lines = vec![
        Line::styled(
            format!("This {} file holds no graph.", inv.format),
            theme.heading(),
        ),
        Line::raw(""),
        Line::raw(format!(
            "Its {} tensors are in the Tensors tab (5), where their bytes lie in Layout (2),",
            inv.tensors.len()
        )),
        Line::raw("and where the bytes go, by element type, layer and file, in Sizes (7)."),
    ];
    let text = Paragraph::new(lines).wrap(Wrap { trim: false });
    frame.render_widget(text.block(Block::bordered().title(" graph ")), area);
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
    match graph.node(id).map(|node| node.kind) {
        Some(NodeKind::Operator(op)) => {
            if let Some(domain) = op.domain() {
                let domain = crate::escape::sanitize(domain);
                lines.push(Line::raw(format!("domain {domain}")));
            }
            lines.push(Line::styled("attributes", theme.dim()));
            for a in op.attrs().iter().take(SHOWN) {
                lines.push(Line::raw(format!(
                    "  {} = {}",
                    a.name,
                    attr_text(inv, &a.value)
                )));
            }
            lines.extend(more(op.attrs().len(), theme));
            lines.push(Line::styled("inputs (produced by)", theme.dim()));
            for &input in op.inputs().iter().flatten().take(SHOWN) {
                let by = match index.map(|i| i.origin(inv, input)) {
                    Some(Origin::Operator(p)) => label(graph, p),
                    Some(origin) => origin.words().to_owned(),
                    None => String::new(),
                };
                lines.push(link_line(format!("{}  ← {by}", label(graph, input))));
            }
            lines.extend(more(op.inputs().len(), theme));
            lines.push(Line::styled("outputs (read by)", theme.dim()));
            for &output in op.outputs().iter().flatten().take(SHOWN) {
                let all = index.map_or(&[][..], |i| i.consumers(output));
                let mut readers: Vec<String> =
                    all.iter().take(8).map(|c| format!("#{c}")).collect();
                if all.len() > 8 {
                    readers.push(format!("+{}", all.len() - 8));
                }
                let readers = readers.join(", ");
                lines.push(link_line(format!("{}  → {readers}", label(graph, output))));
            }
            lines.extend(more(op.outputs().len(), theme));
            for &g in op.subgraphs().iter().take(SHOWN) {
                let nodes = inv.graphs.get(g).map_or(0, |g| g.nodes.len());
                lines.push(link_line(format!("subgraph {g} ({nodes} nodes)")));
            }
            lines.extend(more(op.subgraphs().len(), theme));
            return lines;
        }
        Some(NodeKind::Value(v)) => {
            let what = match index.map(|i| i.origin(inv, id)) {
                Some(Origin::GraphInput) => "graph input",
                Some(Origin::Captured) => "captured value",
                _ if graph.outputs.iter().take(SHOWN).any(|&o| o == id) => "graph output",
                _ => "value",
            };
            lines.push(Line::raw(match &v.composite {
                Some(text) => format!("{what} {text}"),
                None => format!(
                    "{what} {} {}",
                    dtype_text(v.dtype),
                    shape_text(v.shape.as_deref())
                ),
            }))
        }
        Some(NodeKind::Constant { tensor }) => {
            if let Some(t) = inv.tensors.get(tensor) {
                lines.push(Line::raw(format!(
                    "weight {} {} {:?}, {} bytes",
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
    let readers = index.map_or(0, |i| i.consumers(id).len());
    lines.extend(more(readers, theme));
    lines
}

/// `… and N more` under a list of `total` items cut at [`SHOWN`].
fn more(total: usize, theme: Theme) -> Option<Line<'static>> {
    (total > SHOWN).then(|| Line::styled(format!("  … and {} more", total - SHOWN), theme.dim()))
}
