//! `.pte` programs: the FlatBuffer after the `eh00` header, its segments, constants,
//! mutable data and named data. Methods are read by [`super::plan`].

use super::desc::Desc;
use super::entries::{Entries, Entry};
use super::header;
use super::rules::{out_of_range, CONSTANT_OUT_OF_RANGE, INDEX_OUT_OF_RANGE, METHOD_INCOMPLETE};
use super::schema::program as fb;
use super::segments::{self, Segment};
use super::verify;
use crate::check::{Item, Place};
use crate::formats::shared::bytes::offset_in;
use crate::formats::shared::context::Context;
use crate::inventory::{
    DataRange, GraphId, Name, NodeId, SectionKind, Storage, Symbol, Tensor, TensorId,
};
use std::collections::HashMap;

/// What a segment holds, as the program uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentUse {
    /// Nothing in the program refers to it.
    Unused,
    /// The constant segment.
    Constants,
    /// Initial state of mutable tensors.
    Mutable,
    /// A delegate's processed blob.
    Delegate,
    /// Named data, such as a backend's weights.
    Named,
}

/// A tensor the program loads by key from a data file.
#[derive(Debug, Clone)]
pub struct ExternalRef {
    /// The method's graph.
    pub graph: GraphId,
    /// The value node.
    pub node: NodeId,
    /// The key (fully qualified name).
    pub key: Name,
    /// The layout the program expects.
    pub desc: Desc,
    /// Position of the tensor's table.
    pub at: u64,
}

/// A backend delegate of a method.
#[derive(Debug, Clone)]
pub struct Delegate {
    /// The method's graph.
    pub graph: GraphId,
    /// Backend id, such as `XnnpackBackend`.
    pub backend: Name,
    /// What its calls are named: `delegate` and the backend id.
    pub call: Symbol,
    /// Bytes of its processed blob, if they could be located.
    pub bytes: Option<u64>,
    /// True if the blob is inline in the FlatBuffer.
    pub inline: bool,
}

/// What reading a program found beyond the inventory.
pub struct Program {
    /// The segments.
    pub segments: Vec<Segment>,
    /// What each segment holds.
    pub uses: Vec<SegmentUse>,
    /// The program's own named data.
    pub named: Vec<Entry>,
    /// External tensors, to resolve against data files.
    pub externals: Vec<ExternalRef>,
    /// Delegates of every method.
    pub delegates: Vec<Delegate>,
    /// Bytes of inline delegate data and legacy constant buffers in the FlatBuffer.
    pub inline_bytes: (u64, u64),
    /// Whether every declared byte could be placed.
    pub complete: bool,
}

