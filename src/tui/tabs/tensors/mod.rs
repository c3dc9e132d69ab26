//! Tensors: a sortable table of constants, with a hex dump of the selected one and its value
//! statistics, computed on a background thread.

mod detail;
mod sort;
mod stats;
mod table;

pub use sort::{TensorColumn, TensorSort};
pub use stats::Figures;

use crate::analysis::Analysis;
use crate::inventory::{Inventory, TensorId};
use crate::tui::component::Component;
use crate::tui::event::Event;
use crate::tui::files::Files;
use crate::tui::filter::TextFilter;
use crate::tui::filtered_list::FilteredList;
use crate::tui::keys::Action;
use crate::tui::marks::Marks;
use crate::tui::theme::Theme;
use bytes::Bytes;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::Frame;
use stats::Update;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

/// The statistics pane's state.
#[derive(Debug, Clone, PartialEq)]
pub enum StatsView {
    /// Nothing requested.
    Idle,
    /// Being computed.
    Running {
        /// The tensor.
        tensor: TensorId,
        /// Elements done.
        done: u64,
        /// Elements in all.
        total: u64,
    },
    /// Finished.
    Done {
        /// The tensor.
        tensor: TensorId,
        /// The statistics, or why there are none.
        result: Result<Figures, String>,
    },
}

/// The Tensors tab: the rows the filter keeps in sort order, and the statistics worker.
pub struct TensorsTab {
    list: FilteredList<TensorId>,
    sort: TensorSort,
    stats: StatsView,
    worker: Option<Receiver<Update>>,
    /// The model's files, mapped when a tensor's bytes are first shown.
    files: Files,
    /// What differs from the model compared with.
    pub(crate) marks: Arc<Marks>,
}

impl TensorsTab {
    /// The Tensors tab of `inv`, in file order.
    pub fn new(inv: &Inventory) -> Self {
        TensorsTab {
            list: FilteredList::new((0..inv.tensors.len()).collect()),
            sort: TensorSort::default(),
            stats: StatsView::Idle,
            worker: None,
            files: Files::default(),
            marks: Arc::default(),
        }
    }

    /// The tensors listed, in order.
    pub fn rows(&self) -> &[TensorId] {
        self.list.rows()
    }

    /// The sort order.
    pub fn sort(&self) -> TensorSort {
        self.sort
    }

    /// The statistics pane's state.
    pub fn stats(&self) -> &StatsView {
        &self.stats
    }

    /// The selected tensor.
    pub fn selected_tensor(&self) -> Option<TensorId> {
        self.list.selected()
    }

    /// Selects tensor `id`, clearing the filter.
    pub fn show(&mut self, inv: &Inventory, id: TensorId) {
        self.list.clear_filter();
        self.refresh(inv);
        if let Some(row) = self.list.position(id) {
            self.list.select_row(row);
        }
    }

    /// The bytes of tensor `id`, mapping its file on first use ([`Files`]).
    pub fn tensor_bytes(&mut self, inv: &Inventory, id: TensorId) -> Result<Bytes, String> {
        let t = inv.tensors.get(id).ok_or("no such tensor")?;
        let mut d = t.data.ok_or("the tensor has no stored data")?;
        // A view's data is its whole storage: only the stretch it reaches is its own.
        if let (Some(view), Some(dtype)) = (inv.views.iter().find(|v| v.tensor == id), t.dtype) {
            d = view
                .span(&t.shape, dtype, d)
                .ok_or("the view reaches past its storage")?;
        }
        let file = self.files.bytes(inv, d)?;
        let end = d
            .end()
            .filter(|&e| e <= file.len() as u64)
            .ok_or("the data lies outside its file")?;
        Ok(file.slice(d.offset as usize..end as usize))
    }

    fn start_stats(&mut self, inv: &Inventory) {
        let Some(tensor) = self.selected_tensor() else {
            return;
        };
        let result = match (self.tensor_bytes(inv, tensor), inv.tensors[tensor].dtype) {
            (Ok(bytes), Some(dtype)) => {
                self.worker = Some(stats::spawn(bytes, dtype));
                self.stats = StatsView::Running {
                    tensor,
                    done: 0,
                    total: 0,
                };
                return;
            }
            (Err(e), _) => Err(e),
            (_, None) => Err("the tensor has no dtype".into()),
        };
        self.stats = StatsView::Done { tensor, result };
    }

    /// Takes the worker's news; true if the screen should be redrawn.
    fn poll_stats(&mut self) -> bool {
        let Some(rx) = &self.worker else { return false };
        let mut changed = false;
        while let Ok(update) = rx.try_recv() {
            changed = true;
            let tensor = match self.stats {
                StatsView::Running { tensor, .. } | StatsView::Done { tensor, .. } => tensor,
                StatsView::Idle => return changed,
            };
            match update {
                Update::Progress { done, total } => {
                    self.stats = StatsView::Running {
                        tensor,
                        done,
                        total,
                    }
                }
                Update::Done(result) => {
                    self.stats = StatsView::Done { tensor, result };
                    self.worker = None;
                    break;
                }
            }
        }
        changed
    }

    /// Makes the rows again after the filter or the sort changed.
    fn refresh(&mut self, inv: &Inventory) {
        self.list
            .set_rows(tensor_rows(inv, self.list.filter(), self.sort));
    }
}

/// The tensors whose names contain the filter, in `sort` order.
fn tensor_rows(inv: &Inventory, filter: &TextFilter, sort: TensorSort) -> Vec<TensorId> {
    let t = &inv.tensors;
    let mut rows: Vec<TensorId> = (0..t.len())
        .filter(|&i| filter.matches_name(&t[i].name))
        .collect();
    sort.apply(&mut rows, t);
    rows
}

impl Component for TensorsTab {
    fn actions(&self) -> &'static [Action] {
        &[Action::Stats, Action::Copy, Action::Sort, Action::Reverse]
    }

    fn receive(&mut self, event: &Event, inv: &Inventory) -> bool {
        let &Event::ShowTensor(tensor) = event else {
            return false;
        };
        self.show(inv, tensor);
        true
    }

    fn mark(&mut self, marks: &Arc<Marks>) {
        self.marks = Arc::clone(marks);
    }

    fn poll(&mut self) -> bool {
        self.poll_stats()
    }

    fn busy(&self) -> bool {
        self.worker.is_some()
    }

    fn selection(&self, analysis: &Analysis) -> Option<String> {
        let tensor = analysis.inventory.tensors.get(self.selected_tensor()?)?;
        Some(String::from_utf8_lossy(tensor.name.as_bytes()).into_owned())
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        let inv = &analysis.inventory;
        let sort = self.sort;
        if self
            .list
            .handle(action, |filter| tensor_rows(inv, filter, sort))
        {
            return None;
        }
        match action {
            Action::Sort => {
                self.sort = self.sort.next();
                self.refresh(inv);
            }
            Action::Reverse => {
                self.sort.descending = !self.sort.descending;
                self.refresh(inv);
            }
            Action::Stats => self.start_stats(inv),
            _ => {}
        }
        None
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        let (pane, height) = detail::pane(self, &analysis.inventory, theme);
        let [header, table, detail] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(height),
        ])
        .areas(area);
        table::draw(self, frame, [header, table], &analysis.inventory, theme);
        frame.render_widget(pane, detail);
    }

    fn filter(&self) -> Option<&TextFilter> {
        Some(self.list.filter())
    }
}
