//! Metadata: the model's key-value metadata and header properties, searchable; Enter on a
//! list (a GGUF vocabulary) pages through its items, read from the file a page at a time,
//! and on any other entry shows its whole value wrapped to the screen (a chat template).

use crate::analysis::Analysis;
use crate::escape::sanitize;
use crate::inventory::{Inventory, ListValue};
use crate::tui::component::Component;
use crate::tui::cursor::Cursor;
use crate::tui::event::Event;
use crate::tui::files::Files;
use crate::tui::filter::TextFilter;
use crate::tui::filtered_list::FilteredList;
use crate::tui::keys::Action;
use crate::tui::list;
use crate::tui::theme::Theme;
use bytes::Bytes;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;

/// Characters of a key shown before its value.
const KEY_WIDTH: usize = 36;

/// A row: a metadata entry or a header property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Metadata(usize),
    Property(usize),
}

/// The items of one list, paged.
struct Items {
    /// The metadata entry whose list this is.
    entry: usize,
    list: ListValue,
    /// The content of the file that holds it.
    bytes: Bytes,
    cursor: Cursor,
}

/// One entry's whole value, its lines wrapped to the width last drawn.
struct Whole {
    row: Row,
    width: usize,
    lines: Vec<String>,
    cursor: Cursor,
}

/// The Metadata tab.
pub struct MetadataTab {
    list: FilteredList<Row>,
    files: Files,
    items: Option<Items>,
    whole: Option<Whole>,
    /// Why the last list could not be shown.
    error: Option<String>,
}

impl MetadataTab {
    /// The Metadata tab of `inv`.
    pub fn new(inv: &Inventory) -> Self {
        MetadataTab {
            list: FilteredList::new(rows(inv, &TextFilter::default())),
            files: Files::default(),
            items: None,
            whole: None,
            error: None,
        }
    }

    /// Opens the items of the selected entry if it is a list, else its whole value.
    fn open(&mut self, inv: &Inventory) {
        let Some(row) = self.list.selected() else {
            return;
        };
        let list = match row {
            Row::Metadata(entry) => inv.metadata.get(entry).and_then(|m| m.list),
            Row::Property(_) => None,
        };
        let (Row::Metadata(entry), Some(list)) = (row, list) else {
            self.whole = Some(Whole {
                row,
                width: 0,
                lines: Vec::new(),
                cursor: Cursor::default(),
            });
            return;
        };
        match self.files.bytes(inv, list.data) {
            Ok(bytes) => {
                self.error = None;
                let cursor = Cursor::default();
                self.items = Some(Items {
                    entry,
                    list,
                    bytes,
                    cursor,
                });
            }
            Err(e) => self.error = Some(e),
        }
    }
}

/// The rows `filter` keeps: metadata first, then properties; a row matches on its key or
/// its value.
fn rows(inv: &Inventory, filter: &TextFilter) -> Vec<Row> {
    let metadata = (inv.metadata.iter().enumerate())
        .filter(|(_, m)| filter.matches(&m.key.display()) || filter.matches(&m.value.display()))
        .map(|(i, _)| Row::Metadata(i));
    let properties = (inv.properties.iter().enumerate())
        .filter(|(_, p)| filter.matches(&p.key) || filter.matches(&p.value))
        .map(|(i, _)| Row::Property(i));
    metadata.chain(properties).collect()
}

/// The key and value of `row`, as stored.
fn text(inv: &Inventory, row: Row) -> (String, String) {
    match row {
        Row::Metadata(i) => inv.metadata.get(i).map_or_else(Default::default, |m| {
            let key = String::from_utf8_lossy(m.key.as_bytes()).into_owned();
            let value = String::from_utf8_lossy(m.value.as_bytes()).into_owned();
            (key, value)
        }),
        Row::Property(i) => inv
            .properties
            .get(i)
            .map_or_else(Default::default, |p| (p.key.clone(), p.value.clone())),
    }
}

/// `value`'s lines, escaped, cut into pieces of `width` characters.
fn wrapped(value: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for line in value.split('\n') {
        let chars: Vec<char> = sanitize(line).chars().collect();
        lines.extend(chars.chunks(width).map(|c| c.iter().collect::<String>()));
        if chars.is_empty() {
            lines.push(String::new());
        }
    }
    lines
}

