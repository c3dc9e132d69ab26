//! The tabs' own state, one struct each, behind the [`Component`] trait.

pub mod findings;
pub mod graph;
pub mod imports;
pub mod layout;
pub mod metadata;
pub mod operators;
pub mod overview;
pub mod sizes;
pub mod tensors;

use super::component::Component;
use super::marks::Marks;
use super::tab::Tab;
use crate::analysis::Analysis;
use crate::diff::Diff;
pub(crate) use crate::escape::column;
use findings::FindingsTab;
use graph::GraphTab;
use imports::ImportsTab;
use layout::LayoutTab;
use metadata::MetadataTab;
use operators::OperatorsTab;
use overview::OverviewTab;
use sizes::SizesTab;
use std::sync::Arc;
use tensors::TensorsTab;

/// Every tab's state.
pub struct Tabs {
    /// Overview.
    pub overview: OverviewTab,
    /// Layout.
    pub layout: LayoutTab,
    /// Graph.
    pub graph: GraphTab,
    /// Operators.
    pub operators: OperatorsTab,
    /// Tensors.
    pub tensors: TensorsTab,
    /// Findings.
    pub findings: FindingsTab,
    /// Sizes.
    pub sizes: SizesTab,
    /// Metadata.
    pub metadata: MetadataTab,
    /// Imports.
    pub imports: ImportsTab,
}

impl Tabs {
    /// The tabs of `analysis`, each at its start.
    pub fn new(analysis: &Analysis) -> Self {
        Tabs::compared(analysis, None)
    }

    /// The tabs of `analysis`, with what differs from another model marked when `diff`
    /// compares that model (as A) with this one (as B).
    pub fn compared(analysis: &Analysis, diff: Option<&Diff>) -> Self {
        let inv = &analysis.inventory;
        let mut tabs = Tabs {
            overview: OverviewTab::new(analysis, diff),
            layout: LayoutTab::new(inv),
            graph: GraphTab::new(inv),
            operators: OperatorsTab::new(inv),
            tensors: TensorsTab::new(inv),
            findings: FindingsTab::new(&analysis.findings),
            sizes: SizesTab::new(inv),
            metadata: MetadataTab::new(inv),
            imports: ImportsTab::new(inv),
        };
        if let Some(diff) = diff {
            let marks = tabs.graph.mark(Marks::of(inv, diff));
            tabs.operators.marks = Arc::clone(&marks);
            tabs.tensors.marks = marks;
        }
        tabs
    }

    /// The state of `tab`.
    pub fn get(&mut self, tab: Tab) -> &mut dyn Component {
        match tab {
            Tab::Overview => &mut self.overview,
            Tab::Layout => &mut self.layout,
            Tab::Graph => &mut self.graph,
            Tab::Operators => &mut self.operators,
            Tab::Tensors => &mut self.tensors,
            Tab::Findings => &mut self.findings,
            Tab::Sizes => &mut self.sizes,
            Tab::Metadata => &mut self.metadata,
            Tab::Imports => &mut self.imports,
        }
    }
}
