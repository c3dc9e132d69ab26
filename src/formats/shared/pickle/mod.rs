//! Pickles read without running them: a stack machine for protocols 0 to 5 that builds an
//! inert value tree, and the verdict on what loading the pickle would import and call.
//!
//! `GLOBAL`, `STACK_GLOBAL`, `INST` and `EXT1/2/4` become [`Import`]s, recorded with their
//! offset and never imported; `REDUCE`, `NEWOBJ`, `NEWOBJ_EX`, `OBJ`, `INST` and `BUILD`
//! become [`Call`] nodes; persistent ids stay ids. Strings and bytes are spans of the buffer,
//! and a memo entry fetched many times is one node referred to many times, so a memo bomb
//! copies nothing. Every opcode pays one entry of the model's budget. PyTorch, NumPy, the
//! plain pickle readers and Paddle's `.pdiparams.info` are built on this.

mod compat_generated;
pub mod effects;
mod input;
mod joblib;
mod machine;
mod names;
pub mod ndarray;
mod numbers;
pub mod opcodes;
pub mod rules;
mod safe_set;
pub mod shown;
mod stream;
mod text;
mod tree;
mod value;
mod verdict;
pub mod walk;

pub use input::{Frames, Straddle};
pub use machine::MAX_DEPTH;
pub use names::{resolve, Resolved};
pub use opcodes::{name as opcode_name, WEIGHTS_ONLY};
pub use safe_set::classify;
pub use tree::Tree;
pub use value::{Call, Id, Span, Text, Value};
pub use verdict::Judged;

use crate::check::{Findings, Item, Place, Rule};
use crate::formats::shared::budget::Budget;
use crate::formats::shared::bytes;
use crate::formats::shared::context::Context;
use crate::inventory::{FileId, Inventory, Name, Trust};

/// What reading a pickle writes to: the inventory that records its imports, and the budget
/// and findings of the model it belongs to.
pub struct Sink<'x> {
    /// The model's inventory.
    pub inv: &'x mut Inventory,
    /// The model's budget.
    pub budget: &'x mut Budget,
    /// The model's findings.
    pub out: &'x mut Findings,
}

impl<'x> Sink<'x> {
    /// The sink of a reader's context.
    pub fn of(cx: &'x mut Context<'_>) -> Self {
        Sink {
            inv: &mut cx.inv,
            budget: &mut cx.budget,
            out: cx.out,
        }
    }

    pub(super) fn report(&mut self, rule: &'static Rule, place: Place, message: String) {
        self.out.add(rule, place, message);
    }
}

/// Where the pickle's bytes are, so that positions in its buffer become places in the file.
#[derive(Debug, Clone)]
pub enum Located {
    /// The buffer is the model file: positions are file offsets.
    File,
    /// The buffer is data file `file` of the model: positions are offsets in that file.
    Data {
        /// The file, in the inventory's list.
        file: FileId,
    },
    /// The buffer is a zip member decompressed: positions are inside it, and findings point at
    /// its local header.
    Member {
        /// Offset of the member's local header.
        header: u64,
        /// The member's name.
        name: Name,
    },
}

/// A pickle to read: a buffer, where in it the pickle starts, and where the buffer is.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    /// The buffer.
    pub bytes: &'a [u8],
    /// Where the pickle starts in it.
    pub start: u64,
    /// Where the buffer is in the file.
    pub located: Located,
    /// The item the findings are about, if the whole pickle is one (an `.npz` member).
    pub item: Option<Item>,
    /// Which pickle of a stream of pickles back to back this is: 0 for the first.
    pub nth: u32,
}

impl<'a> Source<'a> {
    /// The pickle at `start` of the model file `bytes`.
    pub fn file(bytes: &'a [u8], start: u64) -> Self {
        Source {
            bytes,
            start,
            located: Located::File,
            item: None,
            nth: 0,
        }
    }

