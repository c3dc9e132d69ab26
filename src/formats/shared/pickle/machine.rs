//! The stack machine: `pickle.Unpickler.load` with every import recorded and every call turned
//! into a node. Each opcode pays one budget entry, which covers the value, memo entry or item
//! it adds; strings and bytes stay in the buffer as spans. Arguments are read and checked as
//! CPython's C unpickler reads them ([`super::numbers`], [`super::text`]), so that reading stops
//! where `pickle.load` fails and nowhere else.

use super::input::Input;
use super::numbers::{self, Int};
use super::opcodes::{self as op, Arg};
use super::rules::{
    MEMO_EXPANSION, NESTING_TOO_DEEP, OUT_OF_BAND_DATA, PICKLE_INVALID, PICKLE_TRUNCATED,
    UNKNOWN_OPCODE,
};
use super::text;
use super::value::{Call, Id, Span, Text, Value};
use super::{joblib, Called, Ended, Import, Mutation, Options, Pickle, Sink, Source, Tree};
use crate::check::Rule;
use crate::formats::shared::budget::EXTRA_BYTES;
use crate::formats::shared::bytes;
use crate::formats::shared::numbers::{bits64, id32};
use crate::inventory::Name;
use std::collections::HashMap;

/// Nesting deeper than Python's default recursion limit: a loaded object that `repr`,
/// `copy.deepcopy`, `json` or a state-dict walk cannot go through.
pub const MAX_DEPTH: u32 = 1000;

/// Why reading stopped before `STOP`: the finding is already reported.
pub struct Stopped;

type Step<T> = Result<T, Stopped>;

/// The machine over one pickle.
pub struct Machine<'m, 's, 'c, 'x> {
    src: &'m Source<'s>,
    sink: &'c mut Sink<'x>,
    options: Options,
    input: Input<'s>,
    pub(super) values: Vec<Value>,
    depth: Vec<u32>,
    pub(super) imports: Vec<Import>,
    mutations: Vec<Mutation>,
    stack: Vec<Id>,
    marks: Vec<usize>,
    memo: HashMap<u64, Id>,
    /// The protocol the first `PROTO` declared.
    protocol: Option<u8>,
    /// The protocol the last `PROTO` set, which `find_class` goes by (0 before any).
    proto: u8,
    used: Vec<(u8, u64)>,
    seen: [bool; 256],
    fetched: u64,
    reported_depth: bool,
    reported_memo: bool,
    reported_buffer: bool,
    nested: bool,
    /// Opcodes read so far.
    count: u64,
    /// How reading ended, once it has.
    ended: Ended,
}

impl<'m, 's, 'c, 'x> Machine<'m, 's, 'c, 'x> {
    /// A machine at the start of `src`.
    pub fn new(sink: &'c mut Sink<'x>, src: &'m Source<'s>, options: Options) -> Self {
        Machine {
            src,
            sink,
            options,
            input: Input::new(src.bytes, src.start, options.frames),
            values: Vec::new(),
            depth: Vec::new(),
            imports: Vec::new(),
            mutations: Vec::new(),
            stack: Vec::new(),
            marks: Vec::new(),
            memo: HashMap::new(),
            protocol: None,
            proto: 0,
            used: Vec::new(),
            seen: [false; 256],
            fetched: 0,
            reported_depth: false,
            reported_memo: false,
            reported_buffer: false,
            nested: false,
            count: 0,
            ended: Ended::Stop,
        }
    }

