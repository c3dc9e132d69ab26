//! A bound on what one model may add to the inventory, in entries and in bytes copied.
//!
//! Hostile files can declare millions of empty entries in a few bytes each, or point many
//! times at one shared table or string; every reader spends from one budget per model for
//! each entry it keeps and each byte it copies out of the file, and stops adding once it runs
//! out, which is reported once (RX016). Strings a file refers to more than once are copied
//! once, through an [`Interner`], so a thousand references to one name cost a thousand
//! handles and one copy.

use crate::check::generic::TOO_LARGE_TO_READ;
use crate::check::{Findings, Place};
use crate::inventory::hashing::Seeded;
use crate::inventory::{Dim, Name, Shape, Symbol};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Entries (nodes, node inputs and outputs, tensors, attributes, list values, memo entries,
/// ...) one model may add: a bound on memory and work for hostile files, far above any real
/// model.
pub const MAX_ENTRIES: u64 = 1 << 22;

/// Bytes one model may copy out of its file beyond the file's own size. Names and strings
/// read once per place in the file never need more than the file holds; the allowance covers
/// the text readers make themselves (such as `name.overload`) and keeps a small file small.
pub const EXTRA_BYTES: u64 = 64 << 20;

/// Entries a subgraph costs: its graph, scope and queue entry take about as much memory as 32
/// nodes or values, so millions of empty subgraphs run the budget out early.
pub const SUBGRAPH_ENTRIES: u64 = 32;

/// The entries and bytes one model may still add.
#[derive(Debug)]
pub struct Budget {
    entries: u64,
    bytes: u64,
    over: bool,
}

impl Default for Budget {
    /// The budget of an empty file: the entry limit and [`EXTRA_BYTES`].
    fn default() -> Self {
        Budget::for_file(0)
    }
}

impl Budget {
    /// The budget of a model file of `len` bytes: [`MAX_ENTRIES`] entries, and `len` plus
    /// [`EXTRA_BYTES`] bytes copied.
    pub fn for_file(len: u64) -> Self {
        Budget {
            entries: MAX_ENTRIES,
            bytes: len.saturating_add(EXTRA_BYTES),
            over: false,
        }
    }

    /// Takes `n` entries. The first time the budget runs out, reports RX016 at `place`; then,
    /// and from then on, returns false, and the caller adds nothing more.
    pub fn spend(&mut self, n: u64, place: Place, out: &mut Findings) -> bool {
        match self.entries.checked_sub(n).filter(|_| !self.over) {
            Some(left) => {
                self.entries = left;
                true
            }
            None => self.run_out(place, out, || {
                format!(
                    "the model holds more than {MAX_ENTRIES} nodes, values, tensors, attributes \
                     and list values; rtenx reads it up to here"
                )
            }),
        }
    }

    /// Takes `n` bytes of text copied out of the file, with the same contract as
    /// [`Budget::spend`].
    pub fn copy(&mut self, n: u64, place: Place, out: &mut Findings) -> bool {
        match self.bytes.checked_sub(n).filter(|_| !self.over) {
            Some(left) => {
                self.bytes = left;
                true
            }
            None => self.run_out(place, out, || {
                format!(
                    "the model's names and strings need more than the file's size plus {EXTRA_BYTES} \
                     bytes of memory (this one is {n} bytes); rtenx reads it up to here"
                )
            }),
        }
    }

    fn run_out(&mut self, place: Place, out: &mut Findings, message: impl Fn() -> String) -> bool {
        if !self.over {
            self.over = true;
            out.add(&TOO_LARGE_TO_READ, place, message());
        }
        false
    }

    /// Lets the model copy `len` more bytes: a data file read with it may hold strings too.
    pub fn add_file(&mut self, len: u64) {
        self.bytes = self.bytes.saturating_add(len);
    }

    /// Entries left, for decoders that keep list values up to a limit.
    pub fn left(&self) -> u64 {
        self.entries
    }

    /// Bytes that may still be copied, for decompressors that stop there.
    pub fn bytes_left(&self) -> u64 {
        if self.over {
            0
        } else {
            self.bytes
        }
    }

    /// Whether the budget ran out.
    pub fn exhausted(&self) -> bool {
        self.over
    }
}

/// Names read from one file, each copied once per place in the file that holds it: a
/// reader that meets the same string again (a shared FlatBuffer string, a name captured by
/// many blocks, a pickle memo entry) gets a handle to the first copy.
#[derive(Debug, Default)]
pub struct Interner {
    names: HashMap<(u64, u64), Name, Seeded>,
    /// Symbols by what they are made from, for formats that point at shared strings.
    symbols: HashMap<SymbolKey, Symbol, Seeded>,
    /// Symbols by their text, for formats that spell a name out at every use.
    texts: HashSet<Arc<str>, Seeded>,
    /// Names by their text, likewise.
    spelled: HashSet<Name, Seeded>,
    /// Value shapes, one copy of each.
    shapes: HashSet<Shape, Seeded>,
}

/// What a [`Symbol`] is made from: a kind the reader names, and two numbers that tell the
/// symbols of that kind apart, such as the positions of the strings it joins.
pub type SymbolKey = (&'static str, u64, u64);

impl Interner {
    /// `dims` as a shape, shared with every equal shape met before. The dimensions were
    /// paid for as they were read; an equal shape costs nothing more.
    pub fn shape(&mut self, dims: Vec<Dim>) -> Shape {
        if let Some(shape) = self.shapes.get(dims.as_slice()) {
            return shape.clone();
        }
        let shape = Shape::from(dims);
        self.shapes.insert(shape.clone());
        shape
    }

    /// The name stored at `offset` in the file and `len` bytes long there, made by `text`
    /// (its decoded bytes) the first time and shared after that. A new name pays one entry
    /// and its bytes; once the budget is out, the name is empty.
    pub fn name_at(
        &mut self,
        offset: u64,
        len: u64,
        text: impl FnOnce() -> Vec<u8>,
        budget: &mut Budget,
        out: &mut Findings,
    ) -> Name {
        if let Some(name) = self.names.get(&(offset, len)) {
            return name.clone();
        }
        let place = Place::at(offset);
        if !budget.spend(1, place, out) || !budget.copy(len, place, out) {
            return Name::default();
        }
        let name = Name::from(text());
        self.names.insert((offset, len), name.clone());
        name
    }

    /// The symbol for `key`, made by `text` the first time and shared after that, for a
    /// format whose names are shared strings (a FlatBuffer): the text is neither read nor
    /// hashed again however often the file points at it. A new symbol pays one entry and its
    /// bytes at `place`; once the budget is out, it is empty.
    pub fn symbol_at(
        &mut self,
        key: SymbolKey,
        text: impl FnOnce() -> String,
        place: Place,
        budget: &mut Budget,
        out: &mut Findings,
    ) -> Symbol {
        if let Some(symbol) = self.symbols.get(&key) {
            return symbol.clone();
        }
        let text = text();
        if !budget.spend(1, place, out) || !budget.copy(text.len() as u64, place, out) {
            return Symbol::default();
        }
        let symbol = Symbol::from(text);
        self.symbols.insert(key, symbol.clone());
        symbol
    }

    /// The operator or attribute name `text`, shared by every place that spells it, for a
    /// format that writes a name out at each use (protobuf, JSON), where hashing each use
    /// costs no more than reading it: the first use pays one entry and its bytes (reported at
    /// `place` if the budget is out, and then the name is empty), later ones nothing.
    pub fn symbol(
        &mut self,
        text: &str,
        place: Place,
        budget: &mut Budget,
        out: &mut Findings,
    ) -> Symbol {
        if let Some(shared) = self.texts.get(text) {
            return Symbol::Shared(shared.clone());
        }
        if !budget.spend(1, place, out) || !budget.copy(text.len() as u64, place, out) {
            return Symbol::default();
        }
        let shared: Arc<str> = text.into();
        self.texts.insert(shared.clone());
        Symbol::Shared(shared)
    }

    /// The name `bytes`, shared by every place that spells it (as [`Interner::symbol`] shares
    /// a symbol): the first use pays one entry and its bytes, later ones nothing; `None` once
    /// the budget is out.
    pub fn spelled(
        &mut self,
        bytes: &[u8],
        place: Place,
        budget: &mut Budget,
        out: &mut Findings,
    ) -> Option<Name> {
        if let Some(shared) = self.spelled.get(bytes) {
            return Some(shared.clone());
        }
        if !budget.spend(1, place, out) || !budget.copy(bytes.len() as u64, place, out) {
            return None;
        }
        let name = Name::from(bytes);
        self.spelled.insert(name.clone());
        Some(name)
    }

    /// The name `bytes`, a slice of `file`; bytes from elsewhere are copied as they are met.
    pub fn name(
        &mut self,
        file: &[u8],
        bytes: &[u8],
        budget: &mut Budget,
        out: &mut Findings,
    ) -> Name {
        let offset = super::bytes::offset_in(file, bytes);
        let len = bytes.len() as u64;
        match offset {
            Some(offset) => self.name_at(offset, len, || bytes.to_vec(), budget, out),
            None if budget.copy(len, Place::FILE, out) => Name::from(bytes),
            None => Name::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_out_once_and_stays_out() {
        let mut out = Findings::default();
        let mut budget = Budget::default();
        assert!(budget.spend(MAX_ENTRIES - 1, Place::FILE, &mut out));
        assert!(!budget.spend(2, Place::at(7), &mut out));
        assert!(!budget.spend(1, Place::at(9), &mut out), "stays out");
        assert!(!budget.copy(1, Place::at(9), &mut out), "bytes too");
        assert!(budget.exhausted());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].offset, Some(7));
    }

    #[test]
    fn bytes_copied_are_bounded_by_the_file_size_and_the_allowance() {
        let mut out = Findings::default();
        let mut budget = Budget::for_file(1000);
        assert!(budget.copy(EXTRA_BYTES + 1000, Place::FILE, &mut out));
        assert!(!budget.copy(1, Place::at(3), &mut out));
        assert_eq!(out.len(), 1);
        assert!(out[0].message.contains("bytes"), "{}", out[0].message);
    }

    #[test]
    fn a_string_referred_to_many_times_is_copied_once() {
        let file = b"....a-long-shared-name-past-the-inline....".to_vec();
        let name = &file[4..38];
        let mut out = Findings::default();
        let mut budget = Budget::for_file(0);
        let mut interner = Interner::default();
        let first = interner.name(&file, name, &mut budget, &mut out);
        let left = (budget.left(), budget.bytes);
        for _ in 0..1000 {
            let again = interner.name(&file, name, &mut budget, &mut out);
            assert!(std::ptr::eq(again.as_bytes(), first.as_bytes()));
        }
        assert_eq!((budget.left(), budget.bytes), left, "repeats cost nothing");
        assert_eq!(first.as_bytes(), b"a-long-shared-name-past-the-inline");
        // A slice that is not part of the file is copied and paid for each time.
        let elsewhere = b"a-long-shared-name-past-the-inline".to_vec();
        interner.name(&file, &elsewhere, &mut budget, &mut out);
        assert_eq!(budget.bytes, left.1 - 34);
        assert!(out.is_empty());
    }

    #[test]
    fn a_symbol_named_many_times_is_made_once() {
        let mut out = Findings::default();
        let mut budget = Budget::for_file(0);
        let mut interner = Interner::default();
        let first = interner.symbol("conv2d", Place::FILE, &mut budget, &mut out);
        let left = (budget.left(), budget.bytes);
        let again = interner.symbol(&String::from("conv2d"), Place::FILE, &mut budget, &mut out);
        assert!(std::ptr::eq(first.as_ptr(), again.as_ptr()));
        assert_eq!((budget.left(), budget.bytes), left);
    }

    #[test]
    fn a_symbol_is_made_once_per_key() {
        let mut out = Findings::default();
        let mut budget = Budget::for_file(0);
        let mut interner = Interner::default();
        let make = || "aten::add.out".to_owned();
        let first = interner.symbol_at(("op", 4, 9), make, Place::FILE, &mut budget, &mut out);
        let left = (budget.left(), budget.bytes);
        let again = interner.symbol_at(
            ("op", 4, 9),
            || unreachable!(),
            Place::FILE,
            &mut budget,
            &mut out,
        );
        assert!(
            matches!((&first, &again), (Symbol::Shared(a), Symbol::Shared(b)) if std::sync::Arc::ptr_eq(a, b))
        );
        assert_eq!((budget.left(), budget.bytes), left);
        assert_eq!(left.1, EXTRA_BYTES - 13);
        budget.add_file(10);
        assert_eq!(budget.bytes, left.1 + 10);
    }
}
