//! Moves in the Graph tab: following links, choosing and centring boxes of the neighbourhood,
//! stepping through search matches, entering and leaving subgraphs, drawing a scope as one
//! box, and going back.

use super::boundary::Boundary;
use super::neighbourhood::{Item, Move};
use super::scopes::Row;
use super::{matching_tensors, node_rows, Diagram, GraphTab, Link, Place};
use crate::inventory::{GraphId, Inventory, NodeId, NodeKind, ScopeId};
use crate::tui::keys::Action;

impl GraphTab {
    /// Moves to `node` of `graph`, keeping the filters: the list selects it if it is listed,
    /// and the neighbourhood view centres on it.
    pub(super) fn go(&mut self, inv: &Inventory, graph: GraphId, node: NodeId) {
        if graph != self.graph {
            self.graph = graph;
            self.refresh(inv);
        }
        self.link = 0;
        self.list.select_row(self.list.position(node).unwrap_or(0));
        if let Some(d) = &mut self.diagram {
            *d = Diagram {
                centre: node,
                ..Diagram::default()
            };
        }
    }

    /// The node the user is at: the neighbourhood's centre, or else the list's selection.
    fn here(&self) -> Option<NodeId> {
        self.diagram
            .as_ref()
            .map(|d| d.centre)
            .or(self.selected_node())
    }

    /// Remembers where the user is, for the back key.
    fn remember(&mut self) {
        if let Some(b) = self.diagram.as_ref().and_then(|d| d.scope.as_ref()) {
            self.history.push(Place::Scope(b.scope));
        } else if let Some(node) = self.here() {
            self.history.push(Place::Node {
                graph: self.graph,
                node,
            });
        }
    }

    /// `b`: returns to the last place remembered: a node (in the view open now), a scope's
    /// neighbourhood, or the scope tree at the row it was left from.
    pub(super) fn back(&mut self, inv: &Inventory) {
        match self.history.pop() {
            Some(Place::Node { graph, node }) if self.diagram.is_some() => {
                self.go(inv, graph, node)
            }
            Some(Place::Node { graph, node }) => {
                self.show(inv, graph, node);
            }
            Some(Place::Scope(scope)) => self.open_scope(inv, scope),
            Some(Place::Tree(row)) => {
                self.diagram = None;
                self.open_tree(inv);
                let at = self.scopes.rows().position(|r| r == row);
                if let Some(at) = at {
                    self.scopes.cursor.selected = at;
                }
            }
            None => {}
        }
    }

    /// Draws `scope` of the main graph as one box in the neighbourhood view, with what crosses
    /// its edge around it; the list selects its first operator.
    pub(super) fn open_scope(&mut self, inv: &Inventory, scope: ScopeId) {
        if self.graph != 0 {
            self.graph = 0;
            self.refresh(inv);
        }
        self.index(inv);
        let (Some(graph), Some(index)) = (inv.graphs.first(), self.index.as_ref()) else {
            return;
        };
        let tree = self.scopes.tree();
        let boundary = Boundary::of(graph, index, tree, scope);
        let centre = tree.first_operator(scope).unwrap_or(0);
        self.link = 0;
        self.list
            .select_row(self.list.position(centre).unwrap_or(0));
        self.diagram = Some(Diagram {
            centre,
            scope: Some(boundary),
            ..Diagram::default()
        });
    }

    /// Goes to `node` of `graph`, remembering where the user was.
    fn go_remembered(&mut self, inv: &Inventory, graph: GraphId, node: NodeId) {
        self.remember();
        self.go(inv, graph, node);
    }

    /// Enter in the list: follows the chosen link, remembering where it started.
    pub(super) fn follow(&mut self, inv: &Inventory) {
        let links = self.links(inv);
        let Some(&link) = links.get(self.link.min(links.len().saturating_sub(1))) else {
            return;
        };
        self.remember();
        let (graph, node) = match link {
            Link::Node(node) => (self.graph, node),
            Link::Graph(graph) => (graph, first_operator(inv, graph)),
        };
        self.show(inv, graph, node);
    }

    /// Enter in the neighbourhood: the chosen box becomes the centre, or its subgraph is
    /// entered.
    pub(super) fn centre_chosen(&mut self, inv: &Inventory) {
        let Some(d) = &self.diagram else { return };
        match d.layout.boxes.get(d.selected).map(|b| b.item) {
            Some(Item::Node(node)) => self.go_remembered(inv, self.graph, node),
            Some(Item::Graph(graph)) if graph < inv.graphs.len() => {
                self.go_remembered(inv, graph, first_operator(inv, graph))
            }
            _ => {}
        }
    }

    /// `n` and `N`: the next or previous row, around the end; the neighbourhood centres on it.
    pub(super) fn next_match(&mut self, inv: &Inventory, forward: bool) {
        let rows = self.list.rows();
        if rows.is_empty() {
            return;
        }
        let row = self.here().and_then(|n| self.list.position(n));
        let next = match (row, forward) {
            (Some(r), true) => (r + 1) % rows.len(),
            (Some(r), false) => r.checked_sub(1).unwrap_or(rows.len() - 1),
            (None, _) => 0,
        };
        let node = rows[next];
        self.go(inv, self.graph, node);
    }

