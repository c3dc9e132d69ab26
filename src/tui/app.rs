//! The browser: the current tab, the tabs' own state, and the one place where actions are
//! routed and moves between tabs are carried out. No terminal is involved, so every
//! behaviour here is testable directly.

use super::clipboard::Clip;
use super::event::Event;
use super::keys::{self, Action, Mode};
use super::loader::{Loader, Update};
use super::tabs::{Tab, Tabs};
use crate::analysis::Analysis;
use crate::diff::Diff;
use ratatui::crossterm::event::KeyEvent;
use std::collections::VecDeque;

/// The whole browser state.
pub struct App {
    /// What is shown.
    pub analysis: Analysis,
    /// The current tab.
    pub tab: Tab,
    /// Each tab's own state.
    pub tabs: Tabs,
    /// True while the help overlay is open.
    pub help: bool,
    /// Set when the user asked to quit.
    pub quit: bool,
    /// Text the user copied, escaped, for the terminal to put on the clipboard (OSC 52).
    pub copied: Option<Clip>,
    /// The model being read in the background, while `analysis` is only its preview.
    pub loader: Option<Loader>,
    /// Moves between tabs that tabs asked for, in order.
    events: VecDeque<Event>,
}

impl App {
    /// A browser over `analysis`, opened on `tab`.
    pub fn new(analysis: Analysis, tab: Tab) -> Self {
        App::compared(analysis, None, tab)
    }

    /// A browser over `analysis` marking what `diff` (another model as A, this one as B)
    /// found, opened on `tab`.
    pub fn compared(analysis: Analysis, diff: Option<&Diff>, tab: Tab) -> Self {
        App {
            tabs: Tabs::compared(&analysis, diff),
            analysis,
            tab,
            help: false,
            quit: false,
            copied: None,
            loader: None,
            events: VecDeque::new(),
        }
    }

    /// A browser showing `preview` (see [`crate::preview`]) until `loader` has
    /// read the model, opened on `tab`.
    pub fn loading(preview: Analysis, tab: Tab, loader: Loader) -> Self {
        App {
            loader: Some(loader),
            ..App::new(preview, tab)
        }
    }

    /// What decides the meaning of keys now.
    pub fn mode(&self) -> Mode {
        Mode {
            help: self.help,
            ..self.tabs.mode(self.tab)
        }
    }

    /// Applies the action `key` stands for now, if any.
    pub fn key(&mut self, key: KeyEvent) {
        if let Some(action) = keys::action(key, self.mode()) {
            self.apply(action);
        }
    }

    /// Applies one action: the app's own (quit, help, tabs) here, any other by the current
    /// tab; then carries out the moves between tabs it led to.
    pub fn apply(&mut self, action: Action) {
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.help = !self.help,
            Action::Tab(index) => {
                if let Some(&tab) = Tab::ALL.get(index) {
                    self.switch(tab);
                }
            }
            Action::NextTab => self.switch(self.tab.next()),
            Action::PrevTab => self.switch(self.tab.prev()),
            Action::Copy => {
                let current = self.tabs.get(self.tab);
                self.copied = current.selection(&self.analysis).map(|t| Clip::of(&t));
            }
            _ => {
                let event = self.tabs.get(self.tab).handle(action, &self.analysis);
                self.events.extend(event);
            }
        }
        self.dispatch();
    }

    /// Carries out the queued moves between tabs: the tab an event is for takes it.
    fn dispatch(&mut self) {
        let inv = &self.analysis.inventory;
        while let Some(event) = self.events.pop_front() {
            if let Some(tab) = Tab::ALL
                .into_iter()
                .find(|&t| self.tabs.get(t).receive(&event, inv))
            {
                self.tab = tab;
            }
        }
    }

    /// Takes the background threads' news; true if the screen should be redrawn.
    pub fn poll(&mut self) -> bool {
        if let Some(loader) = &mut self.loader {
            match loader.poll() {
                Update::None => {}
                Update::Changed => return true,
                Update::Loaded(loaded) => {
                    self.analysis = loaded.analysis;
                    self.tabs = loaded.tabs;
                    self.loader = None;
                    return true;
                }
            }
        }
        // Every tab polls, even after one has news.
        let polled = Tab::ALL.map(|t| self.tabs.get(t).poll());
        polled.contains(&true)
    }

    /// True while the model is read or statistics are computed, so the screen shows time
    /// passing.
    pub fn busy(&self) -> bool {
        self.loader.as_ref().is_some_and(|l| l.error().is_none())
            || Tab::ALL.iter().any(|&t| self.tabs.view(t).busy())
    }

    fn switch(&mut self, tab: Tab) {
        self.tab = tab;
        self.help = false;
    }
}
