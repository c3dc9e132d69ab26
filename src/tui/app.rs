//! The browser's state and how actions change it. No terminal is involved, so every
//! behaviour here is testable directly.

use super::index::GraphIndex;
use super::keys::Action;
use super::stats::{self, Stats, Update};
use crate::analysis::Analysis;
use crate::check::Item;
use crate::inventory::{ByteRange, GraphId, NodeId, NodeKind};
use bytes::Bytes;
use std::sync::mpsc::Receiver;

/// The views, one tab each.
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
}

impl Tab {
    /// Every tab, in display order.
    pub const ALL: [Tab; 6] = [
        Tab::Overview,
        Tab::Layout,
        Tab::Graph,
        Tab::Operators,
        Tab::Tensors,
        Tab::Findings,
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
        }
    }

    fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }
}

/// Tensor table columns, for sorting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorColumn {
    /// File order.
    Index,
    /// Name.
    Name,
    /// Element type.
    Dtype,
    /// Inline, external or missing.
    Storage,
    /// Dimensions.
    Shape,
    /// Element count.
    Elements,
    /// Byte size.
    Bytes,
    /// Largest power of two dividing the offset.
    Alignment,
    /// Data offset.
    Offset,
}

impl TensorColumn {
    /// Sort order of `s`: sizes first, since "which tensor is biggest" is the usual question.
    const ALL: [TensorColumn; 9] = [
        Self::Index,
        Self::Bytes,
        Self::Elements,
        Self::Offset,
        Self::Alignment,
        Self::Name,
        Self::Dtype,
        Self::Storage,
        Self::Shape,
    ];

    /// Numbers sort largest first; text sorts A to Z.
    fn descending_by_default(self) -> bool {
        matches!(self, Self::Bytes | Self::Elements | Self::Alignment)
    }

    /// Column title.
    pub fn title(self) -> &'static str {
        match self {
            Self::Index => "#",
            Self::Name => "name",
            Self::Dtype => "dtype",
            Self::Storage => "storage",
            Self::Shape => "shape",
            Self::Elements => "elements",
            Self::Alignment => "align",
            Self::Bytes => "bytes",
            Self::Offset => "offset",
        }
    }
}

/// A scrolling list's position.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Selected row.
    pub selected: usize,
    /// First visible row.
    pub offset: usize,
}

impl Cursor {
    /// Keeps the selection inside `len` rows and visible in a window of `height` rows.
    pub fn clamp(&mut self, len: usize, height: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        let height = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
    }

    fn step(&mut self, delta: isize, len: usize) {
        let target = (self.selected as isize).saturating_add(delta).max(0) as usize;
        self.selected = target.min(len.saturating_sub(1));
    }
}

/// A place to return to with the back key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    graph: GraphId,
    node: NodeId,
}

/// The whole browser state.
pub struct App {
    /// What is shown.
    pub analysis: Analysis,
    /// The current tab.
    pub tab: Tab,
    /// Per-tab list positions.
    pub cursors: [Cursor; 6],
    /// The graph shown in the Graph view.
    pub graph: GraphId,
    /// Rows of the Graph view: node indices passing the filters.
    pub graph_rows: Vec<NodeId>,
    /// Rows of the Tensors view, in sort order.
    pub tensor_rows: Vec<usize>,
    /// Rows of the Operators view (indices into `histogram`) passing the filter.
    pub op_rows: Vec<usize>,
    /// Rows of the Findings view passing the filter.
    pub finding_rows: Vec<usize>,
    /// The tensor sort column and direction (true = descending).
    pub tensor_sort: (TensorColumn, bool),
    /// The text filter, applied to names.
    pub filter: String,
    /// True while the filter is being typed.
    pub typing: bool,
    /// Show only operators of this type in the Graph view.
    pub op_filter: Option<String>,
    /// Selected link (input, output or subgraph) in the Graph detail pane.
    pub link: usize,
    /// True while the help overlay is open.
    pub help: bool,
    /// Set when the user asked to quit.
    pub quit: bool,
    /// Visible list height, updated by each draw.
    pub page: usize,
    /// The Overview text (the `inspect` summary), made once.
    pub overview: Vec<String>,
    /// Operator types with counts, most frequent first, made once.
    pub histogram: Vec<(String, u64)>,
    /// Value statistics of a tensor: requested, running or done.
    pub stats: StatsView,
    /// For each file, the bytes two or more tensors claim, made once.
    pub shared: Vec<Vec<ByteRange>>,
    history: Vec<Place>,
    index: Option<GraphIndex>,
    /// The model's files, mapped when a tensor's bytes are first shown.
    files: Vec<Option<Bytes>>,
    worker: Option<Receiver<Update>>,
}

