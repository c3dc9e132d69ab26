//! Key bindings: one table that both maps keys to actions and generates the help overlay
//! and the key bar, so help always matches behaviour.

use super::tab::Tab;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Everything a key can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // The help text in BINDINGS documents each action.
pub enum Action {
    Quit,
    Help,
    Tab(Tab),
    NextTab,
    PrevTab,
    Down,
    Up,
    PageDown,
    PageUp,
    Top,
    Bottom,
    Filter,
    Type(char),
    Erase,
    EndTyping,
    ClearFilter,
    NextLink,
    PrevLink,
    Follow,
    Back,
    Sort,
    Reverse,
    Stats,
    Copy,
    View,
    AllNodes,
    NextMatch,
    PrevMatch,
    Parent,
    Tree,
    Deeper,
    Shallower,
    DetailDown,
    DetailUp,
}

/// A key binding.
pub struct Binding {
    /// The keys, any of which triggers the action.
    pub keys: &'static [KeyCode],
    /// How the keys are written in help.
    pub label: &'static str,
    /// What happens.
    pub action: Action,
    /// Help text.
    pub help: &'static str,
    /// Tabs where the binding applies; empty for everywhere.
    pub tabs: &'static [Tab],
}

use KeyCode::*;

/// Every tab: all of them scroll.
const NAV: &[Tab] = &Tab::ALL;

/// Every binding, in help order.
pub static BINDINGS: &[Binding] = &[
    Binding {
        keys: &[Char('q')],
        label: "q Esc ^C",
        action: Action::Quit,
        help: "quit",
        tabs: &[],
    },
    Binding {
        keys: &[Char('?')],
        label: "?",
        action: Action::Help,
        help: "help",
        tabs: &[],
    },
    Binding {
        keys: &[Char('1')],
        label: "1-9",
        action: Action::Tab(Tab::Overview),
        help: "go to tab",
        tabs: &[],
    },
    Binding {
        keys: &[Char('2')],
        label: "",
        action: Action::Tab(Tab::Layout),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('3')],
        label: "",
        action: Action::Tab(Tab::Graph),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('4')],
        label: "",
        action: Action::Tab(Tab::Operators),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('5')],
        label: "",
        action: Action::Tab(Tab::Tensors),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('6')],
        label: "",
        action: Action::Tab(Tab::Findings),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('7')],
        label: "",
        action: Action::Tab(Tab::Sizes),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('8')],
        label: "",
        action: Action::Tab(Tab::Metadata),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('9')],
        label: "",
        action: Action::Tab(Tab::Imports),
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[KeyCode::Tab],
        label: "Tab S-Tab",
        action: Action::NextTab,
        help: "next/previous tab",
        tabs: &[],
    },
    Binding {
        keys: &[BackTab],
        label: "",
        action: Action::PrevTab,
        help: "",
        tabs: &[],
    },
    Binding {
        keys: &[Char('j'), KeyCode::Down],
        label: "j k ↓ ↑",
        action: Action::Down,
        help: "move",
        tabs: NAV,
    },
    Binding {
        keys: &[Char('k'), KeyCode::Up],
        label: "",
        action: Action::Up,
        help: "",
        tabs: NAV,
    },
    Binding {
        keys: &[KeyCode::PageDown, Char('d')],
        label: "PgDn PgUp",
        action: Action::PageDown,
        help: "page",
        tabs: NAV,
    },
    Binding {
        keys: &[KeyCode::PageUp, Char('u')],
        label: "",
        action: Action::PageUp,
        help: "",
        tabs: NAV,
    },
    Binding {
        keys: &[Home, Char('g')],
        label: "g G Home End",
        action: Action::Top,
        help: "first/last",
        tabs: NAV,
    },
    Binding {
        keys: &[End, Char('G')],
        label: "",
        action: Action::Bottom,
        help: "",
        tabs: NAV,
    },
    Binding {
        keys: &[Char('/')],
        label: "/",
        action: Action::Filter,
        help: "filter as you type",
        tabs: &[
            Tab::Graph,
            Tab::Operators,
            Tab::Tensors,
            Tab::Findings,
            Tab::Metadata,
            Tab::Imports,
        ],
    },
    Binding {
        keys: &[Char('v')],
        label: "v",
        action: Action::View,
        help: "neighbourhood/list",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Char('n')],
        label: "n N",
        action: Action::NextMatch,
        help: "next/previous match",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Char('N')],
        label: "",
        action: Action::PrevMatch,
        help: "",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Char('l'), Right],
        label: "h l ← →",
        action: Action::NextLink,
        help: "choose link or box",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Char('h'), Left],
        label: "",
        action: Action::PrevLink,
        help: "",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Enter],
        label: "Enter",
        action: Action::Stats,
        help: "value statistics",
        tabs: &[Tab::Tensors],
    },
    Binding {
        keys: &[Enter],
        label: "Enter",
        action: Action::Follow,
        help: "jump to it",
        tabs: &[
            Tab::Graph,
            Tab::Operators,
            Tab::Findings,
            Tab::Sizes,
            Tab::Imports,
        ],
    },
    Binding {
        keys: &[Enter],
        label: "Enter",
        action: Action::Follow,
        help: "page a list / back",
        tabs: &[Tab::Metadata],
    },
    Binding {
        keys: &[Backspace, Char('b')],
        label: "b Bksp",
        action: Action::Back,
        help: "back",
        tabs: &[Tab::Graph, Tab::Metadata],
    },
    Binding {
        keys: &[Char('p')],
        label: "p",
        action: Action::Parent,
        help: "leave subgraph",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Char('t')],
        label: "t",
        action: Action::Tree,
        help: "scope tree/list",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Char('+')],
        label: "+ -",
        action: Action::Deeper,
        help: "scope depth",
        tabs: &[Tab::Sizes],
    },
    Binding {
        keys: &[Char('-')],
        label: "",
        action: Action::Shallower,
        help: "",
        tabs: &[Tab::Sizes],
    },
    Binding {
        keys: &[Char('J')],
        label: "J K",
        action: Action::DetailDown,
        help: "scroll the explanation",
        tabs: &[Tab::Findings],
    },
    Binding {
        keys: &[Char('K')],
        label: "",
        action: Action::DetailUp,
        help: "",
        tabs: &[Tab::Findings],
    },
    Binding {
        keys: &[Char('a')],
        label: "a",
        action: Action::AllNodes,
        help: "operators/all nodes",
        tabs: &[Tab::Graph],
    },
    Binding {
        keys: &[Char('y')],
        label: "y",
        action: Action::Copy,
        help: "copy",
        tabs: &[
            Tab::Graph,
            Tab::Operators,
            Tab::Tensors,
            Tab::Findings,
            Tab::Sizes,
            Tab::Metadata,
            Tab::Imports,
        ],
    },
    Binding {
        keys: &[Char('s')],
        label: "s",
        action: Action::Sort,
        help: "sort column",
        tabs: &[Tab::Tensors],
    },
    Binding {
        keys: &[Char('r')],
        label: "r",
        action: Action::Reverse,
        help: "reverse sort",
        tabs: &[Tab::Tensors],
    },
];

