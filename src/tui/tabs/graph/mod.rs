//! Graph: the operators of one graph in order (or every node), each with what flows in and
//! out, the selected node's details with links to follow, and its neighbourhood drawn as
//! boxes; searched with a small query language (see `query.rs`).

mod boundary;
mod diagram;
mod draw;
mod index;
mod navigate;
mod neighbourhood;
mod query;
mod rows;
mod scopes;
mod titles;

use crate::analysis::Analysis;
use crate::inventory::{GraphId, Inventory, NodeId, NodeKind, ScopeId};
use crate::tui::component::Component;
use crate::tui::event::Event;
use crate::tui::filter::TextFilter;
use crate::tui::filtered_list::FilteredList;
use crate::tui::keys::Action;
use crate::tui::marks::Marks;
use crate::tui::theme::Theme;
use boundary::Boundary;
use index::GraphIndex;
use neighbourhood::{Item, Layout};
use query::Query;
use ratatui::layout::Rect;
use ratatui::Frame;
pub use scopes::{Row, ScopeView};
use std::sync::Arc;

/// Links of each kind (inputs, outputs, readers...) listed in the detail pane: more than a
/// screen holds, and few enough that a node with millions costs nothing per frame.
const SHOWN: usize = 256;

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
enum Place {
    /// A node of a graph, in the list or the neighbourhood view, whichever is open.
    Node { graph: GraphId, node: NodeId },
    /// The neighbourhood of a scope of the main graph.
    Scope(ScopeId),
    /// The scope tree, at this row (its open scopes are kept while it is not shown).
    Tree(Row),
}

/// The neighbourhood view: the node in the middle (for a scope, its first operator), the
/// scope drawn as one box instead if any, the box chosen, and the boxes as last drawn (moves
/// between them follow what is on screen).
#[derive(Debug, Clone, Default)]
struct Diagram {
    centre: NodeId,
    scope: Option<Boundary>,
    selected: usize,
    layout: Layout,
}

/// The Graph tab: the graph shown, the nodes the filters keep, and where links have led.
pub struct GraphTab {
    graph: GraphId,
    /// Nodes of `graph` passing the filters.
    list: FilteredList<NodeId>,
    /// List every node, not only operators.
    all_nodes: bool,
    /// Show only operators of this type.
    op_filter: Option<String>,
    /// The neighbourhood view, while it is open.
    diagram: Option<Diagram>,
    /// The chosen link of the selected node.
    link: usize,
    history: Vec<Place>,
    /// Producers and consumers of `graph`, built when first needed.
    index: Option<GraphIndex>,
    /// The scope tree of the main graph.
    scopes: ScopeView,
    /// True while the scope tree is shown instead of the list.
    tree: bool,
    /// What differs from the model compared with.
    marks: Arc<Marks>,
}

impl GraphTab {
    /// The Graph tab of `inv`, on the main graph.
    /// It opens on the scope tree if the names place some operator in a scope, or, in a
    /// model with no graph, some tensor.
    pub fn new(inv: &Inventory) -> Self {
        let scopes = ScopeView::new(inv);
        let tree = scopes.tree();
        let scoped = match scopes.weights_only() {
            true => tree.scopes.len() > 1,
            false => tree.places_operators(),
        };
        GraphTab {
            tree: scoped,
            scopes,
            graph: 0,
            list: FilteredList::new(node_rows(inv, 0, &TextFilter::default(), None, false)),
            all_nodes: false,
            op_filter: None,
            diagram: None,
            link: 0,
            history: Vec::new(),
            index: None,
            marks: Arc::default(),
        }
    }

    /// `marks` with the scopes of this tab's scope tree that hold a marked operator.
    pub(crate) fn scoped(&self, marks: Marks) -> Marks {
        marks.with_scopes(self.scopes.tree())
    }

