//! A TFLite reader's state over one verified model, and what it records as it reads: the
//! buffers located and the operator codes named, which later parts of the model refer to.

use crate::formats::shared::bytes::offset_in;
use crate::formats::shared::context::Context;
use crate::inventory::{ByteRange, Symbol, TensorId};

/// A reader's state over one verified model.
pub struct Reader<'c, 'a> {
    /// The shared reader state.
    pub cx: &'c mut Context<'a>,
    /// The model's bytes: the whole file, or the section of a bundle that holds it.
    pub model: &'a [u8],
    /// Where `model` starts in the file: offsets inside the model are counted from here.
    pub base: u64,
    /// One past the furthest FlatBuffer object read so far: where the FlatBuffer ends, as
    /// far as the reader can tell.
    pub flatbuffer_end: u64,
    /// `Model.buffers`, located.
    pub buffers: Vec<Buffer>,
    /// `Model.operator_codes`, named.
    pub opcodes: Vec<OpCode>,
    /// Operators' custom options in the offset/size form.
    pub large_options: Vec<Buffer>,
    /// Each subgraph's tensor count, as read.
    pub tensor_counts: Vec<usize>,
    /// Constant tensors and their buffer index, to find buffers shared by several.
    pub constants: Vec<(u32, TensorId)>,
    /// Quantised tensors, and those quantised per axis.
    pub quantized: (u64, u64),
    /// Sparse tensors.
    pub sparse: u64,
    /// Bytes of string tables and sparse index arrays still to scan: FlatBuffers let many
    /// tensors share one buffer or one index array, so the scans are bounded by the file's
    /// size, twice over, rather than by how often the file points at them.
    pub scan_left: u64,
}

impl Reader<'_, '_> {
    /// Takes `n` bytes of scanning; false, and nothing taken, once they are out (the check
    /// is then skipped).
    pub fn scan(&mut self, n: u64) -> bool {
        let ok = n <= self.scan_left;
        if ok {
            self.scan_left -= n;
        }
        ok
    }
}

impl<'a> Reader<'_, 'a> {
    /// The absolute offset of `part`, a slice of the model file (0 for anything else).
    pub fn at(&self, part: &[u8]) -> u64 {
        offset_in(self.cx.bytes, part).unwrap_or(0)
    }

    /// Notes that the FlatBuffer holds `part`, a slice of the file; returns its offset.
    pub fn seen(&mut self, part: &[u8]) -> u64 {
        let at = self.at(part);
        self.flatbuffer_end = self
            .flatbuffer_end
            .max(at.saturating_add(part.len() as u64));
        at
    }

    /// Notes a table at `loc`; returns its offset in the file.
    pub fn table(&mut self, loc: usize) -> u64 {
        let at = self.loc(loc);
        self.flatbuffer_end = self.flatbuffer_end.max(at.saturating_add(4));
        at
    }

    /// The offset in the file of `loc`, a position in the model.
    pub fn loc(&self, loc: usize) -> u64 {
        self.base.saturating_add(loc as u64)
    }
}

/// One buffer, located.
#[derive(Debug, Clone, Copy)]
pub struct Buffer {
    /// The buffer's bytes in the file; `None` for an empty buffer.
    pub range: Option<ByteRange>,
    /// Whether the bytes are after the FlatBuffer (the offset/size form).
    pub external: bool,
    /// Offset of the buffer's table (of its `offset` field in the offset/size form).
    pub at: u64,
    /// What the range is, for messages: `buffer N` or an operator's custom options.
    pub what: What,
}

/// What an offset/size range belongs to.
#[derive(Debug, Clone, Copy)]
pub enum What {
    /// `Model.buffers[N]`.
    Buffer(usize),
    /// The large custom options of operator N of subgraph G.
    CustomOptions(usize, usize),
}

impl std::fmt::Display for What {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Buffer(i) => write!(f, "buffer {i}"),
            What::CustomOptions(g, op) => {
                write!(f, "custom options of operator {op} of subgraph {g}")
            }
        }
    }
}

impl Buffer {
    /// Whether the buffer holds bytes: its tensor is a constant.
    pub fn has_data(&self) -> bool {
        self.range.is_some_and(|r| r.len > 0)
    }
}

/// One operator code.
#[derive(Debug, Clone)]
pub struct OpCode {
    /// The operator type: the builtin's name, the custom operator's name, or `#N`.
    pub name: Symbol,
    /// Whether it is a custom operator.
    pub custom: bool,
    /// `OperatorCode.version`.
    pub version: i32,
}