    /// Runs to `STOP` and returns what was read, complete or not.
    pub fn run(mut self) -> Pickle<'s> {
        let root = self.load().ok();
        Pickle {
            bytes: self.src.bytes,
            start: self.src.start,
            end: self.input.pos,
            root,
            values: self.values,
            imports: self.imports,
            mutations: self.mutations,
            protocol: self.protocol,
            used: self.used,
            straddle: self.input.straddle,
            ended: self.ended,
            opcodes: self.count,
        }
    }

    /// One `load`: opcodes up to `STOP`, whose value it returns.
    fn load(&mut self) -> Step<Id> {
        loop {
            let at = self.input.pos;
            let Some(code) = self.input.opcode() else {
                let end = at.min(bytes::len(self.src.bytes));
                let message = format!(
                    "{CUT_SHORT}: the pickle ends at {} without STOP",
                    self.src.at(end)
                );
                return self.fail(&PICKLE_TRUNCATED, at, message);
            };
            // A read from a frame's end on (Frames::Discard) may have moved the opcode.
            let at = self.input.pos - 1;
            let Some(opcode) = op::op(code) else {
                let message = format!(
                    "{REFUSES}: 0x{code:02x} at {} is no pickle opcode (protocols 0 to 5)",
                    self.src.at(at)
                );
                return self.fail(&UNKNOWN_OPCODE, at, message);
            };
            if let Some(seen @ false) = self.seen.get_mut(usize::from(code)) {
                *seen = true;
                self.used.push((code, at));
            }
            self.count += 1;
            if self.count > self.options.most {
                self.ended = Ended::Enough;
                return Err(Stopped);
            }
            if !self.sink.budget.spend(1, self.src.place(at), self.sink.out) {
                self.ended = Ended::Invalid;
                return Err(Stopped);
            }
            let arg = self.argument(opcode, at)?;
            if code == op::STOP {
                return self.pop(at);
            }
            self.execute(code, at, arg)?;
        }
    }

    /// Reads the argument of `opcode` at `at`.
    fn argument(&mut self, opcode: op::Op, at: u64) -> Step<Argument> {
        let word = |machine: &mut Self, n: u64| -> Step<[u8; 8]> {
            let left = machine.input.left();
            let Some(span) = machine.input.take(n) else {
                let message = format!(
                    "{CUT_SHORT}: {} at {} needs {n} bytes of argument; {left} are left",
                    opcode.name,
                    machine.src.at(at)
                );
                return machine.fail(&PICKLE_TRUNCATED, at, message);
            };
            let mut word = [0u8; 8];
            let got = bytes::range(machine.src.bytes, span.start, span.len).unwrap_or_default();
            for (slot, &b) in word.iter_mut().zip(got) {
                *slot = b;
            }
            Ok(word)
        };
        match opcode.arg {
            Arg::None => Ok(Argument::None),
            Arg::U8 => Ok(Argument::Int(word(self, 1)?[0].into())),
            Arg::U16 => {
                let [a, b, ..] = word(self, 2)?;
                Ok(Argument::Int(u16::from_le_bytes([a, b]).into()))
            }
            Arg::I32 => {
                let [a, b, c, d, ..] = word(self, 4)?;
                Ok(Argument::Int(i32::from_le_bytes([a, b, c, d]).into()))
            }
            Arg::U32 => {
                let [a, b, c, d, ..] = word(self, 4)?;
                Ok(Argument::Int(u32::from_le_bytes([a, b, c, d]).into()))
            }
            Arg::U64 => Ok(Argument::Word(u64::from_le_bytes(word(self, 8)?))),
            Arg::Line => match self.input.line() {
                Some(span) => Ok(Argument::Line(span)),
                None => self.unterminated(opcode, at),
            },
            Arg::Lines => {
                let Some(first) = self.input.line() else {
                    return self.unterminated(opcode, at);
                };
                let Some(second) = self.input.line() else {
                    return self.unterminated(opcode, at);
                };
                Ok(Argument::Lines(first, second))
            }
            Arg::Bytes8 | Arg::Bytes32 | Arg::SignedBytes32 | Arg::Bytes64 => {
                let len = match opcode.arg {
                    Arg::Bytes8 => u64::from(word(self, 1)?[0]),
                    Arg::Bytes32 => {
                        let [a, b, c, d, ..] = word(self, 4)?;
                        u32::from_le_bytes([a, b, c, d]).into()
                    }
                    Arg::SignedBytes32 => {
                        let [a, b, c, d, ..] = word(self, 4)?;
                        let n = i32::from_le_bytes([a, b, c, d]);
                        if n < 0 {
                            let message = format!(
                                "{REFUSES}: {} at {} declares a negative length {n}",
                                opcode.name,
                                self.src.at(at)
                            );
                            return self.fail(&PICKLE_INVALID, at, message);
                        }
                        n.unsigned_abs().into()
                    }
                    _ => u64::from_le_bytes(word(self, 8)?),
                };
                let left = self.input.left();
                match self.input.take(len) {
                    Some(span) => Ok(Argument::Span(span)),
                    None => self.past_end(opcode.name, at, len, left),
                }
            }
        }
    }

    /// Opcode `name` at `at` declares `len` bytes where `left` remain.
    fn past_end<T>(&mut self, name: &str, at: u64, len: u64, left: u64) -> Step<T> {
        let message = format!(
            "{CUT_SHORT}: {name} at {} declares {len} bytes; {left} are left",
            self.src.at(at)
        );
        self.fail(&PICKLE_TRUNCATED, at, message)
    }

    fn unterminated<T>(&mut self, opcode: op::Op, at: u64) -> Step<T> {
        let message = format!(
            "{CUT_SHORT}: {} at {} takes a newline-ended argument, but the pickle ends first",
            opcode.name,
            self.src.at(at)
        );
        self.fail(&PICKLE_TRUNCATED, at, message)
    }

    /// Carries out one opcode.
    fn execute(&mut self, code: u8, at: u64, arg: Argument) -> Step<()> {
        match (code, arg) {
            (op::PROTO, Argument::Int(v)) => {
                if v > 5 {
                    let message = format!(
                        "{REFUSES}: PROTO at {} asks for protocol {v}; protocols 0 to 5 exist",
                        self.src.at(at)
                    );
                    return self.fail(&PICKLE_INVALID, at, message);
                }
                let v = u8::try_from(v).unwrap_or_default();
                self.protocol.get_or_insert(v);
                self.proto = v;
            }
            (op::FRAME, Argument::Word(len)) => {
                let left = self.input.left();
                if !self.input.frame(len) {
                    return self.past_end("FRAME", at, len, left);
                }
            }
            (op::MARK, _) => self.marks.push(self.stack.len()),
            (op::NONE, _) => {
                self.push(Value::None);
            }
            (op::NEWTRUE, _) => {
                self.push(Value::Bool(true));
            }
            (op::NEWFALSE, _) => {
                self.push(Value::Bool(false));
            }
            (op::BININT | op::BININT1 | op::BININT2, Argument::Int(v)) => {
                self.push(Value::Int(v));
            }
            (op::INT | op::LONG, Argument::Line(span)) => {
                let parsed = if code == op::INT {
                    numbers::int(self.slice(span))
                } else {
                    numbers::long_line(self.slice(span))
                };
                let value = match parsed {
                    Ok(Int::Small(v)) => Value::Int(v),
                    Ok(Int::Bool(b)) => Value::Bool(b),
                    Ok(Int::Big) => Value::BigInt(span),
                    Err(why) => return self.invalid_text(code, why, span, at),
                };
                self.push(value);
            }
            (op::LONG1 | op::LONG4, Argument::Span(span)) => {
                let value = self.long(code, span, at);
                self.push(value);
            }
            (op::FLOAT, Argument::Line(span)) => {
                let line = self.slice(span);
                let value = match (numbers::float(line), numbers::python_float(line)) {
                    (Ok(f), _) => f,
                    // pickle.load stops here, joblib.load reads on: so does rtenx.
                    (Err(why), Some(f)) => {
                        let shown = crate::escape::excerpt(line, 40).into_owned();
                        let message = format!("{REFUSES}, but joblib.load reads on: the FLOAT argument \"{shown}\" at {} fails in pickle.load ({why}), while the pure-Python unpickler, which joblib.load uses, reads it as {f}", self.src.at(at));
                        self.report(&PICKLE_INVALID, at, message);
                        f
                    }
                    (Err(why), None) => return self.invalid_text(code, why, span, at),
                };
                self.push(Value::Float(value));
            }
            (op::BINFLOAT, Argument::Word(raw)) => {
                // The word was read little-endian; BINFLOAT is big-endian.
                self.push(Value::Float(f64::from_bits(raw.swap_bytes())));
            }
            (op::STRING, Argument::Line(span)) => {
                let quoted = self.slice(span);
                let Some(decoded) = text::unquote(quoted) else {
                    let why = "the STRING opcode argument must be quoted, with valid escapes";
                    return self.invalid_text(code, why, span, at);
                };
                let name = self.decoded(decoded, at)?;
                self.push(Value::Str(Text::Decoded(name)));
            }
            (op::UNICODE, Argument::Line(span)) => {
                let decoded = match text::raw_unicode_escape(self.slice(span)) {
                    Ok(decoded) => decoded,
                    Err(why) => return self.invalid_text(code, why, span, at),
                };
                let name = self.decoded(decoded, at)?;
                self.push(Value::Str(Text::Decoded(name)));
            }
            (op::BINUNICODE | op::SHORT_BINUNICODE | op::BINUNICODE8, Argument::Span(span)) => {
                if !text::is_utf8_surrogatepass(self.slice(span)) {
                    let why = "UTF-8 (UnicodeDecodeError)";
                    return self.invalid_text(code, why, span, at);
                }
                self.push(Value::Str(Text::At(span)));
            }
            (op::BINSTRING | op::SHORT_BINSTRING, Argument::Span(span)) => {
                // Decoded with the loader's encoding: ASCII by default, UTF-8 in torch.load.
                self.push(Value::Str(Text::At(span)));
            }
            (
                op::BINBYTES | op::SHORT_BINBYTES | op::BINBYTES8 | op::BYTEARRAY8,
                Argument::Span(span),
            ) => {
                self.push(Value::Bytes(span));
            }
            (op::NEXT_BUFFER, _) => {
                if !self.reported_buffer {
                    self.reported_buffer = true;
                    let message = format!("pickle.load refuses the file unless its caller passes the buffers it lacks (buffers=): NEXT_BUFFER at {} takes a buffer passed outside the file (protocol 5 out-of-band data)", self.src.at(at));
                    self.report(&OUT_OF_BAND_DATA, at, message);
                }
                self.push(Value::Buffer);
            }
            (op::READONLY_BUFFER, _) => {
                self.top(at)?;
            }
            (op::EMPTY_TUPLE, _) => {
                self.push(Value::Tuple(Vec::new()));
            }
            (op::EMPTY_LIST, _) => {
                self.push(Value::List(Vec::new()));
            }
            (op::EMPTY_DICT, _) => {
                self.push(Value::Dict(Vec::new()));
            }
            (op::EMPTY_SET, _) => {
                self.push(Value::Set(Vec::new()));
            }
            (op::TUPLE | op::LIST | op::FROZENSET, _) => {
                let items = self.pop_mark(at)?;
                let depth = self.deepest(&items);
                let value = match code {
                    op::TUPLE => Value::Tuple(items),
                    op::LIST => Value::List(items),
                    _ => Value::Set(items),
                };
                let id = self.push(value);
                self.nest(id, depth, at);
            }
            (op::TUPLE1 | op::TUPLE2 | op::TUPLE3, _) => {
                let n = usize::from(code - op::TUPLE1) + 1;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.pop(at)?);
                }
                items.reverse();
                let depth = self.deepest(&items);
                let id = self.push(Value::Tuple(items));
                self.nest(id, depth, at);
            }
            (op::DICT, _) => {
                let items = self.pop_mark(at)?;
                let pairs = self.pairs(items, "DICT", at)?;
                let depth = self.deepest_pairs(&pairs);
                let id = self.push(Value::Dict(pairs));
                self.nest(id, depth, at);
            }
            (op::APPEND, _) => {
                let item = self.pop(at)?;
                let target = self.top(at)?;
                self.mutated(target, code, at, &[]);
                self.extend(target, vec![item], at);
            }
            (op::APPENDS | op::ADDITEMS, _) => {
                let items = self.pop_mark(at)?;
                let target = self.top(at)?;
                self.mutated(target, code, at, &[]);
                self.extend(target, items, at);
            }
            (op::SETITEM, _) => {
                let value = self.pop(at)?;
                let key = self.pop(at)?;
                let target = self.top(at)?;
                self.mutated(target, code, at, &[key]);
                self.set_items(target, vec![(key, value)], at);
            }
            (op::SETITEMS, _) => {
                let items = self.pop_mark(at)?;
                let pairs = self.pairs(items, "SETITEMS", at)?;
                let target = self.top(at)?;
                let keys: Vec<Id> = pairs.iter().map(|&(k, _)| k).collect();
                self.mutated(target, code, at, &keys);
                self.set_items(target, pairs, at);
            }
            (op::POP, _) => {
                if self.stack.len() > self.marks.last().copied().unwrap_or(0) {
                    self.stack.pop();
                } else {
                    self.pop_mark(at)?;
                }
            }
            (op::POP_MARK, _) => {
                self.pop_mark(at)?;
            }
            (op::DUP, _) => {
                let top = self.top(at)?;
                self.stack.push(top);
            }
            (op::PUT | op::BINPUT | op::LONG_BINPUT | op::MEMOIZE, arg) => {
                let top = self.top(at)?;
                let key = match arg {
                    Argument::Int(key) => bits64(key),
                    Argument::Line(span) => self.memo_key(code, span, at)?,
                    _ => self.memo.len() as u64,
                };
                self.memo.insert(key, top);
            }
            (op::GET | op::BINGET | op::LONG_BINGET, arg) => {
                let key = match arg {
                    Argument::Int(key) => bits64(key),
                    Argument::Line(span) => self.memo_key(code, span, at)?,
                    _ => 0,
                };
                let Some(&id) = self.memo.get(&key) else {
                    let message = format!(
                        "{REFUSES}: {} at {} fetches memo entry {key}, which was never stored",
                        op::name(code),
                        self.src.at(at)
                    );
                    return self.fail(&PICKLE_INVALID, at, message);
                };
                self.fetch(id, at);
                self.stack.push(id);
            }
            (op::GLOBAL | op::INST, Argument::Lines(module, name)) => {
                self.global_lines(code, at, module, name)?;
                let import = self.import(code, at, Text::At(module), Text::At(name), None);
                if code == op::INST {
                    let args = self.pop_mark(at)?;
                    let args = self.push(Value::Tuple(args));
                    let call = self.call(code, at, import, args);
                    self.stack.push(call);
                } else {
                    self.stack.push(import);
                }
            }
            (op::STACK_GLOBAL, _) => {
                let name = self.pop(at)?;
                let module = self.pop(at)?;
                let (Some(Value::Str(module)), Some(Value::Str(name))) =
                    (self.value(module).cloned(), self.value(name).cloned())
                else {
                    let message = format!(
                        "{REFUSES}: STACK_GLOBAL at {} takes a module and a name that are not both str",
                        self.src.at(at)
                    );
                    return self.fail(&PICKLE_INVALID, at, message);
                };
                let import = self.import(code, at, module, name, None);
                self.stack.push(import);
            }
            (op::EXT1 | op::EXT2 | op::EXT4, Argument::Int(ext)) => {
                if ext <= 0 {
                    let message = format!(
                        "{REFUSES}: {} at {} names extension code {ext}; codes start at 1",
                        op::name(code),
                        self.src.at(at)
                    );
                    return self.fail(&PICKLE_INVALID, at, message);
                }
                let empty = Text::Decoded(Name::default());
                let import = self.import(code, at, empty.clone(), empty, Some(ext));
                self.stack.push(import);
            }
            (op::REDUCE, _) => {
                let args = self.pop(at)?;
                let func = self.pop(at)?;
                let call = self.call(code, at, func, args);
                self.stack.push(call);
            }
            (op::NEWOBJ, _) => {
                let args = self.pop(at)?;
                let cls = self.pop(at)?;
                let call = self.call(code, at, cls, args);
                self.stack.push(call);
            }
            (op::NEWOBJ_EX, _) => {
                // The keyword arguments are data like the positional ones; only the class runs.
                self.pop(at)?;
                let args = self.pop(at)?;
                let cls = self.pop(at)?;
                let call = self.call(code, at, cls, args);
                self.stack.push(call);
            }
            (op::OBJ, _) => {
                let mut items = self.pop_mark(at)?;
                if items.is_empty() {
                    let message = format!(
                        "{REFUSES}: OBJ at {} has no class after its MARK",
                        self.src.at(at)
                    );
                    return self.fail(&PICKLE_INVALID, at, message);
                }
                let cls = items.remove(0);
                let args = self.push(Value::Tuple(items));
                let call = self.call(code, at, cls, args);
                self.stack.push(call);
            }
            (op::BUILD, _) => {
                let state = self.pop(at)?;
                let target = self.top(at)?;
                let keys = self.state_keys(state);
                self.mutated(target, code, at, &keys);
                self.build(target, state, at)?;
            }
            (op::PERSID | op::BINPERSID, arg) => {
                let pid = match arg {
                    Argument::Line(span) => self.push_raw(Value::Str(Text::At(span))),
                    _ => self.pop(at)?,
                };
                if !self.options.persistent_ids {
                    let message = format!("{REFUSES}: {} at {} asks the loader to resolve a persistent id, and pickle.load has no persistent_load", op::name(code), self.src.at(at));
                    return self.fail(&PICKLE_INVALID, at, message);
                }
                self.push(Value::Persistent { pid, at });
            }
            _ => {}
        }
        Ok(())
    }

    /// Records an import and pushes nothing: returns the global's value.
    fn import(&mut self, code: u8, at: u64, module: Text, name: Text, ext: Option<i64>) -> Id {
        self.imports.push(Import {
            module,
            name,
            ext,
            op: code,
            at,
            proto: self.proto,
            calls: 0,
            first_call: None,
        });
        self.push_raw(Value::Global(self.imports.len() - 1))
    }

    /// Makes a call node and counts the call against the import it calls, if any.
    fn call(&mut self, code: u8, at: u64, func: Id, args: Id) -> Id {
        self.called(func, code, at, args);
        let depth = self.deepest(&[args]);
        let id = self.push_raw(Value::Call(Box::new(Call {
            op: code,
            at,
            func,
            args,
            state: None,
            items: Vec::new(),
            list: Vec::new(),
            setstate: None,
            trailing: None,
        })));
        self.nest(id, depth, at);
        id
    }

    fn called(&mut self, func: Id, code: u8, at: u64, args: Id) {
        if let Some(&Value::Global(i)) = self.value(func) {
            if let Some(import) = self.imports.get_mut(i) {
                import.calls += 1;
                import.first_call.get_or_insert(Called {
                    op: code,
                    at,
                    func,
                    args,
                });
            }
        }
    }

    /// `BUILD`: the state goes to the object; a `__setstate__` it holds is what the next
    /// `BUILD` calls, and joblib's array wrapper reads its data from the stream.
    fn build(&mut self, target: Id, state: Id, at: u64) -> Step<()> {
        let setstate = Tree::get(&*self, state, b"__setstate__");
        let Some(Value::Call(call)) = self.values.get_mut(target as usize) else {
            return Ok(());
        };
        let earlier = call.setstate;
        call.state = Some(state);
        if setstate.is_some() {
            call.setstate = setstate;
        }
        if let Some(callable) = earlier {
            self.called(callable, op::BUILD, at, state);
        }
        let depth = self.deepest(&[state]);
        self.nest(target, depth, at);
        if joblib::is_wrapper(self, target) {
            self.joblib_array(target, at)?;
        }
        Ok(())
    }

    /// Skips the array bytes joblib writes after a `NumpyArrayWrapper`, or reads the pickle
    /// it writes there for an object array.
    fn joblib_array(&mut self, wrapper: Id, at: u64) -> Step<()> {
        let layout = joblib::layout(self, wrapper);
        let start = self.input.pos;
        let data = match layout {
            Some(joblib::Layout::Raw { bytes, aligned }) => {
                let left = self.input.left();
                let padding = if aligned {
                    let len = self.input.take(1);
                    len.and_then(|l| bytes::u8_at(self.src.bytes, l.start))
                } else {
                    Some(0)
                };
                let span = padding.and_then(|p| {
                    self.input.take(p.into())?;
                    self.input.take(bytes)
                });
                match span {
                    Some(span) => span,
                    None => {
                        let message = format!("joblib.load refuses the file, which is cut short: joblib's array wrapper built at {} is followed by {bytes} bytes of array data, but {left} are left", self.src.at(at));
                        return self.fail(&PICKLE_TRUNCATED, at, message);
                    }
                }
            }
            Some(joblib::Layout::Pickled) if !self.nested => {
                // joblib writes the objects with a pickle of their own, read by an unpickler
                // of its own.
                let saved = (
                    std::mem::take(&mut self.stack),
                    std::mem::take(&mut self.marks),
                    std::mem::take(&mut self.memo),
                    std::mem::take(&mut self.proto),
                );
                self.nested = true;
                let inner = self.load();
                self.nested = false;
                (self.stack, self.marks, self.memo, self.proto) = saved;
                inner?;
                Span {
                    start,
                    len: self.input.pos - start,
                }
            }
            _ => {
                let message = format!("joblib.load refuses the file: joblib's array wrapper built at {} has no dtype and shape to size the array bytes it reads after it, and rtenx reads no further", self.src.at(at));
                return self.fail(&PICKLE_INVALID, at, message);
            }
        };
        if let Some(Value::Call(call)) = self.values.get_mut(wrapper as usize) {
            call.trailing = Some(data);
        }
        Ok(())
    }

    fn extend(&mut self, target: Id, items: Vec<Id>, at: u64) {
        let depth = self.deepest(&items);
        match self.values.get_mut(target as usize) {
            Some(Value::List(list) | Value::Set(list)) => list.extend(items),
            Some(Value::Call(call)) => call.list.extend(items),
            _ => return,
        }
        self.nest(target, depth, at);
    }

    fn set_items(&mut self, target: Id, pairs: Vec<(Id, Id)>, at: u64) {
        let depth = self.deepest_pairs(&pairs);
        match self.values.get_mut(target as usize) {
            Some(Value::Dict(dict)) => dict.extend(pairs),
            Some(Value::Call(call)) => call.items.extend(pairs),
            _ => return,
        }
        self.nest(target, depth, at);
    }

    fn pairs(&mut self, items: Vec<Id>, what: &str, at: u64) -> Step<Vec<(Id, Id)>> {
        if items.len() % 2 != 0 {
            let message = format!(
                "{REFUSES}: {what} at {} has {} items after its MARK, not key-value pairs",
                self.src.at(at),
                items.len()
            );
            return self.fail(&PICKLE_INVALID, at, message);
        }
        let pairs = items.chunks_exact(2).filter_map(|pair| match *pair {
            [key, value] => Some((key, value)),
            _ => None,
        });
        Ok(pairs.collect())
    }

    /// Counts the bytes of a string fetched from the memo, for readers that copy.
    fn fetch(&mut self, id: Id, at: u64) {
        let len = match self.value(id) {
            Some(Value::Str(Text::At(span)) | Value::Bytes(span)) => span.len,
            Some(Value::Str(Text::Decoded(name))) => name.as_bytes().len() as u64,
            _ => return,
        };
        self.fetched = self.fetched.saturating_add(len);
        let limit = bytes::len(self.src.bytes).saturating_add(EXTRA_BYTES);
        if self.fetched > limit && !self.reported_memo {
            self.reported_memo = true;
            let message = format!("a reader that copies each reference in the loaded object (json, repr, a deep copy) needs at least {} bytes of memory: strings fetched from the memo add up to that by {}, more than the pickle's {} bytes plus {EXTRA_BYTES}", self.fetched, self.src.at(at), bytes::len(self.src.bytes));
            self.report(&MEMO_EXPANSION, at, message);
        }
    }

    /// `id`, which holds values up to `depth` levels deep, is one level deeper than them.
    fn nest(&mut self, id: Id, depth: u32, at: u64) {
        let Some(d) = self.depth.get_mut(id as usize) else {
            return;
        };
        *d = (*d).max(depth.saturating_add(1));
        if *d > MAX_DEPTH && !self.reported_depth {
            self.reported_depth = true;
            let message = format!("repr, copy and state-dict walks of the loaded object fail (RecursionError): containers nest more than {MAX_DEPTH} levels deep at {} (Python's default recursion limit), and rtenx looks no deeper", self.src.at(at));
            self.report(&NESTING_TOO_DEEP, at, message);
        }
    }

    fn deepest(&self, items: &[Id]) -> u32 {
        (items.iter())
            .filter_map(|&i| self.depth.get(i as usize))
            .fold(0, |a, &b| a.max(b))
    }

    fn deepest_pairs(&self, pairs: &[(Id, Id)]) -> u32 {
        pairs
            .iter()
            .map(|&(k, v)| self.deepest(&[k, v]))
            .fold(0, u32::max)
    }

    fn long(&mut self, code: u8, span: Span, at: u64) -> Value {
        if span.len > HUGE_INT {
            let message = format!("loading makes an integer that Python's str() refuses: {} at {} is a {}-byte integer, more than 4300 digits (about {HUGE_INT} bytes), and no model value needs one", op::name(code), self.src.at(at), span.len);
            self.report(&super::rules::HUGE_INTEGER, at, message);
        }
        let digits = self.slice(span);
        if digits.len() <= 8 {
            let mut word = [0u8; 8];
            let fill = if digits.last().is_some_and(|&b| b & 0x80 != 0) {
                0xff
            } else {
                0
            };
            word.fill(fill);
            for (slot, &b) in word.iter_mut().zip(digits) {
                *slot = b;
            }
            Value::Int(i64::from_le_bytes(word))
        } else {
            Value::BigInt(span)
        }
    }

    fn memo_key(&mut self, code: u8, span: Span, at: u64) -> Step<u64> {
        match numbers::memo_key(self.slice(span), code == op::PUT) {
            Ok(key) => Ok(key),
            Err(why) => self.invalid_text(code, why, span, at),
        }
    }

    /// Fails on the text argument `span` of opcode `code`, which Python refuses: `why`.
    fn invalid_text<T>(&mut self, code: u8, why: &str, span: Span, at: u64) -> Step<T> {
        let shown = crate::escape::excerpt(self.slice(span), 40).into_owned();
        let message = format!(
            "{REFUSES}: the {} argument \"{shown}\" at {}: {why}",
            op::name(code),
            self.src.at(at)
        );
        self.report(&PICKLE_INVALID, at, message);
        self.ended = Ended::Refused;
        Err(Stopped)
    }

    /// Checks the module and name lines of `GLOBAL` (UTF-8) or `INST` (ASCII) as the C
    /// unpickler decodes them before it imports anything.
    fn global_lines(&mut self, code: u8, at: u64, module: Span, name: Span) -> Step<()> {
        for span in [module, name] {
            let line = self.slice(span);
            let why = if line.is_empty() {
                "an empty line (pickle data was truncated)"
            } else if code == op::INST && !line.is_ascii() {
                "not ASCII (UnicodeDecodeError), before anything is imported"
            } else if std::str::from_utf8(line).is_err() {
                "not UTF-8 (UnicodeDecodeError), before anything is imported"
            } else {
                continue;
            };
            return self.invalid_text(code, why, span, at);
        }
        Ok(())
    }

    /// Records an opcode that changes `target` if it is an imported object: a module or
    /// class whose state later imports see. `keys` are the attributes or items it sets.
    fn mutated(&mut self, target: Id, code: u8, at: u64, keys: &[Id]) {
        if let Some(&Value::Global(import)) = self.value(target) {
            self.mutations.push(Mutation {
                import,
                op: code,
                at,
                keys: keys.to_vec(),
            });
        }
    }

    /// The keys a `BUILD` state sets: a dict's, or those of the dicts of a `(state,
    /// slotstate)` pair.
    fn state_keys(&self, state: Id) -> Vec<Id> {
        let keys = |id: Id| match self.value(id) {
            Some(Value::Dict(pairs)) => pairs.iter().map(|&(k, _)| k).collect(),
            _ => Vec::new(),
        };
        match self.value(state) {
            Some(Value::Tuple(parts)) => parts.iter().flat_map(|&p| keys(p)).collect(),
            _ => keys(state),
        }
    }

    /// A decoded protocol 0 string, paid for from the budget.
    fn decoded(&mut self, text: Vec<u8>, at: u64) -> Step<Name> {
        let place = self.src.place(at);
        if self
            .sink
            .budget
            .copy(text.len() as u64, place, self.sink.out)
        {
            Ok(Name::from(text))
        } else {
            Err(Stopped)
        }
    }

    fn slice(&self, span: Span) -> &'s [u8] {
        bytes::range(self.src.bytes, span.start, span.len).unwrap_or_default()
    }

    /// The bytes of `text`.
    pub(super) fn text<'t>(&'t self, text: &'t Text) -> &'t [u8] {
        match text {
            Text::At(span) => self.slice(*span),
            Text::Decoded(name) => name.as_bytes(),
        }
    }

    /// The value `id`.
    pub(super) fn value(&self, id: Id) -> Option<&Value> {
        self.values.get(id as usize)
    }

    fn push_raw(&mut self, value: Value) -> Id {
        self.values.push(value);
        self.depth.push(0);
        id32(self.values.len() - 1)
    }

    fn push(&mut self, value: Value) -> Id {
        let id = self.push_raw(value);
        self.stack.push(id);
        id
    }

    fn pop(&mut self, at: u64) -> Step<Id> {
        if self.stack.len() > self.marks.last().copied().unwrap_or(0) {
            if let Some(id) = self.stack.pop() {
                return Ok(id);
            }
        }
        self.underflow(at)
    }

    fn top(&mut self, at: u64) -> Step<Id> {
        if self.stack.len() > self.marks.last().copied().unwrap_or(0) {
            if let Some(&id) = self.stack.last() {
                return Ok(id);
            }
        }
        self.underflow(at)
    }

    fn underflow<T>(&mut self, at: u64) -> Step<T> {
        let code = bytes::u8_at(self.src.bytes, at).unwrap_or(0);
        let message = format!(
            "{REFUSES}: {} at {} needs a value on the stack, and there is none (after the last MARK)",
            op::name(code),
            self.src.at(at)
        );
        self.fail(&PICKLE_INVALID, at, message)
    }

    fn pop_mark(&mut self, at: u64) -> Step<Vec<Id>> {
        let Some(mark) = self.marks.pop() else {
            let code = bytes::u8_at(self.src.bytes, at).unwrap_or(0);
            let message = format!(
                "{REFUSES}: {} at {} needs a MARK, and there is none",
                op::name(code),
                self.src.at(at)
            );
            return self.fail(&PICKLE_INVALID, at, message);
        };
        Ok(self.stack.split_off(mark.min(self.stack.len())))
    }

    fn report(&mut self, rule: &'static Rule, at: u64, message: String) {
        if self.options.report {
            self.sink.report(rule, self.src.place(at), message);
        }
    }

    fn fail<T>(&mut self, rule: &'static Rule, at: u64, message: String) -> Step<T> {
        self.ended = if std::ptr::eq(rule, &PICKLE_TRUNCATED) {
            Ended::Truncated
        } else {
            Ended::Invalid
        };
        self.report(rule, at, message);
        Err(Stopped)
    }
}

/// What `pickle.load` does with a pickle it cannot read, said first in messages.
const REFUSES: &str = "pickle.load refuses the file";

/// What `pickle.load` does with a pickle that ends too soon, said first in messages.
const CUT_SHORT: &str = "pickle.load refuses the file, which is cut short";

/// Integers longer than this many bytes have more than Python's default limit of 4300 decimal
/// digits (`sys.set_int_max_str_digits`).
const HUGE_INT: u64 = 1786;

/// An opcode's argument.
enum Argument {
    None,
    Int(i64),
    Word(u64),
    Line(Span),
    Lines(Span, Span),
    Span(Span),
}

impl Tree for Machine<'_, '_, '_, '_> {
    fn value(&self, id: Id) -> Option<&Value> {
        Machine::value(self, id)
    }

    fn text<'t>(&'t self, text: &'t Text) -> &'t [u8] {
        Machine::text(self, text)
    }

    fn imports(&self) -> &[Import] {
        &self.imports
    }
}