/// Where constants are read from.
pub enum Constants<'a> {
    /// The constant segment and its offsets.
    Segment(Option<DataRange>, flatbuffers::Vector<'a, u64>),
    /// Legacy buffers inside the FlatBuffer.
    Buffers(flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<fb::Buffer<'a>>>),
    /// None.
    Absent,
}

/// State shared by the methods of one program.
pub struct Walk<'c, 'a> {
    /// The program's file.
    pub cx: &'c mut Context<'a>,
    /// The program root.
    pub root: fb::Program<'a>,
    /// Segments.
    pub segments: Vec<Segment>,
    /// What each segment holds.
    pub uses: Vec<SegmentUse>,
    /// Where constants are.
    pub constants: Constants<'a>,
    /// Constant tensors by data_buffer_idx, shared by methods.
    pub constant_tensors: HashMap<u32, TensorId>,
    /// Initial-state tensors by (mutable segment index, data_buffer_idx).
    pub mutable_tensors: HashMap<(u64, u32), TensorId>,
    /// External tensors found.
    pub externals: Vec<ExternalRef>,
    /// Delegates found.
    pub delegates: Vec<Delegate>,
    /// Stack traces already read.
    pub stacks: super::stacks::Stacks,
}

/// Reads the program `cx` reads into its inventory. `None` if its FlatBuffer cannot be read.
pub fn read(cx: &mut Context<'_>) -> Option<Program> {
    let bytes = cx.bytes;
    let layout = header::program(cx)?;
    let flatbuffer = bytes.get(..usize::try_from(layout.flatbuffer_end).ok()?)?;
    let root = verify::verify(flatbuffer, fb::root_as_program_with_opts, cx.out)?;
    (cx.inv).property("version", root.version(), Some(root._tab.loc() as u64));
    let list = root.segments().into_iter().flatten();
    let list = list.map(|s| (s.offset(), s.size(), s._tab.loc() as u64));
    let segments = segments::read(cx, list, &layout);
    let mut uses = vec![SegmentUse::Unused; segments.len()];
    let constants = constants(cx, &root, &segments, &mut uses);
    let named = named_data(&root, &segments, &mut uses, Entries::new(cx));
    let inline_bytes = inline_bytes(&root);
    let mut walk = Walk {
        cx,
        root,
        segments,
        uses,
        constants,
        constant_tensors: HashMap::new(),
        mutable_tensors: HashMap::new(),
        externals: Vec::new(),
        delegates: Vec::new(),
        stacks: Default::default(),
    };
    walk.mutable_segments();
    match root.execution_plan().filter(|p| !p.is_empty()) {
        Some(plans) => {
            for (index, plan) in plans.iter().enumerate() {
                if !walk.plan(index, plan) {
                    break;
                }
            }
        }
        None => {
            let message = "the program has no execution plans, so it has no method to load";
            walk.cx.report(
                &METHOD_INCOMPLETE,
                Place::field("execution_plan", root._tab.loc() as u64),
                message,
            );
        }
    }
    let Walk {
        segments,
        uses,
        externals,
        delegates,
        ..
    } = walk;
    let kind = |i: usize| match uses.get(i) {
        Some(SegmentUse::Constants | SegmentUse::Mutable) => SectionKind::TensorData,
        _ => SectionKind::BlobData,
    };
    segments::declare(&segments, &layout, 0, kind, &mut cx.inv);
    Some(Program {
        complete: layout.complete(),
        segments,
        uses,
        named,
        externals,
        delegates,
        inline_bytes,
    })
}

/// The place of the value node that declares `tensor`, for problems found before the tensor
/// exists.
fn value_place(tensor: &Tensor, at: u64) -> Place {
    let node = tensor.node.unwrap_or_default();
    Place::at(at).item(Item::Node {
        graph: tensor.graph,
        node,
    })
}

/// Checks a segment index from the program; the segment if it is in range.
fn segment_index(
    cx: &mut Context<'_>,
    segments: &[Segment],
    index: u64,
    what: &str,
    at: u64,
) -> Option<usize> {
    let found = usize::try_from(index).ok().filter(|&i| i < segments.len());
    if found.is_none() {
        let message = out_of_range(what, "segment", index, "the program", segments.len());
        cx.report(
            &INDEX_OUT_OF_RANGE,
            Place::field("segment_index", at),
            message,
        );
    }
    found
}

fn range_of(segment: &Segment) -> Option<DataRange> {
    segment.range.map(|r| DataRange {
        file: 0,
        offset: r.start,
        len: r.len,
    })
}

/// The constant store: the constant segment when it has more than the placeholder offset,
/// as the runtime decides, else the legacy buffers.
fn constants<'a>(
    cx: &mut Context<'_>,
    root: &fb::Program<'a>,
    segments: &[Segment],
    uses: &mut [SegmentUse],
) -> Constants<'a> {
    if let Some(cs) = root.constant_segment() {
        let offsets = cs.offsets().filter(|o| o.len() > 1);
        if let Some(offsets) = offsets {
            let at = cs._tab.loc() as u64;
            let what = "constant_segment.segment_index";
            let seg = segment_index(cx, segments, cs.segment_index().into(), what, at);
            if let Some(slot) = seg.and_then(|i| uses.get_mut(i)) {
                *slot = SegmentUse::Constants;
            }
            let range = seg.and_then(|i| segments.get(i)).and_then(range_of);
            return Constants::Segment(range, offsets);
        }
    }
    root.constant_buffer()
        .filter(|b| !b.is_empty())
        .map_or(Constants::Absent, Constants::Buffers)
}

/// The program's named data, as tensors without a layout.
fn named_data(
    root: &fb::Program<'_>,
    segments: &[Segment],
    uses: &mut [SegmentUse],
    mut entries: Entries<'_, '_>,
) -> Vec<Entry> {
    let list = root
        .named_data()
        .into_iter()
        .flatten()
        .map(|n| (n.key(), n.segment_index(), None, n._tab.loc()));
    entries.named(Some(list), segments);
    for n in root.named_data().into_iter().flatten() {
        if let Some(slot) = uses.get_mut(n.segment_index() as usize) {
            *slot = SegmentUse::Named;
        }
    }
    entries.finish()
}

/// Bytes of inline delegate blobs and of legacy constant buffers.
fn inline_bytes(root: &fb::Program<'_>) -> (u64, u64) {
    let delegates = root.backend_delegate_data().into_iter().flatten();
    let delegates = delegates
        .filter_map(|d| d.data())
        .map(|d| d.len() as u64)
        .sum();
    let buffers = root.constant_buffer().into_iter().flatten();
    let buffers = buffers
        .filter_map(|b| b.storage())
        .map(|s| s.len() as u64)
        .sum();
    (delegates, buffers)
}

impl Walk<'_, '_> {
    /// Checks mutable_data_segments' segment indexes.
    fn mutable_segments(&mut self) {
        for m in self.root.mutable_data_segments().into_iter().flatten() {
            let at = m._tab.loc() as u64;
            let what = "mutable_data_segments segment_index";
            let index = m.segment_index().into();
            if let Some(i) = segment_index(self.cx, &self.segments, index, what, at) {
                if let Some(used) = self.uses.get_mut(i) {
                    *used = SegmentUse::Mutable;
                }
            }
        }
    }