/// The statistics pane's state.
#[derive(Debug, Clone, PartialEq)]
pub enum StatsView {
    /// Nothing requested.
    Idle,
    /// Computing for a tensor: elements done, of the total.
    Running(usize, u64, u64),
    /// Finished for a tensor.
    Done(usize, Result<Stats, String>),
}

/// What a Graph-view link leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// A node of the current graph.
    Node(NodeId),
    /// A subgraph.
    Graph(GraphId),
}

impl App {
    /// A browser over `analysis`, opened on `tab`.
    pub fn new(analysis: Analysis, tab: Tab) -> Self {
        let mut app = App {
            analysis,
            tab,
            cursors: [Cursor::default(); 6],
            graph: 0,
            graph_rows: Vec::new(),
            tensor_rows: Vec::new(),
            op_rows: Vec::new(),
            finding_rows: Vec::new(),
            tensor_sort: (TensorColumn::Index, false),
            filter: String::new(),
            typing: false,
            op_filter: None,
            link: 0,
            help: false,
            quit: false,
            page: 20,
            overview: Vec::new(),
            histogram: Vec::new(),
            stats: StatsView::Idle,
            shared: Vec::new(),
            history: Vec::new(),
            index: None,
            files: Vec::new(),
            worker: None,
        };
        app.shared = super::overlaps::shared_ranges(&app.analysis.inventory);
        let mut text = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = crate::summary::write(&mut text, &app.analysis);
        app.overview = String::from_utf8_lossy(&text)
            .lines()
            .map(str::to_owned)
            .collect();
        app.histogram = app
            .analysis
            .inventory
            .operator_histogram()
            .into_iter()
            .map(|(op, n)| (op.to_owned(), n))
            .collect();
        app.refresh_rows();
        app
    }

    /// The cursor of the current tab.
    pub fn cursor(&mut self) -> &mut Cursor {
        &mut self.cursors[self.tab.index()]
    }

    /// Rows in the current tab's list.
    pub fn rows(&self) -> usize {
        let inv = &self.analysis.inventory;
        match self.tab {
            Tab::Overview => self.overview.len(),
            Tab::Layout => inv.sections.len(),
            Tab::Graph => self.graph_rows.len(),
            Tab::Operators => self.op_rows.len(),
            Tab::Tensors => self.tensor_rows.len(),
            Tab::Findings => self.finding_rows.len(),
        }
    }

    /// The node selected in the Graph view.
    pub fn selected_node(&self) -> Option<NodeId> {
        self.graph_rows
            .get(self.cursors[Tab::Graph.index()].selected)
            .copied()
    }

    /// Producer/consumer index of the current graph, built on first use.
    pub fn index(&mut self) -> &GraphIndex {
        let graph = self.graph;
        if self.index.as_ref().is_some_and(|i| i.graph != graph) {
            self.index = None;
        }
        let inv = &self.analysis.inventory;
        self.index
            .get_or_insert_with(|| GraphIndex::build(inv, graph))
    }

    /// The index, if already built for the current graph (drawing never builds it).
    pub fn index_ref(&self) -> Option<&GraphIndex> {
        self.index.as_ref().filter(|i| i.graph == self.graph)
    }