    /// The scope tree, while it is shown.
    pub fn scope_tree(&self) -> Option<&ScopeView> {
        self.tree.then_some(&self.scopes)
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

    /// Bytes the producer and consumer index of the graph shown holds, once built.
    pub fn index_bytes(&self) -> Option<usize> {
        self.index.as_ref().map(GraphIndex::bytes)
    }

    /// True if every node is listed, not only operators.
    pub fn all_nodes(&self) -> bool {
        self.all_nodes
    }

    /// The scope drawn as one box in the middle of the neighbourhood view, with the number
    /// of links crossing its edge inwards and outwards, while that view is open.
    pub fn scope_box(&self) -> Option<(ScopeId, usize, usize)> {
        let b = self.diagram.as_ref()?.scope.as_ref()?;
        Some((b.scope, b.edges_in, b.edges_out))
    }

    /// The node in the middle of the neighbourhood view (a scope's first operator while the
    /// view shows a scope) and the node chosen in it, while the view is open.
    pub fn neighbourhood(&self) -> Option<(NodeId, Option<NodeId>)> {
        self.diagram.as_ref().map(|d| {
            let chosen = match d.layout.boxes.get(d.selected).map(|b| b.item) {
                Some(Item::Node(n)) => Some(n),
                _ => None,
            };
            (d.centre, chosen)
        })
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
    /// order; the writer and readers of a value or constant. Each list stops at [`SHOWN`].
    pub fn links(&mut self, inv: &Inventory) -> Vec<Link> {
        let Some(id) = self.selected_node() else {
            return Vec::new();
        };
        let Some(node) = inv.graphs.get(self.graph).and_then(|g| g.node(id)) else {
            return Vec::new();
        };
        match &node.kind {
            NodeKind::Operator(op) => {
                let ends = |ends: &[Option<NodeId>]| {
                    let shown = ends.iter().flatten().take(SHOWN);
                    shown.map(|&n| Link::Node(n)).collect::<Vec<_>>()
                };
                let mut links = ends(op.inputs());
                links.extend(ends(op.outputs()));
                let subgraphs = op.subgraphs().iter().take(SHOWN);
                links.extend(subgraphs.map(|&g| Link::Graph(g)));
                links
            }
            _ => {
                let index = self.index(inv);
                index
                    .producer(id)
                    .into_iter()
                    .chain(index.consumers(id).iter().take(SHOWN).copied())
                    .map(Link::Node)
                    .collect()
            }
        }
    }

    /// Shows `node` of `graph`, clearing the filters that would hide it (and listing every
    /// node if it is not an operator); false, and nothing changed, if there is no such graph.
    pub fn show(&mut self, inv: &Inventory, graph: GraphId, node: NodeId) -> bool {
        let Some(g) = inv.graphs.get(graph) else {
            return false;
        };
        self.list.clear_filter();
        self.op_filter = None;
        self.tree = false;
        if !matches!(g.node(node).map(|n| n.kind), Some(NodeKind::Operator(_))) {
            self.all_nodes = true;
        }
        self.graph = graph;
        self.refresh(inv);
        self.go(inv, graph, node);
        true
    }

    /// Shows only the operators of type `op` in the main graph, from the top.
    pub fn filter_operator(&mut self, inv: &Inventory, op: String) {
        self.op_filter = Some(op);
        self.tree = false;
        self.list.clear_filter();
        self.graph = 0;
        self.refresh(inv);
        self.list.select_row(0);
    }

    /// Makes the rows again after the graph or a filter changed.
    fn refresh(&mut self, inv: &Inventory) {
        let rows = node_rows(
            inv,
            self.graph,
            self.list.filter(),
            self.op_filter.as_deref(),
            self.all_nodes,
        );
        self.list.set_rows(rows);
    }
}

/// The tensors whose names the filter matches: what the scope tree of a model with no graph
/// is searched for.
fn matching_tensors(inv: &Inventory, filter: &TextFilter) -> Vec<u32> {
    (0u32..)
        .zip(&inv.tensors)
        .filter(|(_, t)| filter.matches_name(&t.name))
        .map(|(i, _)| i)
        .collect()
}

/// The operators (every node if `all_nodes`) of graph `graph` that match the filter as a
/// [`Query`], only operators of type `op_filter` if there is one; none if the query is wrong.
fn node_rows(
    inv: &Inventory,
    graph: GraphId,
    filter: &TextFilter,
    op_filter: Option<&str>,
    all_nodes: bool,
) -> Vec<NodeId> {
    let (Some(g), Ok(query)) = (inv.graphs.get(graph), Query::parse(filter.text())) else {
        return Vec::new();
    };
    (0u32..)
        .zip(&g.nodes)
        .filter(|(_, n)| match (op_filter, &n.kind) {
            (Some(op), NodeKind::Operator(o)) => o.op_type() == op,
            (None, NodeKind::Operator(_)) => true,
            _ => all_nodes && op_filter.is_none(),
        })
        .filter(|&(id, _)| query.matches(inv, g, id))
        .map(|(i, _)| i)
        .collect()
}

impl Component for GraphTab {
    fn actions(&self) -> &'static [Action] {
        &[
            Action::View,
            Action::NextMatch,
            Action::PrevMatch,
            Action::NextLink,
            Action::PrevLink,
            Action::Follow,
            Action::Back,
            Action::Parent,
            Action::Tree,
            Action::AllNodes,
            Action::Copy,
        ]
    }

    fn receive(&mut self, event: &Event, inv: &Inventory) -> bool {
        match event {
            &Event::ShowNode { graph, node } => self.show(inv, graph, node),
            Event::FilterOperator(op) => {
                self.filter_operator(inv, op.clone());
                true
            }
            _ => false,
        }
    }

    fn mark(&mut self, marks: &Arc<Marks>) {
        self.marks = Arc::clone(marks);
    }

    fn selection(&self, analysis: &Analysis) -> Option<String> {
        match (self.tree, &self.diagram, self.scopes.selected()) {
            (true, None, Some(Row::Scope(s))) => return Some(self.scopes.tree().label(s)),
            (true, None, Some(Row::Tensor(t))) => {
                let name = analysis.inventory.tensors.get(t)?.name.as_bytes();
                return Some(String::from_utf8_lossy(name).into_owned());
            }
            _ => {}
        }
        if let Some(d) = &self.diagram {
            if let Some(Item::Scope(s)) = d.layout.boxes.get(d.selected).map(|b| b.item) {
                return Some(self.scopes.tree().label(s));
            }
        }
        let graph = analysis.inventory.graphs.get(self.graph)?;
        let node = match (self.neighbourhood(), self.scopes.selected()) {
            (Some((_, chosen)), _) => chosen?,
            (None, Some(Row::Operator(n))) if self.tree => n,
            (None, _) => self.selected_node()?,
        };
        let node = graph.node(node)?;
        match (&node.kind, node.name.is_empty()) {
            (crate::inventory::NodeKind::Operator(op), true) => Some(op.op_type().to_string()),
            _ => Some(String::from_utf8_lossy(node.name.as_bytes()).into_owned()),
        }
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        let inv = &analysis.inventory;
        if action == Action::ClearFilter && !self.list.filter().typing() && self.diagram.is_some() {
            // Esc leaves the neighbourhood view first, then clears the filters.
            self.toggle_view(inv);
            return None;
        }
        if let (true, Action::Follow, Some(Row::Tensor(t))) =
            (self.tree, action, self.scopes.selected())
        {
            return Some(Event::ShowTensor(t));
        }
        if self.tree && self.diagram.is_none() && self.tree_key(action, inv) {
            return None;
        }
        if action == Action::ClearFilter {
            self.op_filter = None;
        }
        if self.move_box(action) {
            return None;
        }
        let (graph, op_filter, all) = (self.graph, self.op_filter.as_deref(), self.all_nodes);
        if self.list.handle(action, |filter| {
            node_rows(inv, graph, filter, op_filter, all)
        }) {
            self.link = 0;
            return None;
        }
        let diagram = self.diagram.is_some();
        match action {
            Action::NextLink => self.link = self.link.saturating_add(1),
            Action::PrevLink => self.link = self.link.saturating_sub(1),
            Action::Follow if diagram => self.centre_chosen(inv),
            Action::Follow => self.follow(inv),
            Action::Back => self.back(inv),
            Action::View => self.toggle_view(inv),
            Action::AllNodes => {
                let here = self.selected_node();
                self.all_nodes = !self.all_nodes;
                self.refresh(inv);
                if let Some(node) = here {
                    self.list.select_row(self.list.position(node).unwrap_or(0));
                }
            }
            Action::NextMatch => self.next_match(inv, true),
            Action::PrevMatch => self.next_match(inv, false),
            Action::Parent => self.leave_subgraph(inv),
            Action::Tree => self.open_tree(inv),
            _ => {}
        }
        None
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        let inv = &analysis.inventory;
        match self.diagram {
            Some(_) => diagram::draw(self, frame, area, inv, theme),
            None => draw::draw(self, frame, area, inv, theme),
        }
    }

    fn filter(&self) -> Option<&TextFilter> {
        Some(self.list.filter())
    }

    /// Also true in the neighbourhood view, which Esc closes.
    fn filtered(&self) -> bool {
        !self.list.filter().is_empty() || self.op_filter.is_some() || self.diagram.is_some()
    }
}
