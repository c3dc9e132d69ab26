//! The nine tabs by name: their order, titles and `--tab` values.

/// The tabs, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tab {
    /// File, format, sections, inputs and outputs, counts, metadata, findings summary.
    Overview,
    /// The byte map of the file.
    Layout,
    /// Nodes in order, with a detail pane.
    Graph,
    /// Operator types with counts.
    Operators,
    /// Constant tensors.
    Tensors,
    /// Check results.
    Findings,
    /// Where the bytes go.
    Sizes,
    /// Key-value metadata and header properties; lists paged.
    Metadata,
    /// What loading the file would import and run.
    Imports,
}

impl Tab {
    /// Every tab, in display order.
    pub const ALL: [Tab; 9] = [
        Tab::Overview,
        Tab::Layout,
        Tab::Graph,
        Tab::Operators,
        Tab::Tensors,
        Tab::Findings,
        Tab::Sizes,
        Tab::Metadata,
        Tab::Imports,
    ];

    /// Title in the tab bar.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Overview => "Overview",
            Tab::Layout => "Layout",
            Tab::Graph => "Graph",
            Tab::Operators => "Operators",
            Tab::Tensors => "Tensors",
            Tab::Findings => "Findings",
            Tab::Sizes => "Sizes",
            Tab::Metadata => "Metadata",
            Tab::Imports => "Imports",
        }
    }

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
