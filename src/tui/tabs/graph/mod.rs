//! Graph: every node of one graph in order, and the selected node's details with links to
//! follow (its inputs, outputs and subgraphs).

mod draw;
mod index;

use crate::analysis::Analysis;
use crate::inventory::{GraphId, Inventory, NodeId, NodeKind};
use crate::tui::component::Component;
use crate::tui::event::Event;
use crate::tui::filter::TextFilter;
use crate::tui::filtered_list::FilteredList;
use crate::tui::keys::Action;
use crate::tui::theme::Theme;
use index::GraphIndex;
use ratatui::layout::Rect;
use ratatui::Frame;

/// What a link of the selected node leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// A node of the current graph.
    Node(NodeId),
    /// A subgraph.
    Graph(GraphId),
}

/// A place to return to with the back key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    graph: GraphId,
    node: NodeId,
}

/// The Graph tab: the graph shown, the nodes the filters keep, and where links have led.
pub struct GraphTab {
    graph: GraphId,
    /// Nodes of `graph` passing the filters.
    list: FilteredList<NodeId>,
    /// Show only operators of this type.
    op_filter: Option<String>,
    /// The chosen link of the selected node.
    link: usize,
    history: Vec<Place>,
    /// Producers and consumers of `graph`, built when first needed.
    index: Option<GraphIndex>,
}

impl GraphTab {
    /// The Graph tab of `inv`, on the main graph.
    pub fn new(inv: &Inventory) -> Self {
        GraphTab {
            graph: 0,
            list: FilteredList::new(node_rows(inv, 0, &TextFilter::default(), None)),
            op_filter: None,
            link: 0,
            history: Vec::new(),
            index: None,
        }
    }

    /// The graph shown.
    pub fn graph(&self) -> GraphId {
        self.graph
    }

    /// The nodes listed, in order.
    pub fn rows(&self) -> &[NodeId] {
        self.list.rows()
    }

    /// The operator type the list is limited to, if any.
    pub fn op_filter(&self) -> Option<&str> {
        self.op_filter.as_deref()
    }

    /// The selected node.
    pub fn selected_node(&self) -> Option<NodeId> {
        self.list.selected()
    }

    /// Producers and consumers of the graph shown, built on first use.
    fn index(&mut self, inv: &Inventory) -> &GraphIndex {
        let graph = self.graph;
        if self.index.as_ref().is_some_and(|i| i.graph != graph) {
            self.index = None;
        }
        self.index
            .get_or_insert_with(|| GraphIndex::build(inv, graph))
    }

    /// The links of the selected node: inputs, outputs and subgraphs of an operator, in that
    /// order; the writer and readers of a value or constant.
    pub fn links(&mut self, inv: &Inventory) -> Vec<Link> {
        let Some(id) = self.selected_node() else {
            return Vec::new();
        };
        let Some(node) = inv.graphs.get(self.graph).and_then(|g| g.node(id)) else {
            return Vec::new();
        };
        match &node.kind {
            NodeKind::Operator(op) => {
                let mut links: Vec<Link> = op
                    .inputs
                    .iter()
                    .chain(op.outputs.iter())
                    .flatten()
                    .map(|&n| Link::Node(n))
                    .collect();
                links.extend(op.subgraphs.iter().map(|&g| Link::Graph(g)));
                links
            }
            _ => {
                let index = self.index(inv);
                index
                    .producer(id)
                    .into_iter()
                    .chain(index.consumers(id).iter().copied())
                    .map(Link::Node)
                    .collect()
            }
        }
    }

    /// Shows `node` of `graph`, clearing the filters that would hide it; false, and nothing
    /// changed, if there is no such graph.
    pub fn show(&mut self, inv: &Inventory, graph: GraphId, node: NodeId) -> bool {
        if graph >= inv.graphs.len() {
            return false;
        }
        self.graph = graph;
        self.list.clear_filter();
        self.op_filter = None;
        self.link = 0;
        self.refresh(inv);
        self.list.select_row(self.list.position(node).unwrap_or(0));
        true
    }

    /// Shows only the operators of type `op` in the main graph, from the top.
    pub fn filter_operator(&mut self, inv: &Inventory, op: String) {
        self.op_filter = Some(op);
        self.list.clear_filter();
        self.graph = 0;
        self.refresh(inv);
        self.list.select_row(0);
    }

    /// Enter: follows the chosen link, remembering where it started.
    fn follow(&mut self, inv: &Inventory) {
        let links = self.links(inv);
        let Some(&link) = links.get(self.link.min(links.len().saturating_sub(1))) else {
            return;
        };
        if let Some(node) = self.selected_node() {
            self.history.push(Place {
                graph: self.graph,
                node,
            });
        }
        let (graph, node) = match link {
            Link::Node(node) => (self.graph, node),
            Link::Graph(graph) => (graph, 0),
        };
        self.show(inv, graph, node);
    }

    /// Makes the rows again after the graph or the operator filter changed.
    fn refresh(&mut self, inv: &Inventory) {
        let rows = node_rows(
            inv,
            self.graph,
            self.list.filter(),
            self.op_filter.as_deref(),
        );
        self.list.set_rows(rows);
    }
}

/// The nodes of graph `graph` whose names contain the filter, only operators of type
/// `op_filter` if there is one.
fn node_rows(
    inv: &Inventory,
    graph: GraphId,
    filter: &TextFilter,
    op_filter: Option<&str>,
) -> Vec<NodeId> {
    inv.graphs.get(graph).map_or_else(Vec::new, |g| {
        (0u32..)
            .zip(&g.nodes)
            .filter(|(_, n)| filter.matches_name(&n.name))
            .filter(|(_, n)| match (op_filter, &n.kind) {
                (None, _) => true,
                (Some(op), NodeKind::Operator(o)) => o.op_type == op,
                _ => false,
            })
            .map(|(i, _)| i)
            .collect()
    })
}

impl Component for GraphTab {
    fn selection(&self, analysis: &Analysis) -> Option<String> {
        let graph = analysis.inventory.graphs.get(self.graph)?;
        let node = graph.node(self.selected_node()?)?;
        match (&node.kind, node.name.is_empty()) {
            (crate::inventory::NodeKind::Operator(op), true) => Some(op.op_type.to_string()),
            _ => Some(String::from_utf8_lossy(node.name.as_bytes()).into_owned()),
        }
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        let inv = &analysis.inventory;
        if action == Action::ClearFilter {
            self.op_filter = None;
        }
        let (graph, op_filter) = (self.graph, self.op_filter.as_deref());
        if self
            .list
            .handle(action, |filter| node_rows(inv, graph, filter, op_filter))
        {
            self.link = 0;
            return None;
        }
        match action {
            Action::NextLink => self.link = self.link.saturating_add(1),
            Action::PrevLink => self.link = self.link.saturating_sub(1),
            Action::Follow => self.follow(inv),
            Action::Back => {
                if let Some(place) = self.history.pop() {
                    self.show(inv, place.graph, place.node);
                }
            }
            _ => {}
        }
        None
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        draw::draw(self, frame, area, &analysis.inventory, theme);
    }

    fn filter(&self) -> Option<&TextFilter> {
        Some(self.list.filter())
    }

    fn filtered(&self) -> bool {
        !self.list.filter().is_empty() || self.op_filter.is_some()
    }
}
