//! Heaps: a group's local heap (the names of its links) and the global heap collections that
//! hold variable-length strings.

use super::rules::HDF5_MALFORMED;
use super::superblock::File;
use super::{byte, need, number, signature, Failed, Problem};
use crate::check::Place;
use crate::formats::shared::bytes::{self, Stop};
use crate::formats::shared::context::Context;
use crate::inventory::hashing::HashMap;
use std::collections::hash_map::Entry;

/// A local heap's data segment.
#[derive(Debug, Clone, Copy)]
pub struct LocalHeap<'a> {
    data: &'a [u8],
    at: u64,
}

impl<'a> LocalHeap<'a> {
    /// Reads the local heap at `at` (named at `from`).
    pub fn read(file: &File<'a>, at: u64, from: u64) -> Result<Self, Failed> {
        let mut c = file.at(at, "a local heap", from)?;
        signature(&mut c, b"HEAP", "a local heap")?;
        let version = byte(&mut c, "a local heap's version")?;
        if version != 0 {
            let message = format!(
                "a local heap's version at {} is {version}; HDF5 defines version 0",
                at + 4
            );
            return Err(Stop::Problem(Problem::malformed(at + 4, message)));
        }
        need(&mut c, 3, "a local heap")?;
        let size = file.length(&mut c, "a local heap's data size")?;
        file.length(&mut c, "a local heap's free list")?;
        let segment_at = c.pos();
        let segment = file
            .address(&mut c, "a local heap's data address")?
            .unwrap_or(u64::MAX);
        let mut d = file.at(segment, "a local heap's data", segment_at)?;
        let data = need(&mut d, size, "a local heap's data")?;
        Ok(LocalHeap { data, at: segment })
    }

    /// The NUL-terminated name at `offset` in the data segment (named at `from`).
    pub fn name(&self, offset: u64, from: u64) -> Result<&'a [u8], Failed> {
        let rest = bytes::from(self.data, offset).filter(|r| r.contains(&0));
        let Some(rest) = rest else {
            let message = format!(
                "a link name's offset at {from} is {offset}; the local heap at {} holds {} bytes with no NUL after it",
                self.at,
                self.data.len()
            );
            return Err(Stop::Problem(Problem::malformed(from, message)));
        };
        Ok(rest.split(|&b| b == 0).next().unwrap_or_default())
    }
}

/// The global heap collections read so far: each object's index, offset and size.
#[derive(Debug, Default)]
pub struct GlobalHeap {
    collections: HashMap<u64, HashMap<u64, (u64, u64)>>,
}

impl GlobalHeap {
    /// The object `index` of the collection at `at` (named at `from`), reading the collection
    /// the first time, each of its objects paid from the budget.
    pub fn object<'a>(
        &mut self,
        cx: &mut Context<'_>,
        file: &File<'a>,
        at: u64,
        index: u64,
        from: u64,
    ) -> Result<&'a [u8], Failed> {
        let objects = match self.collections.entry(at) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(collection(cx, file, at, from)?),
        };
        let found = objects.get(&index);
        let Some(&(start, len)) = found else {
            let message = format!("a variable-length string at {from} names object {index} of the global heap collection at {at}, which has no such object");
            return Err(Stop::Problem(Problem::new(&HDF5_MALFORMED, from, message)));
        };
        bytes::range(file.bytes, start, len).ok_or(Stop::Reported)
    }
}

/// The objects of the global heap collection at `at`.
fn collection(
    cx: &mut Context<'_>,
    file: &File<'_>,
    at: u64,
    from: u64,
) -> Result<HashMap<u64, (u64, u64)>, Failed> {
    let mut c = file.at(at, "a global heap collection", from)?;
    signature(&mut c, b"GCOL", "a global heap collection")?;
    let version = byte(&mut c, "a global heap collection's version")?;
    if version != 1 {
        let message = format!(
            "a global heap collection's version at {} is {version}; HDF5 defines version 1",
            at + 4
        );
        return Err(Stop::Problem(Problem::malformed(at + 4, message)));
    }
    need(&mut c, 3, "a global heap collection")?;
    let size = file.length(&mut c, "a global heap collection's size")?;
    let end = at.saturating_add(size);
    let header = 8 + u64::from(file.sb.length_size);
    let mut objects = HashMap::default();
    while c.pos().saturating_add(header) <= end {
        let object_at = c.pos();
        let what = "a global heap object";
        let index = number(&mut c, 2, what)?;
        need(&mut c, 6, what)?;
        let len = file.length(&mut c, what)?;
        if index == 0 {
            break;
        }
        let data = c.pos();
        need(&mut c, len.saturating_add(7) & !7, what)?;
        if !cx.spend(1, Place::at(object_at)) {
            return Err(Stop::Reported);
        }
        objects.insert(index, (data, len));
    }
    Ok(objects)
}
