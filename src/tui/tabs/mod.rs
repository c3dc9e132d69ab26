//! The tabs, declared once: each is a module with its state behind the [`Component`]
//! trait, and one line of [`tabs!`] that gives it its place, title and constructor. The tab
//! bar, the digit keys, `--tab` and the routing of events all follow from that list.

use super::component::Component;
use super::keys::Mode;
use super::marks::Marks;
use crate::analysis::Analysis;
use crate::diff::Diff;
pub(crate) use crate::escape::column;
use std::sync::Arc;

/// Declares the tabs in display order: a tab's doc comment (its `--tab` help), its `Tab`
/// variant (also its title), its module and state, and how the state is made from the
/// analysis and the diff it is compared by.
macro_rules! tabs {
    ($($(#[doc = $doc:literal])* $tab:ident: $module:ident::$state:ident
        = |$a:pat_param, $d:pat_param| $make:expr;)*) => {
        $(pub mod $module;)*

        /// The tabs, in display order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
        pub enum Tab {
            $($(#[doc = $doc])* $tab,)*
        }

        impl Tab {
            /// Every tab, in display order.
            pub const ALL: [Tab; [$(Tab::$tab),*].len()] = [$(Tab::$tab),*];

            /// Title in the tab bar.
            pub fn title(self) -> &'static str {
                match self {
                    $(Tab::$tab => stringify!($tab),)*
                }
            }
        }

        /// Every tab's state.
        pub struct Tabs {
            $(#[doc = stringify!($tab)] pub $module: $module::$state,)*
        }

        impl Tabs {
            fn make(analysis: &Analysis, diff: Option<&Diff>) -> Self {
                Tabs {
                    $($module: {
                        let ($a, $d) = (analysis, diff);
                        $make
                    },)*
                }
            }

            /// The state of `tab`.
            pub fn get(&mut self, tab: Tab) -> &mut dyn Component {
                match tab {
                    $(Tab::$tab => &mut self.$module,)*
                }
            }

            /// The state of `tab`, to read.
            pub fn view(&self, tab: Tab) -> &dyn Component {
                match tab {
                    $(Tab::$tab => &self.$module,)*
                }
            }
        }
    };
}

tabs! {
    /// File, format, sections, inputs and outputs, counts, metadata, findings summary.
    Overview: overview::OverviewTab = |a, d| overview::OverviewTab::new(a, d);
    /// The byte map of the file.
    Layout: layout::LayoutTab = |a, _| layout::LayoutTab::new(&a.inventory);
    /// Nodes in order, with a detail pane.
    Graph: graph::GraphTab = |a, _| graph::GraphTab::new(&a.inventory);
    /// Operator types with counts.
    Operators: operators::OperatorsTab = |a, _| operators::OperatorsTab::new(&a.inventory);
    /// Constant tensors.
    Tensors: tensors::TensorsTab = |a, _| tensors::TensorsTab::new(&a.inventory);
    /// Check results.
    Findings: findings::FindingsTab = |a, _| findings::FindingsTab::new(&a.findings);
    /// Where the bytes go.
    Sizes: sizes::SizesTab = |a, _| sizes::SizesTab::new(&a.inventory);
    /// Key-value metadata and header properties; lists paged.
    Metadata: metadata::MetadataTab = |a, _| metadata::MetadataTab::new(&a.inventory);
    /// What loading the file would import and run.
    Imports: imports::ImportsTab = |a, _| imports::ImportsTab::new(&a.inventory);
}

impl Tab {
    /// The tab's number on screen and on its key, from 1.
    pub fn number(self) -> usize {
        self as usize + 1
    }

    /// The tab after this one, wrapping around.
    pub fn next(self) -> Tab {
        Tab::ALL[self.number() % Tab::ALL.len()]
    }

    /// The tab before this one, wrapping around.
    pub fn prev(self) -> Tab {
        Tab::ALL[(self.number() + Tab::ALL.len() - 2) % Tab::ALL.len()]
    }
}

impl Tabs {
    /// What decides the meaning of keys in `tab`, with no overlay open.
    pub fn mode(&self, tab: Tab) -> Mode {
        let current = self.view(tab);
        Mode {
            actions: current.actions(),
            searchable: current.filter().is_some(),
            help: false,
            typing: current.filter().is_some_and(|f| f.typing()),
            filtered: current.filtered(),
        }
    }

    /// The tabs of `analysis`, each at its start.
    pub fn new(analysis: &Analysis) -> Self {
        Tabs::compared(analysis, None)
    }

    /// The tabs of `analysis`, with what differs from another model marked when `diff`
    /// compares that model (as A) with this one (as B).
    pub fn compared(analysis: &Analysis, diff: Option<&Diff>) -> Self {
        let inv = &analysis.inventory;
        let mut tabs = Tabs::make(analysis, diff);
        if let Some(diff) = diff {
            // The Graph tab adds the scopes that hold a marked operator, from its scope tree.
            let marks = Arc::new(tabs.graph.scoped(Marks::of(inv, diff)));
            for tab in Tab::ALL {
                tabs.get(tab).mark(&marks);
            }
        }
        tabs
    }
}
