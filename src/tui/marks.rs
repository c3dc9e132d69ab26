//! What the model shown has that the model it is compared with (`inspect A --diff B`) has
//! not (`+`) or has otherwise (`~`): a symbol and a colour in a gutter before each row.

use super::theme::Theme;
use crate::diff::Diff;
use crate::inventory::{GraphId, Inventory, NodeId, ScopeId, ScopeTree, TensorId};
use ratatui::style::Color;
use ratatui::text::Span;
use std::collections::{HashMap, HashSet};

/// How an item differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Only the model shown has it.
    Added,
    /// Both have it, changed.
    Changed,
}

/// The marks of one model's items; empty, and drawn as nothing, without a diff.
#[derive(Debug, Default)]
pub struct Marks {
    /// True when the model is compared, so rows get a gutter.
    pub compared: bool,
    nodes: HashMap<(GraphId, NodeId), Mark>,
    operators: HashMap<String, Mark>,
    tensors: HashMap<TensorId, Mark>,
    /// Scopes holding a marked operator of the main graph, at any depth.
    scopes: HashSet<ScopeId>,
}

impl Marks {
    /// The marks of `inv`, shown as B of `diff`.
    pub fn of(inv: &Inventory, diff: &Diff) -> Self {
        let g = &diff.graph;
        let changed = g.changed.iter().map(|c| (&c.b, Mark::Changed));
        let nodes: HashMap<_, _> = (g.added.iter().map(|n| (n, Mark::Added)))
            .chain(changed)
            .map(|(n, mark)| ((n.graph, n.node), mark))
            .collect();
        let mut operators: HashMap<String, Mark> = (g.added.iter())
            .chain(g.changed.iter().map(|c| &c.b))
            .map(|n| (n.op_type.to_string(), Mark::Changed))
            .collect();
        for o in &g.operators {
            let mark = if o.a == 0 { Mark::Added } else { Mark::Changed };
            operators.insert(o.op_type.clone(), mark);
        }
        let t = &diff.tensors;
        let added: HashSet<&[u8]> = t.added.iter().map(|x| x.name.as_bytes()).collect();
        let changed: HashSet<&[u8]> = (t.changed.iter().map(|c| c.b.as_bytes()))
            .chain(t.renamed.iter().map(|r| r.b.as_bytes()))
            .chain(
                diff.values
                    .iter()
                    .flat_map(|v| &v.changed)
                    .map(|c| c.b.as_bytes()),
            )
            .collect();
        let tensors = (inv.tensors.iter().enumerate())
            .filter_map(|(id, x)| {
                let name = x.name.as_bytes();
                let mark = if added.contains(name) {
                    Mark::Added
                } else {
                    changed.contains(name).then_some(Mark::Changed)?
                };
                Some((id, mark))
            })
            .collect();
        Marks {
            compared: true,
            nodes,
            operators,
            tensors,
            scopes: HashSet::new(),
        }
    }

    /// These marks, with every scope of `tree` that holds a marked operator or tensor
    /// marked `~`.
    pub fn with_scopes(mut self, tree: &ScopeTree) -> Self {
        let operators = (self.nodes.keys())
            .filter(|&&(graph, _)| graph == 0)
            .map(|&(_, node)| tree.scope_of(node));
        let tensors = self.tensors.keys().map(|&t| tree.scope_of_tensor(t));
        let held: Vec<ScopeId> = operators.chain(tensors).collect();
        for held in held {
            // A scope already marked has its enclosing scopes marked too.
            for scope in tree.path(held) {
                if !self.scopes.insert(scope) {
                    break;
                }
            }
        }
        self
    }

    /// The gutter of scope `scope`.
    pub fn scope(&self, scope: ScopeId, theme: Theme) -> Span<'static> {
        let mark = self.scopes.contains(&scope).then_some(&Mark::Changed);
        self.gutter(mark, theme)
    }

    /// The gutter of node `node` of graph `graph`.
    pub fn node(&self, graph: GraphId, node: NodeId, theme: Theme) -> Span<'static> {
        self.gutter(self.nodes.get(&(graph, node)), theme)
    }

    /// The gutter of operator type `op`.
    pub fn operator(&self, op: &str, theme: Theme) -> Span<'static> {
        self.gutter(self.operators.get(op), theme)
    }

    /// The gutter of tensor `id`.
    pub fn tensor(&self, id: TensorId, theme: Theme) -> Span<'static> {
        self.gutter(self.tensors.get(&id), theme)
    }

    /// `+ `, `~ ` or blanks, coloured; nothing when the model is not compared.
    fn gutter(&self, mark: Option<&Mark>, theme: Theme) -> Span<'static> {
        match mark {
            _ if !self.compared => Span::raw(""),
            Some(Mark::Added) => Span::styled("+ ", theme.fg(Color::Green)),
            Some(Mark::Changed) => Span::styled("~ ", theme.fg(Color::Yellow)),
            None => Span::raw("  "),
        }
    }
}