impl Component for MetadataTab {
    fn actions(&self) -> &'static [Action] {
        &[Action::Open, Action::Back, Action::Copy]
    }

    fn handle(&mut self, action: Action, analysis: &Analysis) -> Option<Event> {
        let inv = &analysis.inventory;
        if let Some(whole) = &mut self.whole {
            match action {
                Action::Back | Action::Open | Action::ClearFilter => self.whole = None,
                _ => {
                    whole.cursor.navigate(action, whole.lines.len());
                }
            }
            return None;
        }
        if let Some(items) = &mut self.items {
            let len = usize::try_from(items.list.count).unwrap_or(usize::MAX);
            match action {
                Action::Back | Action::Open | Action::ClearFilter => self.items = None,
                _ => {
                    items.cursor.navigate(action, len);
                }
            }
            return None;
        }
        if self.list.handle(action, |filter| rows(inv, filter)) {
            return None;
        }
        if action == Action::Open {
            self.open(inv);
        }
        None
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, analysis: &Analysis, theme: Theme) {
        let inv = &analysis.inventory;
        if let Some(whole) = &mut self.whole {
            let (key, value) = text(inv, whole.row);
            let width = usize::from(area.width.saturating_sub(2));
            if whole.width != width {
                (whole.width, whole.lines) = (width, wrapped(&value, width));
            }
            let title = format!(
                " {} · {} characters · Enter/b back ",
                super::column(&sanitize(&key), KEY_WIDTH),
                value.chars().count()
            );
            let lines = &whole.lines;
            return list::draw(
                frame,
                area,
                title,
                &mut whole.cursor,
                lines.len(),
                theme,
                |i| Line::raw(lines.get(i).cloned().unwrap_or_default()),
            );
        }
        if let Some(items) = &mut self.items {
            let key = inv.metadata.get(items.entry).map(|m| m.key.display());
            let title = format!(
                " {} · {} {} items · Enter/b back ",
                key.unwrap_or_default(),
                items.list.count,
                items.list.item.name()
            );
            let len = usize::try_from(items.list.count).unwrap_or(usize::MAX);
            let height = area.height.saturating_sub(2) as usize;
            items.cursor.fit(len, height);
            let first = items.cursor.offset;
            let page = items.list.items(&items.bytes, first as u64, height);
            return list::draw(frame, area, title, &mut items.cursor, len, theme, |i| {
                let value = page.get(i - first).map_or("", String::as_str);
                Line::from(vec![
                    Span::styled(format!("{i:>8}  "), theme.dim()),
                    Span::raw(sanitize(value).into_owned()),
                ])
            });
        }
        let mut title = " metadata · Enter a value whole, or a list's items ".to_owned();
        if let Some(error) = &self.error {
            title = format!(" metadata · cannot read the list: {} ", sanitize(error));
        }
        self.list.draw(frame, area, &title, theme, |row| {
            let (key, value) = text(inv, row);
            let key = super::column(&sanitize(&key), KEY_WIDTH);
            let style = match row {
                Row::Metadata(_) => theme.heading(),
                Row::Property(_) => theme.dim(),
            };
            Line::from(vec![
                Span::styled(format!("{key:<KEY_WIDTH$} "), style),
                Span::raw(sanitize(&value).into_owned()),
            ])
        });
    }

    fn filter(&self) -> Option<&TextFilter> {
        match (&self.items, &self.whole) {
            (None, None) => Some(self.list.filter()),
            _ => None,
        }
    }

    fn filtered(&self) -> bool {
        self.items.is_some() || self.whole.is_some() || !self.list.filter().is_empty()
    }

    fn selection(&self, analysis: &Analysis) -> Option<String> {
        let inv = &analysis.inventory;
        if let Some(whole) = &self.whole {
            return Some(text(inv, whole.row).1);
        }
        if let Some(items) = &self.items {
            let at = items.cursor.selected as u64;
            return items.list.items(&items.bytes, at, 1).pop();
        }
        let (key, value) = text(inv, self.list.selected()?);
        Some(format!("{key} = {value}"))
    }
}