/// What a key does besides the key itself: where the user is and what is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// The current tab.
    pub tab: Tab,
    /// The help overlay is open.
    pub help: bool,
    /// A filter is being typed: keys are text.
    pub typing: bool,
    /// A filter hides rows of the current tab.
    pub filtered: bool,
}

/// The action for `key` in `mode`, if any.
pub fn action(key: KeyEvent, mode: Mode) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == Char('c') {
        return Some(Action::Quit);
    }
    if mode.typing {
        return match key.code {
            Char(c) => Some(Action::Type(c)),
            Backspace => Some(Action::Erase),
            Enter => Some(Action::EndTyping),
            Esc => Some(Action::ClearFilter),
            _ => None,
        };
    }
    if key.code == Esc {
        return Some(if mode.help {
            Action::Help
        } else if mode.filtered {
            Action::ClearFilter
        } else {
            Action::Quit
        });
    }
    BINDINGS
        .iter()
        .find(|b| b.keys.contains(&key.code) && (b.tabs.is_empty() || b.tabs.contains(&mode.tab)))
        .map(|b| b.action)
}

/// The bindings shown for `tab`, those specific to it first (narrow terminals cut the bar).
pub fn shown(tab: Tab) -> impl Iterator<Item = &'static Binding> {
    let labelled = BINDINGS.iter().filter(|b| !b.label.is_empty());
    let specific = labelled
        .clone()
        .filter(move |b| b.tabs.contains(&tab) && b.tabs.len() < Tab::ALL.len());
    let general = labelled.filter(|b| b.tabs.is_empty() || b.tabs.len() == Tab::ALL.len());
    specific.chain(general)
}
