//! Named data entries, in programs and data files alike: each becomes a tensor with its
//! segment's bytes, and a key seen twice in one file is reported.

use super::desc::{Desc, Shape};
use super::header;
use super::keys::KeyIds;
use super::rules::{out_of_range, DATA_VERSION_UNKNOWN, DUPLICATE_KEY, INDEX_OUT_OF_RANGE};
use super::segments::{self, Segment};
use crate::check::{Item, Place};
use crate::formats::shared::context::Context;
use crate::inventory::{DType, DataRange, Name, Storage, Tensor, TensorId};

/// A named entry of a data file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The key.
    pub key: Name,
    /// Its layout, absent for an opaque blob.
    pub desc: Option<Desc>,
    /// The inventory tensor that holds its data.
    pub tensor: TensorId,
    /// The segment that holds it, if the index is in range.
    pub segment: Option<usize>,
}

/// Adds named entries and their tensors to the inventory of the file they are read from.
pub struct Entries<'c, 'a> {
    /// The file being read.
    pub cx: &'c mut Context<'a>,
    /// The entries read so far.
    pub entries: Vec<Entry>,
    /// The number of each key, and the first tensor of each number.
    keys: KeyIds,
    first: Vec<TensorId>,
}

impl<'c, 'a> Entries<'c, 'a> {
    /// Entries of the file `cx` reads, added to its inventory.
    pub fn new(cx: &'c mut Context<'a>) -> Self {
        Entries {
            cx,
            entries: Vec::new(),
            keys: KeyIds::default(),
            first: Vec::new(),
        }
    }

    /// The key `key`, a string of the file, copied once however often it is listed.
    pub fn key(&mut self, key: Option<&str>) -> Name {
        match key {
            Some(key) => self.cx.name(key.as_bytes()),
            None => Name::default(),
        }
    }

    /// The entries read.
    pub fn finish(self) -> Vec<Entry> {
        self.entries
    }

    /// Records FlatTensor.version, reporting any but 0.
    pub fn version(&mut self, version: u32, root: &flatbuffers::Table<'_>) {
        let at = root.loc() as u64;
        self.cx.inv.property("version", version, Some(at));
        if version != 0 {
            let message =
                format!("FlatTensor.version is {version}; every ExecuTorch release writes 0");
            self.cx
                .report(&DATA_VERSION_UNKNOWN, Place::field("version", at), message);
        }
    }

    /// Reads and checks the segment list.
    pub fn segments(
        &mut self,
        list: Option<impl Iterator<Item = (u64, u64, usize)>>,
        layout: &header::Layout,
    ) -> Vec<Segment> {
        let list = list
            .into_iter()
            .flatten()
            .map(|(o, s, at)| (o, s, at as u64));
        segments::read(self.cx, list, layout)
    }

    /// Adds a tensor for `name`, reporting a key seen before in this file.
    pub fn tensor(
        &mut self,
        name: &Name,
        desc: Option<&Desc>,
        data: Option<DataRange>,
        at: u64,
    ) -> Option<TensorId> {
        if !self.cx.spend(1, Place::field("named_data", at)) {
            return None;
        }
        let id = self.cx.inv.tensors.len();
        match self.first.get(self.keys.id(name) as usize) {
            Some(&first) => {
                let message =
                    format!("key \"{name}\" appears again; the first entry (tensor {first}) wins");
                let place = Place::at(at).item(Item::Tensor { tensor: id });
                self.cx.report(&DUPLICATE_KEY, place, message);
            }
            None => self.first.push(id),
        }
        let place = Place::at(at).item(Item::Tensor { tensor: id });
        // An opaque blob is shown as the bytes it is, holding no parameters.
        let shape = match desc {
            Some(d) => d.check(&|| format!("entry \"{name}\""), place, false, self.cx.out),
            None => {
                let len = data.map_or(0, |d| d.len);
                Shape {
                    dtype: Some(DType::Opaque),
                    dims: vec![len],
                }
            }
        };
        let tensor = Tensor::declared(name.clone(), shape.dtype, shape.dims, at);
        self.cx.inv.tensors.push(match data {
            Some(data) => tensor.stored(Storage::External, data),
            None => tensor,
        });
        Some(id)
    }

    /// The data range of segment `index` for `what`, the entry at `at` (made only for a
    /// finding), reporting an index out of range.
    pub fn segment_range(
        &mut self,
        segments: &[Segment],
        index: u32,
        what: &dyn Fn() -> String,
        at: u64,
    ) -> Option<DataRange> {
        let Some(segment) = segments.get(index as usize) else {
            let message = out_of_range(what(), "segment", index, "the file", segments.len());
            self.cx.report(
                &INDEX_OUT_OF_RANGE,
                Place::field("segment_index", at),
                message,
            );
            return None;
        };
        let r = segment.range?;
        Some(DataRange {
            file: 0,
            offset: r.start,
            len: r.len,
        })
    }

    /// Adds an entry, with its tensor, for each (key, segment index, layout, position).
    pub fn named<'b>(
        &mut self,
        list: Option<impl Iterator<Item = (Option<&'b str>, u32, Option<Desc>, usize)>>,
        segments: &[Segment],
    ) {
        for (key, segment_index, desc, at) in list.into_iter().flatten() {
            let at = at as u64;
            let key = self.key(key);
            let what = || format!("entry \"{key}\"");
            let data = self.segment_range(segments, segment_index, &what, at);
            let Some(tensor) = self.tensor(&key, desc.as_ref(), data, at) else {
                break;
            };
            let segment = Some(segment_index as usize).filter(|&i| i < segments.len());
            self.entries.push(Entry {
                key,
                desc,
                tensor,
                segment,
            });
        }
    }
}
