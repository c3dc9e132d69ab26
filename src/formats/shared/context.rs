//! What a reader carries while it reads one model: the bytes, the inventory it fills, the
//! findings it reports and the budget it spends, in one place.

use super::budget::{Budget, Interner, SymbolKey};
use crate::check::{Findings, Place, Rule};
use crate::formats::{Format, Identify, ReadOptions};
use crate::inventory::{ByteRange, FileFormat, Inventory, Name, Section, SectionKind, Symbol};
use crate::source::ModelFile;

/// A reader's state over one model file.
pub struct Context<'a> {
    /// The model file.
    pub file: &'a ModelFile,
    /// The model file's content.
    pub bytes: &'a [u8],
    /// What the reader has found so far.
    pub inv: Inventory,
    /// Problems found so far.
    pub out: &'a mut Findings,
    /// Entries and bytes the model may still add.
    pub budget: Budget,
    /// Strings already copied out of the file.
    pub names: Interner,
    /// What a file is if not in the reader's format ([`ReadOptions::identify`]), for a reader
    /// that sets it from its options.
    pub identify: Identify,
}

impl<'a> Context<'a> {
    /// A context for reading `file` as `format`.
    pub fn new(format: &dyn Format, file: &'a ModelFile, out: &'a mut Findings) -> Self {
        let bytes = file.bytes();
        Context {
            file,
            bytes,
            inv: Inventory::of_model(FileFormat::Read(format.about().name), file),
            out,
            budget: Budget::for_file(bytes.len() as u64),
            names: Interner::default(),
            identify: ReadOptions::default().identify,
        }
    }

    /// Reports a finding.
    pub fn report(&mut self, rule: &'static Rule, place: Place, message: impl Into<String>) {
        self.out.add(rule, place, message);
    }

    /// Takes `n` entries from the budget; false once it has run out.
    pub fn spend(&mut self, n: u64, place: Place) -> bool {
        self.budget.spend(n, place, self.out)
    }

    /// The name `text`, a slice of the model file, copied once however often it is met.
    pub fn name(&mut self, text: &[u8]) -> Name {
        self.names
            .name(self.bytes, text, &mut self.budget, self.out)
    }

    /// The name stored at `offset` in the file and `len` bytes long there, made by `text` the
    /// first time (see [`Interner::name_at`]).
    pub fn name_at(&mut self, offset: u64, len: u64, text: impl FnOnce() -> Vec<u8>) -> Name {
        (self.names).name_at(offset, len, text, &mut self.budget, self.out)
    }

    /// The operator or attribute name `text`, made once and shared by every place that spells
    /// it (see [`Interner::symbol`]).
    pub fn symbol(&mut self, text: &str, place: Place) -> Symbol {
        (self.names).symbol(text, place, &mut self.budget, self.out)
    }

    /// The symbol for `key`, made by `text` the first time and shared after that, for a
    /// format whose names are shared strings (see [`Interner::symbol_at`]).
    pub fn symbol_at(
        &mut self,
        key: SymbolKey,
        text: impl FnOnce() -> String,
        place: Place,
    ) -> Symbol {
        (self.names).symbol_at(key, text, place, &mut self.budget, self.out)
    }

    /// The name `bytes`, shared by every place that spells it (see [`Interner::spelled`]);
    /// `None` once the budget is out.
    pub fn spelled(&mut self, bytes: &[u8], place: Place) -> Option<Name> {
        (self.names).spelled(bytes, place, &mut self.budget, self.out)
    }

    /// `n` entries the file declares, at most as many as the budget can still pay for: what
    /// room to make for them, each entry costing at least one.
    pub fn affordable(&self, n: usize) -> usize {
        n.min(usize::try_from(self.budget.left()).unwrap_or(usize::MAX))
    }

    /// Where `part`, a slice of the model file, starts in it.
    pub fn offset(&self, part: &[u8]) -> Option<u64> {
        super::bytes::offset_in(self.bytes, part)
    }

    /// `text` copied into a name, paying its bytes and an entry; empty once the budget is out.
    /// For text met once (or from another file than the model's): repeated text goes
    /// through [`Context::name`].
    pub fn copied(&mut self, text: &[u8], place: Place) -> Name {
        let len = text.len() as u64;
        if self.budget.spend(1, place, self.out) && self.budget.copy(len, place, self.out) {
            Name::from(text)
        } else {
            Name::default()
        }
    }

    /// Declares the whole file as model data if the reader laid out nothing (its header or
    /// directory was unreadable, which it reported), so that the bytes are not also reported
    /// as trailing.
    pub fn whole_if_unread(&mut self) {
        if self.inv.sections.is_empty() {
            self.inv.sections.push(Section {
                file: 0,
                kind: SectionKind::ModelData,
                range: ByteRange {
                    start: 0,
                    len: self.bytes.len() as u64,
                },
            });
        }
    }

    /// Whether the budget ran out: the reader stops adding entries.
    pub fn exhausted(&self) -> bool {
        self.budget.exhausted()
    }
}