    /// The links of the selected node: inputs, outputs and subgraphs, in that order.
    pub fn links(&mut self) -> Vec<Link> {
        let Some(id) = self.selected_node() else {
            return Vec::new();
        };
        let graph = self.graph;
        let Some(node) = self
            .analysis
            .inventory
            .graphs
            .get(graph)
            .and_then(|g| g.node(id))
        else {
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
                let index = self.index();
                index
                    .producer(id)
                    .into_iter()
                    .chain(index.consumers(id).iter().copied())
                    .map(Link::Node)
                    .collect()
            }
        }
    }

    /// Applies one action.
    pub fn apply(&mut self, action: Action) {
        let len = self.rows();
        let page = self.page.max(1) as isize;
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.help = !self.help,
            Action::Tab(tab) => self.switch(tab),
            Action::NextTab => self.switch(Tab::ALL[(self.tab.index() + 1) % Tab::ALL.len()]),
            Action::PrevTab => {
                self.switch(Tab::ALL[(self.tab.index() + Tab::ALL.len() - 1) % Tab::ALL.len()])
            }
            Action::Down => self.move_by(1, len),
            Action::Up => self.move_by(-1, len),
            Action::PageDown => self.move_by(page, len),
            Action::PageUp => self.move_by(-page, len),
            Action::Top => self.move_by(isize::MIN / 2, len),
            Action::Bottom => self.move_by(isize::MAX / 2, len),
            Action::Filter => self.typing = true,
            Action::Type(c) => {
                self.filter.push(c);
                self.refresh_rows();
            }
            Action::Erase => {
                self.filter.pop();
                self.refresh_rows();
            }
            Action::EndTyping => self.typing = false,
            Action::ClearFilter => {
                self.typing = false;
                self.filter.clear();
                self.op_filter = None;
                self.refresh_rows();
            }
            Action::NextLink => self.link = self.link.saturating_add(1),
            Action::PrevLink => self.link = self.link.saturating_sub(1),
            Action::Follow => self.follow(),
            Action::Back => self.back(),
            Action::Sort => {
                let next = TensorColumn::ALL
                    .iter()
                    .position(|c| *c == self.tensor_sort.0)
                    .map_or(0, |i| (i + 1) % TensorColumn::ALL.len());
                let column = TensorColumn::ALL[next];
                self.tensor_sort = (column, column.descending_by_default());
                self.refresh_rows();
            }
            Action::Reverse => {
                self.tensor_sort.1 = !self.tensor_sort.1;
                self.refresh_rows();
            }
            Action::Stats => self.start_stats(),
        }
    }

    /// The tensor selected in the Tensors view.
    pub fn selected_tensor(&self) -> Option<usize> {
        self.tensor_rows
            .get(self.cursors[Tab::Tensors.index()].selected)
            .copied()
    }

    /// The bytes of tensor `id`, mapping its file on first use. Only files the reader
    /// accepted are listed in the inventory, so only those are opened.
    pub fn tensor_bytes(&mut self, id: usize) -> Result<Bytes, String> {
        let inv = &self.analysis.inventory;
        let t = inv.tensors.get(id).ok_or("no such tensor")?;
        let d = t.data.ok_or("the tensor has no stored data")?;
        if self.files.len() < inv.files.len() {
            self.files.resize(inv.files.len(), None);
        }
        let file = match &self.files[d.file] {
            Some(bytes) => bytes.clone(),
            None => {
                let path = &inv.files[d.file].path;
                let bytes = crate::source::ModelFile::open(path)
                    .map_err(|e| e.to_string())?
                    .shared();
                self.files[d.file] = Some(bytes.clone());
                bytes
            }
        };
        let end = d
            .end()
            .filter(|&e| e <= file.len() as u64)
            .ok_or("the data lies outside its file")?;
        Ok(file.slice(d.offset as usize..end as usize))
    }

    fn start_stats(&mut self) {
        let Some(id) = self.selected_tensor() else {
            return;
        };
        let dtype = self.analysis.inventory.tensors[id].dtype;
        match (self.tensor_bytes(id), dtype) {
            (Ok(bytes), Some(dtype)) => {
                self.worker = Some(stats::spawn(bytes, dtype));
                self.stats = StatsView::Running(id, 0, 0);
            }
            (Err(e), _) => self.stats = StatsView::Done(id, Err(e)),
            (_, None) => self.stats = StatsView::Done(id, Err("the tensor has no dtype".into())),
        }
    }

    /// Takes the worker's news; true if the screen should be redrawn.
    pub fn poll(&mut self) -> bool {
        let Some(rx) = &self.worker else { return false };
        let mut changed = false;
        while let Ok(update) = rx.try_recv() {
            changed = true;
            let id = match self.stats {
                StatsView::Running(id, ..) | StatsView::Done(id, _) => id,
                StatsView::Idle => return changed,
            };
            match update {
                Update::Progress(done, total) => self.stats = StatsView::Running(id, done, total),
                Update::Done(result) => {
                    self.stats = StatsView::Done(id, result);
                    self.worker = None;
                    break;
                }
            }
        }
        changed
    }

    /// True while statistics are being computed.
    pub fn busy(&self) -> bool {
        self.worker.is_some()
    }

    fn switch(&mut self, tab: Tab) {
        self.tab = tab;
        self.help = false;
    }

    fn move_by(&mut self, delta: isize, len: usize) {
        self.cursor().step(delta, len);
        self.link = 0;
    }

    /// Enter: follow a link in the Graph view, filter by an operator, or jump to a finding.
    fn follow(&mut self) {
        match self.tab {
            Tab::Graph => {
                let links = self.links();
                let Some(&link) = links.get(self.link.min(links.len().saturating_sub(1))) else {
                    return;
                };
                self.remember();
                match link {
                    Link::Node(node) => self.show_node(self.graph, node),
                    Link::Graph(graph) => self.show_node(graph, 0),
                }
            }
            Tab::Operators => {
                let selected = self.cursors[Tab::Operators.index()].selected;
                let op = self
                    .op_rows
                    .get(selected)
                    .and_then(|&i| self.histogram.get(i))
                    .map(|(op, _)| op.clone());
                self.op_filter = op;
                self.filter.clear();
                self.graph = 0;
                self.refresh_rows();
                self.cursors[Tab::Graph.index()] = Cursor::default();
                self.tab = Tab::Graph;
            }
            Tab::Findings => {
                let selected = self.cursors[Tab::Findings.index()].selected;
                let finding = self
                    .finding_rows
                    .get(selected)
                    .and_then(|&i| self.analysis.findings.get(i));
                match finding.and_then(|f| f.item) {
                    Some(Item::Node { graph, node }) => self.show_node(graph, node),
                    Some(Item::Tensor { tensor }) => {
                        self.filter.clear();
                        self.refresh_rows();
                        if let Some(row) = self.tensor_rows.iter().position(|&t| t == tensor) {
                            self.cursors[Tab::Tensors.index()].selected = row;
                        }
                        self.tab = Tab::Tensors;
                    }
                    Some(Item::Section { section }) => {
                        self.cursors[Tab::Layout.index()].selected = section;
                        self.tab = Tab::Layout;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn remember(&mut self) {
        if let Some(node) = self.selected_node() {
            self.history.push(Place {
                graph: self.graph,
                node,
            });
        }
    }

    fn back(&mut self) {
        if let Some(place) = self.history.pop() {
            self.show_node(place.graph, place.node);
        }
    }

    /// Shows `node` of `graph` in the Graph view, clearing filters that would hide it.
    pub fn show_node(&mut self, graph: GraphId, node: NodeId) {
        if graph >= self.analysis.inventory.graphs.len() {
            return;
        }
        self.tab = Tab::Graph;
        self.graph = graph;
        self.filter.clear();
        self.op_filter = None;
        self.link = 0;
        self.refresh_rows();
        let row = self.graph_rows.iter().position(|&n| n == node).unwrap_or(0);
        self.cursors[Tab::Graph.index()].selected = row;
    }

    /// Recomputes the Graph and Tensors rows after a filter or sort change.
    pub fn refresh_rows(&mut self) {
        let inv = &self.analysis.inventory;
        let needle = self.filter.to_lowercase();
        let matches = |name: &crate::inventory::Name| {
            needle.is_empty() || name.display().to_lowercase().contains(&needle)
        };
        self.graph_rows = inv.graphs.get(self.graph).map_or_else(Vec::new, |g| {
            (0u32..)
                .zip(&g.nodes)
                .filter(|(_, n)| matches(&n.name))
                .filter(|(_, n)| match (&self.op_filter, &n.kind) {
                    (None, _) => true,
                    (Some(op), NodeKind::Operator(o)) => o.op_type == *op,
                    _ => false,
                })
                .map(|(i, _)| i)
                .collect()
        });
        let mut rows: Vec<usize> = (0..inv.tensors.len())
            .filter(|&i| matches(&inv.tensors[i].name))
            .collect();
        let (column, descending) = self.tensor_sort;
        let t = &inv.tensors;
        match column {
            TensorColumn::Index => {}
            TensorColumn::Name => rows.sort_by(|&a, &b| t[a].name.cmp(&t[b].name)),
            TensorColumn::Dtype => rows.sort_by_key(|&i| t[i].dtype.map(|d| d.name())),
            TensorColumn::Storage => rows.sort_by_key(|&i| t[i].storage as u8),
            TensorColumn::Shape => rows.sort_by(|&a, &b| t[a].shape.cmp(&t[b].shape)),
            TensorColumn::Elements => rows.sort_by_key(|&i| t[i].elements),
            TensorColumn::Alignment => {
                rows.sort_by_key(|&i| t[i].data.map(|d| d.offset.trailing_zeros()))
            }
            TensorColumn::Bytes => rows.sort_by_key(|&i| t[i].byte_size),
            TensorColumn::Offset => rows.sort_by_key(|&i| t[i].data.map(|d| (d.file, d.offset))),
        }
        if descending {
            rows.reverse();
        }
        self.tensor_rows = rows;
        let text_matches = |text: &str| needle.is_empty() || text.to_lowercase().contains(&needle);
        self.op_rows = (0..self.histogram.len())
            .filter(|&i| text_matches(&self.histogram[i].0))
            .collect();
        self.finding_rows = (0..self.analysis.findings.len())
            .filter(|&i| {
                let f = &self.analysis.findings[i];
                text_matches(&f.message) || text_matches(f.rule.code) || text_matches(f.rule.name)
            })
            .collect();
        for tab in [Tab::Graph, Tab::Tensors] {
            let len = if tab == Tab::Graph {
                self.graph_rows.len()
            } else {
                self.tensor_rows.len()
            };
            self.cursors[tab.index()].clamp(len, usize::MAX);
        }
    }
}
