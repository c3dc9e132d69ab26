//! The module path of each instruction, from the stack traces a program records.
//!
//! Exported with `ExecutorchBackendConfig(emit_stacktrace=True)`, a chain holds one
//! `FrameList` per instruction (`Chain.stacktrace`), the Python frames that made its
//! operator: file, line, function and source line (`exir/print_program.py`,
//! `_stacktrace_to_framelist`). The frames name functions, not modules, so the module path is
//! read from the `self.<submodule>(...)` calls of the `forward` frames
//! ([`crate::formats::shared::stack`]): `x = self.embed(x)` then `F.linear(...)` puts the
//! operator in `embed`. Debug handles are not in the program (they are in the ETRecord the
//! exporter writes beside it), so they give no scope.
//!
//! The runtime never reads stack traces: a chain whose list of them is not one per
//! instruction cannot say which belongs to which, and gives no scope at all. A frame list is
//! read once however many instructions share it, and the source lines read in all are
//! bounded by the file's size plus [`EXTRA_BYTES`].

use super::schema::program as fb;
use crate::check::Place;
use crate::formats::shared::budget::EXTRA_BYTES;
use crate::formats::shared::bytes::{len, offset_in};
use crate::formats::shared::context::Context;
use crate::formats::shared::stack::{self, Frame, MAX_FRAMES, MAX_LINE};
use crate::inventory::hashing::HashMap;
use crate::inventory::{GraphId, Name, NodeId, RecordedScope};

/// Frame lists already read, and how much more source may be read.
#[derive(Debug, Default)]
pub struct Stacks {
    /// The module path of each frame list read, by the position of its frames.
    paths: HashMap<u64, Option<Name>>,
    /// Bytes of source lines that may still be read; set on first use.
    left: Option<u64>,
}

type FrameLists<'a> = flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<fb::FrameList<'a>>>;

/// The chain's stack traces, if it has one per instruction.
pub fn of_chain<'a>(chain: &fb::Chain<'a>, instructions: usize) -> Option<FrameLists<'a>> {
    chain.stacktrace().filter(|t| t.len() == instructions)
}

impl Stacks {
    /// Records the scope of node `node` of `graph` from its frame list `frames`, if it gives
    /// one.
    pub fn record(
        &mut self,
        cx: &mut Context<'_>,
        graph: GraphId,
        node: NodeId,
        frames: fb::FrameList<'_>,
    ) {
        let at = frames._tab.loc() as u64;
        let Some(path) = self.frames_path(cx, frames, at) else {
            return;
        };
        if !cx.spend(1, Place::at(at)) {
            return;
        }
        if let Some(g) = cx.inv.graphs.get_mut(graph) {
            g.scopes.push(RecordedScope { node, path });
        }
    }

    /// The module path of `frames`, read once per list of frames and shared.
    fn frames_path(
        &mut self,
        cx: &mut Context<'_>,
        frames: fb::FrameList<'_>,
        at: u64,
    ) -> Option<Name> {
        let items = frames.items()?;
        let key = offset_in(cx.bytes, items.bytes()).unwrap_or(u64::MAX);
        if let Some(path) = self.paths.get(&key) {
            return path.clone();
        }
        if !cx.spend(1, Place::at(at)) {
            return None;
        }
        let file = len(cx.bytes);
        let left = self.left.get_or_insert(file.saturating_add(EXTRA_BYTES));
        let mut read: Vec<Frame<'_>> = Vec::new();
        for frame in items.iter().take(MAX_FRAMES) {
            let line = frame.context().unwrap_or_default().as_bytes();
            let cost = len(line).min(MAX_LINE as u64);
            let Some(rest) = left.checked_sub(cost) else {
                // Out of reading: no path, rather than one cut short.
                *left = 0;
                read.clear();
                break;
            };
            *left = rest;
            let function = frame.name().unwrap_or_default().as_bytes();
            read.push(Frame { function, line });
        }
        let path = stack::module_path(read);
        let name = match path.is_empty() {
            true => None,
            false => cx.spelled(&path, Place::at(at)),
        };
        self.paths.insert(key, name.clone());
        name
    }
}