    /// `p`: from a subgraph to the operator that owns it.
    pub(super) fn leave_subgraph(&mut self, inv: &Inventory) {
        if let Some(parent) = inv.graphs.get(self.graph).and_then(|g| g.parent) {
            self.go_remembered(inv, parent.graph, parent.node);
        }
    }

    /// The arrows in the neighbourhood view; false for any other action.
    pub(super) fn move_box(&mut self, action: Action) -> bool {
        let Some(d) = &mut self.diagram else {
            return false;
        };
        let step = match action {
            Action::Up => Move::Up,
            Action::Down => Move::Down,
            Action::PrevLink => Move::Left,
            Action::NextLink => Move::Right,
            _ => return false,
        };
        d.selected = d.layout.step(d.selected, step);
        true
    }

    /// `v`: opens the neighbourhood of the selected node, or closes it and selects its centre.
    pub(super) fn toggle_view(&mut self, inv: &Inventory) {
        match self.diagram.take() {
            Some(d) => {
                self.go(inv, self.graph, d.centre);
                // Back in the tree the view was opened from: going back is done.
                if self.tree && matches!(self.history.last(), Some(Place::Tree(_))) {
                    self.history.pop();
                }
            }
            None => {
                if let Some(centre) = self.selected_node() {
                    self.diagram = Some(Diagram {
                        centre,
                        ..Diagram::default()
                    });
                }
            }
        }
    }
}

impl GraphTab {
    /// `t` in the list: shows the scope tree of the main graph, searched as the list is.
    pub(super) fn open_tree(&mut self, inv: &Inventory) {
        self.diagram = None;
        if self.graph != 0 {
            self.graph = 0;
            self.refresh(inv);
        }
        self.tree = true;
        self.search_tree();
    }

    /// Shows in the tree the paths to the list's rows while the list is searched.
    fn search_tree(&mut self) {
        let searched = !self.list.filter().is_empty();
        self.scopes.search(searched.then(|| self.list.rows()));
    }

    /// A key in the scope tree; false for one the tab handles as in the list.
    pub(super) fn tree_key(&mut self, action: Action, inv: &Inventory) -> bool {
        let typing = self.list.filter().typing();
        let selected = self.scopes.selected();
        match action {
            _ if typing || matches!(action, Action::Filter | Action::ClearFilter) => {
                let (op_filter, all) = (self.op_filter.as_deref(), self.all_nodes);
                // A model with no graph is searched by its tensors' names.
                let weights_only = self.scopes.weights_only();
                self.list.handle(action, |filter| match weights_only {
                    true => matching_tensors(inv, filter),
                    false => node_rows(inv, 0, filter, op_filter, all),
                });
                self.search_tree();
            }
            Action::Tree => {
                self.tree = false;
                if let Some(Row::Operator(node)) = selected {
                    self.go(inv, 0, node);
                }
            }
            Action::NextLink => self.scopes.set_open(true),
            Action::PrevLink => self.scopes.set_open(false),
            Action::Follow => match selected {
                Some(Row::Scope(s)) => self.scopes.set_open(!self.scopes.is_open(s)),
                Some(row @ Row::Operator(node)) => {
                    self.history.push(Place::Tree(row));
                    self.tree = false;
                    // The list keeps the search the tree shows, which holds the operator.
                    match self.list.position(node) {
                        Some(_) => self.go(inv, 0, node),
                        None => {
                            self.show(inv, 0, node);
                        }
                    }
                }
                // The tab asks for the Tensors tab (see `handle`).
                Some(Row::Tensor(_)) | None => {}
            },
            Action::View => match selected {
                Some(row @ Row::Operator(node)) => {
                    self.history.push(Place::Tree(row));
                    self.go(inv, 0, node);
                    self.toggle_view(inv);
                }
                Some(row @ Row::Scope(scope)) if !self.scopes.weights_only() => {
                    self.history.push(Place::Tree(row));
                    self.open_scope(inv, scope);
                }
                // A model with no graph has no neighbourhood to draw.
                Some(Row::Scope(_) | Row::Tensor(_)) | None => {}
            },
            Action::NextMatch | Action::PrevMatch => {
                let rows: Vec<Row> = self.scopes.rows().collect();
                let at = self.scopes.cursor.selected;
                let forward = action == Action::NextMatch;
                let leaf = |i: &usize| rows[*i].is_leaf();
                let next = if forward {
                    (at + 1..rows.len()).find(leaf)
                } else {
                    (0..at).rev().find(leaf)
                };
                self.scopes.cursor.selected = next.unwrap_or(at);
            }
            _ => {
                let len = self.scopes.row_count();
                return self.scopes.cursor.navigate(action, len);
            }
        }
        true
    }
}

/// The first operator of `graph`, or its first node if it has none.
fn first_operator(inv: &Inventory, graph: GraphId) -> NodeId {
    let nodes = inv.graphs.get(graph).map(|g| g.nodes_with_ids());
    (nodes.into_iter().flatten())
        .find(|(_, n)| matches!(n.kind, NodeKind::Operator(_)))
        .map_or(0, |(i, _)| i)
}
