//! The inert values a pickle builds: an arena of nodes that refer to each other by index, so
//! that a memo entry fetched a million times is a million indices and one node, and nothing
//! is ever copied, called or imported.

use crate::inventory::Name;

/// Index of a value in [`super::Pickle::values`].
pub type Id = u32;

/// A run of bytes in the buffer the pickle was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Position of the first byte in the buffer.
    pub start: u64,
    /// Number of bytes.
    pub len: u64,
}

impl Span {
    /// One past the last byte.
    pub fn end(self) -> u64 {
        self.start.saturating_add(self.len)
    }
}

/// Text from the pickle: bytes in the buffer as they are, or a protocol 0 string decoded
/// from its escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    /// These bytes of the buffer.
    At(Span),
    /// Decoded text.
    Decoded(Name),
}

/// A call the pickle makes when it is loaded: `func(*args)` (`REDUCE`), an instance made by
/// `NEWOBJ`, `NEWOBJ_EX`, `OBJ` or `INST`, with what later opcodes give the object.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The opcode that calls.
    pub op: u8,
    /// Its position.
    pub at: u64,
    /// The callable or class.
    pub func: Id,
    /// The positional arguments (a tuple, or a list made from the stack since a mark).
    pub args: Id,
    /// The state `BUILD` gave the result, the last one if several.
    pub state: Option<Id>,
    /// Items `SETITEM`/`SETITEMS` stored in the result (an `OrderedDict`, a `Counter`).
    pub items: Vec<(Id, Id)>,
    /// Items `APPEND`/`APPENDS` added to the result.
    pub list: Vec<Id>,
    /// The callable a `BUILD` state stored as the result's `__setstate__`, which the next
    /// `BUILD` calls.
    pub setstate: Option<Id>,
    /// Bytes the loader reads from the stream right after this object's `BUILD` (joblib's
    /// array data).
    pub trailing: Option<Span>,
}

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `None`.
    None,
    /// A bool.
    Bool(bool),
    /// An integer that fits 64 bits.
    Int(i64),
    /// A larger integer: its bytes (little-endian two's complement, or protocol 0 digits).
    BigInt(Span),
    /// A float.
    Float(f64),
    /// A `str` (or a protocol 0-2 byte string decoded as text, as Python 3 loads it).
    Str(Text),
    /// `bytes` or `bytearray`.
    Bytes(Span),
    /// An out-of-band buffer (`NEXT_BUFFER`): its bytes are not in the file.
    Buffer,
    /// A tuple.
    Tuple(Vec<Id>),
    /// A list.
    List(Vec<Id>),
    /// A dict, items in insertion order.
    Dict(Vec<(Id, Id)>),
    /// A set or frozenset.
    Set(Vec<Id>),
    /// A global: the import at this index of [`super::Pickle::imports`].
    Global(usize),
    /// A call, and the object it returns.
    Call(Box<Call>),
    /// A persistent id (`PERSID`, `BINPERSID`) and the object the loader resolves it to.
    Persistent {
        /// The id.
        pid: Id,
        /// Position of the opcode.
        at: u64,
    },
}

impl Value {
    /// The items of a tuple or list.
    pub fn items(&self) -> Option<&[Id]> {
        match self {
            Value::Tuple(items) | Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// Calls `f` with each value this one holds or calls: items, keys and values, a call's
    /// callable, arguments, state and the items given to its result.
    pub fn each_ref(&self, mut f: impl FnMut(Id)) {
        match self {
            Value::Tuple(items) | Value::List(items) | Value::Set(items) => {
                items.iter().for_each(|&i| f(i));
            }
            Value::Dict(pairs) => pairs.iter().for_each(|&(k, v)| {
                f(k);
                f(v);
            }),
            Value::Call(call) => {
                f(call.func);
                f(call.args);
                call.state.into_iter().for_each(&mut f);
                call.items.iter().for_each(|&(k, v)| {
                    f(k);
                    f(v);
                });
                call.list.iter().for_each(|&i| f(i));
            }
            Value::Persistent { pid, .. } => f(*pid),
            _ => {}
        }
    }
}
