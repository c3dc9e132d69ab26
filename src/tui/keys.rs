//! Key bindings: one table that both maps keys to actions and generates the help overlay
//! and the key bar, so help always matches behaviour. Which of a tab's bindings apply is
//! the tab's own answer ([`Component::actions`](super::component::Component::actions)).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Everything a key can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // The help text in BINDINGS documents each action.
pub enum Action {
    Quit,
    Help,
    /// The tab of this index, from 0 (the digit keys, from 1).
    Tab(usize),
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
    Open,
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
    /// Where the binding applies.
    pub scope: Scope,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The browser's own keys: quit, help, tabs.
    App,
    /// Every tab: all of them scroll.
    Every,
    /// The tabs whose [`Component::actions`](super::component::Component::actions) name the
    /// action; the filter key where a tab has a filter.
    Tab,
}

use KeyCode::*;

/// Every binding, in help order.
pub static BINDINGS: &[Binding] = &[
    Binding {
        keys: &[Char('q')],
        label: "q Esc ^C",
        action: Action::Quit,
        help: "quit",
        scope: Scope::App,
    },
    Binding {
        keys: &[Char('?')],
        label: "?",
        action: Action::Help,
        help: "help",
        scope: Scope::App,
    },
    Binding {
        keys: &[], // The digits, read by `action`.
        label: "1-9",
        action: Action::Tab(0),
        help: "go to tab",
        scope: Scope::App,
    },
    Binding {
        keys: &[KeyCode::Tab],
        label: "Tab S-Tab",
        action: Action::NextTab,
        help: "next/previous tab",
        scope: Scope::App,
    },
    Binding {
        keys: &[BackTab],
        label: "",
        action: Action::PrevTab,
        help: "",
        scope: Scope::App,
    },
    Binding {
        keys: &[Char('j'), KeyCode::Down],
        label: "j k ↓ ↑",
        action: Action::Down,
        help: "move",
        scope: Scope::Every,
    },
    Binding {
        keys: &[Char('k'), KeyCode::Up],
        label: "",
        action: Action::Up,
        help: "",
        scope: Scope::Every,
    },
    Binding {
        keys: &[KeyCode::PageDown, Char('d')],
        label: "PgDn PgUp",
        action: Action::PageDown,
        help: "page",
        scope: Scope::Every,
    },
    Binding {
        keys: &[KeyCode::PageUp, Char('u')],
        label: "",
        action: Action::PageUp,
        help: "",
        scope: Scope::Every,
    },
    Binding {
        keys: &[Home, Char('g')],
        label: "g G Home End",
        action: Action::Top,
        help: "first/last",
        scope: Scope::Every,
    },
    Binding {
        keys: &[End, Char('G')],
        label: "",
        action: Action::Bottom,
        help: "",
        scope: Scope::Every,
    },
    Binding {
        keys: &[Char('/')],
        label: "/",
        action: Action::Filter,
        help: "filter as you type",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('v')],
        label: "v",
        action: Action::View,
        help: "neighbourhood/list",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('n')],
        label: "n N",
        action: Action::NextMatch,
        help: "next/previous match",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('N')],
        label: "",
        action: Action::PrevMatch,
        help: "",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('l'), Right],
        label: "h l ← →",
        action: Action::NextLink,
        help: "choose link or box",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('h'), Left],
        label: "",
        action: Action::PrevLink,
        help: "",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Enter],
        label: "Enter",
        action: Action::Stats,
        help: "value statistics",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Enter],
        label: "Enter",
        action: Action::Follow,
        help: "jump to it",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Enter],
        label: "Enter",
        action: Action::Open,
        help: "page a list / back",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Backspace, Char('b')],
        label: "b Bksp",
        action: Action::Back,
        help: "back",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('p')],
        label: "p",
        action: Action::Parent,
        help: "leave subgraph",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('t')],
        label: "t",
        action: Action::Tree,
        help: "scope tree/list",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('+')],
        label: "+ -",
        action: Action::Deeper,
        help: "scope depth",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('-')],
        label: "",
        action: Action::Shallower,
        help: "",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('J')],
        label: "J K",
        action: Action::DetailDown,
        help: "scroll the explanation",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('K')],
        label: "",
        action: Action::DetailUp,
        help: "",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('a')],
        label: "a",
        action: Action::AllNodes,
        help: "operators/all nodes",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('y')],
        label: "y",
        action: Action::Copy,
        help: "copy",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('s')],
        label: "s",
        action: Action::Sort,
        help: "sort column",
        scope: Scope::Tab,
    },
    Binding {
        keys: &[Char('r')],
        label: "r",
        action: Action::Reverse,
        help: "reverse sort",
        scope: Scope::Tab,
    },
];

/// What a key does besides the key itself: where the user is and what is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// The actions of [`Scope::Tab`] bindings the current tab takes.
    pub actions: &'static [Action],
    /// The current tab has a filter.
    pub searchable: bool,
    /// The help overlay is open.
    pub help: bool,
    /// A filter is being typed: keys are text.
    pub typing: bool,
    /// A filter hides rows of the current tab.
    pub filtered: bool,
}

impl Binding {
    /// True if the binding applies in `mode`.
    pub fn applies(&self, mode: &Mode) -> bool {
        match self.scope {
            Scope::App | Scope::Every => true,
            Scope::Tab if self.action == Action::Filter => mode.searchable,
            Scope::Tab => mode.actions.contains(&self.action),
        }
    }
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
    match key.code {
        Esc if mode.help => Some(Action::Help),
        Esc if mode.filtered => Some(Action::ClearFilter),
        Esc => Some(Action::Quit),
        Char(c @ '1'..='9') => Some(Action::Tab(usize::from(c as u8 - b'1'))),
        code => (BINDINGS.iter())
            .find(|b| b.keys.contains(&code) && b.applies(&mode))
            .map(|b| b.action),
    }
}

/// The bindings shown in `mode`, those specific to its tab first (narrow terminals cut the
/// bar).
pub fn shown(mode: Mode) -> impl Iterator<Item = &'static Binding> {
    let labelled = BINDINGS.iter().filter(|b| !b.label.is_empty());
    let specific = (labelled.clone()).filter(move |b| b.scope == Scope::Tab && b.applies(&mode));
    let general = labelled.filter(|b| b.scope != Scope::Tab);
    specific.chain(general)
}