    /// The tensor holding constant `index`, made from `tensor` the first time and shared by
    /// every value that uses the same index (see [`Walk::known_tensor`]).
    pub fn constant(&mut self, index: u32, tensor: Tensor, at: u64) -> Option<TensorId> {
        let id = self.cx.inv.tensors.len();
        // The tensor exists once it is pushed below; an index problem is the value node's.
        let place = Place::at(at).item(Item::Tensor { tensor: id });
        let value = value_place(&tensor, at);
        let nbytes = tensor.byte_size;
        let (data, storage) = match &self.constants {
            Constants::Segment(range, offsets) => {
                let Some(offset) = (index as usize)
                    .lt(&offsets.len())
                    .then(|| offsets.get(index as usize))
                else {
                    let (what, count) = ("data_buffer_idx", offsets.len());
                    let message =
                        out_of_range(what, "offset", index, "the constant segment", count);
                    self.cx.report(&INDEX_OUT_OF_RANGE, value, message);
                    return None;
                };
                let data =
                    range.and_then(|seg| self.within(seg, offset, nbytes, "constant", place));
                (data, Storage::External)
            }
            Constants::Buffers(buffers) => {
                let Some(buffer) = (index as usize)
                    .lt(&buffers.len())
                    .then(|| buffers.get(index as usize))
                else {
                    let (what, count) = ("data_buffer_idx", buffers.len());
                    let message =
                        out_of_range(what, "constant buffer", index, "the program", count);
                    self.cx.report(&INDEX_OUT_OF_RANGE, value, message);
                    return None;
                };
                let data = buffer.storage().and_then(|s| {
                    Some(DataRange {
                        file: 0,
                        offset: offset_in(self.cx.bytes, s.bytes())?,
                        len: s.len() as u64,
                    })
                });
                (data, Storage::Inline)
            }
            Constants::Absent => {
                let message = out_of_range("data_buffer_idx", "constant", index, "the program", 0);
                self.cx.report(&INDEX_OUT_OF_RANGE, value, message);
                return None;
            }
        };
        let storage = if data.is_some() {
            storage
        } else {
            Storage::Missing
        };
        self.cx.inv.tensors.push(Tensor {
            data,
            storage,
            ..tensor
        });
        self.constant_tensors.insert(index, id);
        Some(id)
    }

    /// The initial state of a mutable tensor: entry `index` of mutable data segment `which`,
    /// made from `tensor` the first time.
    pub fn initial_state(
        &mut self,
        which: u64,
        index: u32,
        tensor: Tensor,
        at: u64,
    ) -> Option<TensorId> {
        let id = self.cx.inv.tensors.len();
        let place = Place::at(at).item(Item::Tensor { tensor: id });
        let value = value_place(&tensor, at);
        let list = self.root.mutable_data_segments();
        let count = list.map_or(0, |l| l.len());
        let Some(m) = usize::try_from(which)
            .ok()
            .filter(|&w| w < count)
            .and_then(|w| Some(list?.get(w)))
        else {
            let what = "mutable_data_segments_idx";
            let message = out_of_range(what, "mutable data segment", which, "the program", count);
            self.cx.report(&INDEX_OUT_OF_RANGE, value, message);
            return None;
        };
        let offsets = m.offsets();
        let n = offsets.map_or(0, |o| o.len());
        let Some(offset) = offsets
            .filter(|_| (index as usize) < n)
            .map(|o| o.get(index as usize))
        else {
            let message = out_of_range(
                "data_buffer_idx",
                "offset",
                index,
                "the mutable data segment",
                n,
            );
            self.cx.report(&INDEX_OUT_OF_RANGE, value, message);
            return None;
        };
        let segment = self
            .segments
            .get(m.segment_index() as usize)
            .and_then(range_of);
        let data = segment
            .and_then(|seg| self.within(seg, offset, tensor.byte_size, "initial state", place));
        let storage = if data.is_some() {
            Storage::External
        } else {
            Storage::Missing
        };
        self.cx.inv.tensors.push(Tensor {
            data,
            storage,
            ..tensor
        });
        self.mutable_tensors.insert((which, index), id);
        Some(id)
    }

    /// The tensor made before for constant `index` or, with `state`, for the initial state
    /// `(which, index)`.
    pub fn known_tensor(&self, index: u32, state: Option<u64>) -> Option<TensorId> {
        match state {
            None => self.constant_tensors.get(&index),
            Some(which) => self.mutable_tensors.get(&(which, index)),
        }
        .copied()
    }

    /// The `nbytes` at `offset` inside `segment`, reporting bytes past its end.
    fn within(
        &mut self,
        segment: DataRange,
        offset: u64,
        nbytes: Option<u64>,
        what: &str,
        place: Place,
    ) -> Option<DataRange> {
        let len = nbytes.unwrap_or(0);
        match offset.checked_add(len) {
            Some(end) if end <= segment.len => Some(DataRange {
                file: 0,
                offset: segment.offset + offset,
                len,
            }),
            _ => {
                let message = format!(
                    "{what} at offset {offset} of its segment needs {len} bytes, but the segment holds {}",
                    segment.len
                );
                self.cx.report(&CONSTANT_OUT_OF_RANGE, place, message);
                None
            }
        }
    }
}