    /// The place of position `pos` of the buffer.
    pub fn place(&self, pos: u64) -> Place {
        let place = match self.located {
            Located::File => Place::at(pos),
            Located::Data { file } => Place::at(pos).in_file(file),
            Located::Member { header, .. } => Place::at(header),
        };
        match self.item {
            Some(item) => place.item(item),
            None => place,
        }
    }

    /// Position `pos` in words: `byte 57`, or `byte 13 of archive/data.pkl decompressed`,
    /// and for a pickle after the first of a stream, which one (`in pickle 2 of the stream,
    /// from byte 44`).
    pub fn at(&self, pos: u64) -> String {
        let at = match &self.located {
            Located::File | Located::Data { .. } => format!("byte {pos}"),
            Located::Member { name, .. } => format!("byte {pos} of {name} decompressed"),
        };
        match self.nth {
            0 => at,
            n => format!(
                "{at} (in pickle {} of the stream, from byte {})",
                u64::from(n) + 1,
                self.start
            ),
        }
    }

    /// The absolute offset of position `pos`, if the buffer is the file.
    pub fn offset(&self, pos: u64) -> Option<u64> {
        matches!(self.located, Located::File).then_some(pos)
    }
}

/// What reading may accept.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Report what stops or spoils reading; off for the bytes after `STOP`, which are judged
    /// only for what they import.
    pub report: bool,
    /// The loader resolves persistent ids (PyTorch's storages); `pickle.load` alone refuses
    /// them.
    pub persistent_ids: bool,
    /// How a read across a frame's end is taken.
    pub frames: Frames,
    /// Opcodes read at most: reading ends ([`Ended::Enough`]) after this many.
    pub most: u64,
}

impl Options {
    /// Reporting everything, with persistent ids as `persistent_ids` says, read linearly.
    pub fn reporting(persistent_ids: bool) -> Self {
        Options {
            report: true,
            persistent_ids,
            frames: Frames::Stream,
            most: u64::MAX,
        }
    }
}

/// A global the pickle imports.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The module, as the file spells it.
    pub module: Text,
    /// The name in the module.
    pub name: Text,
    /// For `EXT1/2/4`: the extension code, whose global is whatever the loading process
    /// registered under it with `copyreg`.
    pub ext: Option<i64>,
    /// The opcode that imports.
    pub op: u8,
    /// Its position.
    pub at: u64,
    /// The protocol the last `PROTO` before it set (0 without one), which decides how
    /// `find_class` resolves the name.
    pub proto: u8,
    /// How many calls use it.
    pub calls: u64,
    /// The first call.
    pub first_call: Option<Called>,
}

/// A call of an imported global, as loading makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Called {
    /// The opcode that calls: `REDUCE`, `NEWOBJ`, `NEWOBJ_EX`, `OBJ`, `INST`, or `BUILD` for
    /// a `__setstate__` an earlier `BUILD` stored.
    pub op: u8,
    /// Its position.
    pub at: u64,
    /// The callable: the global's value.
    pub func: Id,
    /// What it is called with: the argument tuple, or the state `BUILD` passes.
    pub args: Id,
}

/// A pickle as read: its values, imports and extent.
#[derive(Debug)]
pub struct Pickle<'a> {
    /// The buffer it was read from.
    pub bytes: &'a [u8],
    /// Where it starts.
    pub start: u64,
    /// Where reading ended: after `STOP`, or where it stopped.
    pub end: u64,
    /// What `STOP` returned; `None` if reading stopped before.
    pub root: Option<Id>,
    /// Every value made.
    pub values: Vec<Value>,
    /// Every import, in file order.
    pub imports: Vec<Import>,
    /// Opcodes that changed an imported object (`BUILD`, `SETITEM`, ...), in file order.
    pub mutations: Vec<Mutation>,
    /// The protocol `PROTO` declared.
    pub protocol: Option<u8>,
    /// Each opcode used, with its first position, in order of first use.
    pub used: Vec<(u8, u64)>,
    /// The first read that crossed a frame's end, if any.
    pub straddle: Option<Straddle>,
    /// How reading ended.
    pub ended: Ended,
    /// Opcodes read.
    pub opcodes: u64,
}

