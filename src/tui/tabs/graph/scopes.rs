//! The scope tree of the main graph (see [`ScopeTree`]): scopes, the ones alone in their
//! parent open, each with its operators, parameters and bytes; → or Enter opens a
//! scope, ← closes it, and a search shows only the scopes on the path to each match. A
//! model with no graph (weights only) has its tensors in the tree instead of operators.

use super::rows::{kind, name};
use crate::inventory::display::{count_text, dims_text, dtype_text};
use crate::inventory::{Inventory, NodeId, ScopeId, ScopeTree, TensorId};
use crate::tui::cursor::Cursor;
use crate::tui::marks::Marks;
use crate::tui::theme::Theme;
use humansize::{format_size, BINARY};
use ratatui::text::{Line, Span};

/// One row of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// A scope.
    Scope(ScopeId),
    /// An operator of the main graph.
    Operator(NodeId),
    /// A tensor, in a model with no graph.
    Tensor(TensorId),
}

/// The tree, which scopes are open, and the rows that shows.
pub struct ScopeView {
    tree: ScopeTree,
    /// True for a model with no graph: the leaves are tensors.
    weights_only: bool,
    open: Vec<bool>,
    /// During a search: the scopes holding a match, and the matches (operators, or tensors
    /// for a model with no graph), sorted.
    found: Option<(Vec<bool>, Vec<NodeId>)>,
    /// Rows shown, each with its depth.
    rows: Vec<(Row, u32)>,
    /// Where the list is.
    pub cursor: Cursor,
}

impl ScopeView {
    /// The tree of `inv`'s main graph, open along the scopes that are alone in their parent.
    pub fn new(inv: &Inventory) -> Self {
        let tree = ScopeTree::build(inv);
        let mut open = vec![false; tree.scopes.len()];
        let mut at = 0;
        // Bounded by the depth of the tree.
        while let [only] = tree.children(at) {
            at = *only;
            if let Some(slot) = open.get_mut(at as usize) {
                *slot = true;
            }
        }
        let mut view = ScopeView {
            tree,
            weights_only: inv.graphs.is_empty(),
            open,
            found: None,
            rows: Vec::new(),
            cursor: Cursor::default(),
        };
        view.rebuild();
        view
    }

    /// The tree.
    pub fn tree(&self) -> &ScopeTree {
        &self.tree
    }