/// How reading a pickle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// At `STOP`.
    Stop,
    /// The bytes ran out first.
    Truncated,
    /// At something `pickle.load` refuses, or with the budget spent.
    Invalid,
    /// At a whole opcode whose value `pickle.load` refuses (a number or text it cannot
    /// decode).
    Refused,
    /// After [`Options::most`] opcodes.
    Enough,
}

/// Opcodes [`sniff`] reads at most.
const SNIFFED: u64 = 64;

/// Whether `bytes` start as a pickle: `PROTO` followed by an opcode, or bytes the unpickler
/// reads `opcodes` opcodes of, or all of them up to `STOP`, without an error, whatever the
/// first opcode is (protocols 0 and 1 need no `PROTO`). Bytes that end after that many clean
/// opcodes are a pickle cut short, and a whole opcode whose value the unpickler refuses after
/// them a broken one. Two opcodes tell a pickle from text; a folder scan asks for more.
pub fn sniff(bytes: &[u8], opcodes: u64) -> bool {
    if let [0x80, _, next, ..] = bytes {
        if opcodes::op(*next).is_some() {
            return true;
        }
    }
    let mut findings = Findings::default();
    let mut budget = Budget::for_file(bytes::len(bytes).min(1 << 20));
    let mut inv = Inventory::new(
        crate::inventory::FileFormat::Unknown,
        "",
        crate::inventory::FileEntry::model("", 0),
    );
    let mut sink = Sink {
        inv: &mut inv,
        budget: &mut budget,
        out: &mut findings,
    };
    let options = Options {
        report: false,
        most: SNIFFED.max(opcodes),
        ..Options::reporting(true)
    };
    let p = read_into(&mut sink, &Source::file(bytes, 0), options);
    match p.ended {
        Ended::Stop | Ended::Enough => true,
        Ended::Truncated => p.opcodes > opcodes,
        Ended::Refused => p.opcodes >= opcodes,
        Ended::Invalid => false,
    }
}

/// An opcode that changes an imported object: `BUILD` sets attributes of a module or class
/// (`__dict__` or `setattr`), `SETITEM(S)` and `APPEND(S)` change an imported container.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    /// The import whose object it changes, in [`Pickle::imports`].
    pub import: usize,
    /// The opcode.
    pub op: u8,
    /// Its position.
    pub at: u64,
    /// The attribute names or keys it sets.
    pub keys: Vec<Id>,
}

/// Reads the pickle of `src`.
pub fn read<'s>(cx: &mut Context<'_>, src: &Source<'s>, options: Options) -> Pickle<'s> {
    read_into(&mut Sink::of(cx), src, options)
}

/// [`read`] for a reader that keeps its state elsewhere than a [`Context`].
pub fn read_into<'s>(sink: &mut Sink<'_>, src: &Source<'s>, options: Options) -> Pickle<'s> {
    machine::Machine::new(sink, src, options).run()
}

/// Judges every import of `pickle`, read from `src` with `options`, also as a reader that
/// follows frames differently reads it, and returns each import's trust (see [`stream`]).
pub fn judge(
    cx: &mut Context<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    options: Options,
    known: Judged<'_>,
) -> Vec<Trust> {
    judge_into(&mut Sink::of(cx), src, pickle, options, known)
}

/// [`judge`] for a reader that keeps its state elsewhere than a [`Context`].
pub fn judge_into(
    sink: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    options: Options,
    known: Judged<'_>,
) -> Vec<Trust> {
    stream::judge(sink, src, pickle, options, known)
}

/// Reports the bytes after the `STOP` of `first`, and reads and judges every pickle in them,
/// as repeated `pickle.load` calls on the stream would read them (see [`stream`]).
pub fn read_rest(cx: &mut Context<'_>, src: &Source<'_>, first: &Pickle<'_>, options: Options) {
    stream::read_rest(&mut Sink::of(cx), src, first, options);
}