    /// The rows shown, in order, without their depths.
    pub fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        self.rows.iter().map(|&(row, _)| row)
    }

    /// The number of rows shown.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// The selected row.
    pub fn selected(&self) -> Option<Row> {
        self.rows.get(self.cursor.selected).map(|&(row, _)| row)
    }

    /// True for a model with no graph, whose tree holds tensors.
    pub fn weights_only(&self) -> bool {
        self.weights_only
    }

    /// Shows only the paths to `matches` (operators of the main graph, or tensors for a
    /// model with no graph, in order), each scope on them open; all of the tree again if
    /// `None`.
    pub fn search(&mut self, matches: Option<&[u32]>) {
        self.found = matches.map(|m| {
            let mut holding = vec![false; self.tree.scopes.len()];
            for &item in m {
                let scope = if self.weights_only {
                    self.tree.scope_of_tensor(item as TensorId)
                } else {
                    self.tree.scope_of(item)
                };
                for s in self.tree.path(scope) {
                    // Once marked, the scopes above are marked too.
                    if std::mem::replace(&mut holding[s as usize], true) {
                        break;
                    }
                }
            }
            (holding, m.to_vec())
        });
        self.rebuild();
        self.cursor.selected = (self.rows.iter())
            .position(|(r, _)| r.is_leaf())
            .unwrap_or(0);
    }

    /// Opens (`true`) or closes the selected scope; closing on an operator or a closed scope
    /// closes the scope around it and selects that.
    pub fn set_open(&mut self, open: bool) {
        let Some(row) = self.selected() else {
            return;
        };
        let parent = |s: ScopeId| self.tree.scopes.get(s as usize).and_then(|s| s.parent);
        let scope = match (row, open) {
            (Row::Scope(s), true) => s,
            (Row::Operator(_) | Row::Tensor(_), true) => return,
            (Row::Scope(s), false) if self.is_open(s) => s,
            (Row::Scope(s), false) => parent(s).unwrap_or(0),
            (Row::Operator(n), false) => self.tree.scope_of(n),
            (Row::Tensor(t), false) => self.tree.scope_of_tensor(t),
        };
        match self.open.get_mut(scope as usize) {
            Some(slot) if scope != 0 => *slot = open,
            _ => return,
        }
        self.rebuild();
        if !open {
            let at = self.rows.iter().position(|&(r, _)| r == Row::Scope(scope));
            self.cursor.selected = at.unwrap_or(0);
        }
    }

    /// Whether `scope` is open now.
    pub fn is_open(&self, scope: ScopeId) -> bool {
        self.open.get(scope as usize).copied().unwrap_or(false)
    }

    /// Makes the rows: the open scopes' subscopes then operators, depth first, without
    /// recursion; during a search only the scopes holding a match and the matches.
    fn rebuild(&mut self) {
        let tree = &self.tree;
        let shown = |s: ScopeId| self.found.as_ref().is_none_or(|(h, _)| h[s as usize]);
        let open = |s: ScopeId| self.found.is_some() || self.open[s as usize];
        let matched =
            |n: &NodeId| (self.found.as_ref()).is_none_or(|(_, m)| m.binary_search(n).is_ok());
        let mut rows = Vec::new();
        let mut stack: Vec<(Row, u32)> = Vec::new();
        // A scope's subscopes come first, in the order of their first operators, then its own
        // operators in graph order (or tensors, in a model with no graph).
        let weights_only = self.weights_only;
        let push = |stack: &mut Vec<(Row, u32)>, scope: ScopeId, depth: u32| {
            if weights_only {
                let tensors = tree.tensors(scope).iter().filter(|t| matched(t));
                stack.extend(tensors.rev().map(|&t| (Row::Tensor(t as TensorId), depth)));
            } else {
                let members = tree.members(scope).iter().filter(|n| matched(n));
                stack.extend(members.rev().map(|&n| (Row::Operator(n), depth)));
            }
            let mut children: Vec<ScopeId> = tree
                .children(scope)
                .iter()
                .copied()
                .filter(|&s| shown(s))
                .collect();
            children.sort_by_key(|&s| tree.first_operator(s).unwrap_or(u32::MAX));
            stack.extend(children.into_iter().rev().map(|s| (Row::Scope(s), depth)));
        };
        push(&mut stack, 0, 0);
        while let Some((row, depth)) = stack.pop() {
            rows.push((row, depth));
            if let Row::Scope(s) = row {
                if open(s) {
                    push(&mut stack, s, depth + 1);
                }
            }
        }
        self.rows = rows;
        self.cursor.limit(self.rows.len());
    }

    /// Row `i` as a line: a scope with its counts, or an operator.
    pub fn line(&self, inv: &Inventory, i: usize, marks: &Marks, theme: Theme) -> Line<'static> {
        let Some(&(row, depth)) = self.rows.get(i) else {
            return Line::default();
        };
        let indent = "  ".repeat(depth as usize);
        match row {
            Row::Scope(s) => {
                let Some(scope) = self.tree.scopes.get(s as usize) else {
                    return Line::default();
                };
                let mark = if self.found.is_some() || self.is_open(s) {
                    "▾"
                } else {
                    "▸"
                };
                let label = format!(
                    "{indent}{mark} {}",
                    super::rows::tail(&scope.name.display(), 40)
                );
                let (count, what) = match (self.weights_only, scope.tensors) {
                    (true, 1) => (1, "tensor "),
                    (true, n) => (n, "tensors"),
                    (false, _) => (scope.operators, "ops"),
                };
                Line::from(vec![
                    marks.scope(s, theme),
                    Span::styled(format!("{label:<48} "), theme.heading()),
                    Span::raw(format!(
                        "{count:>8} {what} {:>13} params {:>11}",
                        count_text(scope.parameters),
                        format_size(scope.bytes, BINARY)
                    )),
                ])
            }
            Row::Operator(n) => {
                let Some(graph) = inv.graphs.first() else {
                    return Line::default();
                };
                Line::from(vec![
                    marks.node(0, n, theme),
                    Span::raw(format!("{indent}  ")),
                    Span::styled(format!("{:<14} ", kind(graph, n)), theme.dim()),
                    Span::raw(name(graph, n)),
                    Span::styled(format!("  #{n}"), theme.dim()),
                ])
            }
            Row::Tensor(t) => {
                let Some(tensor) = inv.tensors.get(t) else {
                    return Line::default();
                };
                let name = tensor.name.display();
                let last = name.rsplit('.').next().unwrap_or(&name);
                let label = format!("{indent}  {}", super::rows::tail(last, 40));
                Line::from(vec![
                    marks.tensor(t, theme),
                    Span::raw(format!("{label:<48} ")),
                    Span::styled(
                        format!(
                            "{:>6} {:<18} {:>11}",
                            dtype_text(tensor.dtype),
                            dims_text(&tensor.shape),
                            format_size(tensor.byte_size.unwrap_or(0), BINARY)
                        ),
                        theme.dim(),
                    ),
                ])
            }
        }
    }
}

impl Row {
    /// True for an operator or a tensor, which hold no rows.
    pub fn is_leaf(self) -> bool {
        !matches!(self, Row::Scope(_))
    }
}
