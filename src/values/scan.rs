//! The scan: every tensor's values read once, in the order they lie in their files, by one
//! thread per core, each taking the next chunk of at most [`CHUNK`] bytes in turn; a large
//! tensor is many chunks, read side by side. The pages of a chunk are let go once it is
//! counted and the kernel is asked to read ahead of it, so memory holds a few chunks whatever
//! the size of the model, and the files are read from start to end. A remote file's bytes
//! are fetched [`WINDOW`] at a time ahead of the chunk read and let go of once it is counted,
//! on one thread ([`Files::remote`]), so neither memory nor disk holds more than a window.

use super::decode::{decoder, Decode};
use super::float::{with_float, Bits, Float, FloatType};
use super::moments::Moments;
use super::source::{ahead, release, slice, Files};
use super::tally::{floats, Tally};
use crate::inventory::{BlockType, DType, DataRange, TensorId};
use crate::source::ModelFile;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Bytes counted at a time (less, to hold whole elements or blocks).
pub const CHUNK: usize = 4 << 20;

/// Bytes past a chunk that the kernel is asked to read ahead.
const AHEAD: usize = 2 * CHUNK;

/// Bytes of a remote file fetched ahead of the chunk read: a few requests in flight at once.
const WINDOW: u64 = 8 * CHUNK as u64;

/// Bytes around a chunk let go with it: more than a page fault maps around the page it is
/// for (Linux's `fault_around_bytes`, 64 KiB).
const MARGIN: usize = 256 << 10;

/// How to scan.
#[derive(Clone, Copy, Default)]
pub struct Options<'a> {
    /// Also figure the smallest, largest, mean and standard deviation of the finite values,
    /// which is slower; and read the integer types too, for their figures.
    pub moments: bool,
    /// Threads to read on (at least one).
    pub threads: usize,
    /// Set to stop the scan.
    pub cancel: Option<&'a AtomicBool>,
    /// Called with (bytes done, bytes in all) as chunks are read.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
}

/// How a tensor's values are read.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Floating-point values, and how many make one element (two for a complex number).
    Float(FloatType, u64),
    /// Quantised blocks, by their scales.
    Blocks(&'static BlockType),
    /// Integers or booleans, one by one, for their figures alone.
    Other(usize, Decode),
}

impl Kind {
    /// How the values of `dtype` are read; integers only for their figures (`moments`).
    pub fn of(dtype: DType, moments: bool) -> Option<Kind> {
        if let Some((float, parts)) = FloatType::of(dtype) {
            return Some(Kind::Float(float, parts));
        }
        match dtype {
            DType::Blocks(block) => Some(Kind::Blocks(block)),
            _ if moments => decoder(dtype).map(|(size, decode)| Kind::Other(size, decode)),
            _ => None,
        }
    }

    /// Bytes per value (per block).
    pub fn unit(self) -> usize {
        match self {
            Kind::Float(float, _) => float.bytes(),
            Kind::Blocks(block) => usize::try_from(block.bytes).unwrap_or(usize::MAX).max(1),
            Kind::Other(size, _) => size,
        }
    }

    /// Counts `bytes`, whole values `start` bytes into the tensor, into `t`; `first` is the
    /// bits of the tensor's first value.
    pub(super) fn count(self, bytes: &[u8], start: u64, first: u64, moments: bool, t: &mut Tally) {
        let base = start / self.unit() as u64;
        match self {
            Kind::Float(float, _) => with_float!(float, F => {
                floats::<F>(bytes, base, <F as Float>::U::narrow(first), t);
                if moments {
                    let values = bytes.chunks_exact(<F as Float>::U::BYTES);
                    t.moments = Moments::of(values.map(|e| F::to_f64(<F as Float>::U::read(e))));
                }
            }),
            Kind::Blocks(block) => super::blocks::count(block, bytes, base, t),
            Kind::Other(size, decode) => {
                let values = bytes.chunks_exact(size).map(decode);
                t.count = (bytes.len() / size) as u64;
                t.zeros = values.clone().filter(|&v| v == 0.0).count() as u64;
                t.varies = values.clone().any(|v| v.to_bits() != first);
                t.moments = Moments::of(values);
            }
        }
        t.last_nonzero(bytes, start);
    }

    /// The bits of the first value of `bytes` (as [`Kind::Other`] decodes it, f64 bits).
    pub(super) fn first(self, bytes: &[u8]) -> u64 {
        let unit = bytes.get(..self.unit());
        match self {
            Kind::Float(float, _) => with_float!(float, F => {
                unit.map_or(0, |b| <F as Float>::U::read(b).widen())
            }),
            Kind::Blocks(_) => 0,
            Kind::Other(_, decode) => unit.map_or(0, |b| decode(b).to_bits()),
        }
    }
}

/// The values of one stretch of a file, read once for every tensor whose elements they are.
#[derive(Debug, Clone)]
pub struct Read {
    /// Where they are: whole values only.
    pub data: DataRange,
    /// How they were read.
    pub kind: Kind,
    /// What they hold.
    pub tally: Tally,
    /// Whether each value's bytes are big-endian.
    pub big_endian: bool,
    /// The bits of the first value.
    first: u64,
}

impl Read {
    /// Counts `bytes`, whole values `start` bytes into the read, into `t`.
    fn count(&self, bytes: &[u8], start: u64, moments: bool, t: &mut Tally) {
        match self.big_endian {
            true => (self.kind).count(
                &swapped(bytes, self.kind.unit()),
                start,
                self.first,
                moments,
                t,
            ),
            false => self.kind.count(bytes, start, self.first, moments, t),
        }
    }

    /// The little-endian bytes of value `index` (element, part or block), if `files` has them.
    pub fn value(&self, files: &Files, index: u64) -> Option<Vec<u8>> {
        let unit = self.kind.unit() as u64;
        let data = DataRange {
            offset: self.data.offset + index.checked_mul(unit)?,
            len: unit,
            ..self.data
        };
        let file = files.file(data.file)?;
        let bytes = slice(file, data)?;
        file.fetch_tensors(bytes).ok()?;
        Some(match self.big_endian {
            true => swapped(bytes, bytes.len()),
            false => bytes.to_vec(),
        })
    }
}

/// `bytes` with the bytes of each value of `unit` bytes reversed: big-endian values made
/// little-endian.
fn swapped(bytes: &[u8], unit: usize) -> Vec<u8> {
    bytes
        .chunks(unit.max(1))
        .flat_map(|v| v.iter().rev().copied())
        .collect()
}

/// What a scan read.
#[derive(Debug, Default)]
pub struct Scan {
    /// The stretches read, by file and offset.
    pub reads: Vec<Read>,
    /// For each tensor: the read that holds its values, why they could not be read, or
    /// `None` when there is nothing to read (no data, no element, or a type whose values
    /// the scan does not read).
    tensors: Vec<Option<Result<usize, &'static str>>>,
    /// Whether it was stopped before the end.
    pub cancelled: bool,
}

impl Scan {
    /// Tensor `id`'s values: what was read, why they could not be, or nothing to read.
    pub fn of(&self, id: TensorId) -> Option<Result<&Read, &'static str>> {
        match self.tensors.get(id)?.as_ref()? {
            Ok(read) => self.reads.get(*read).map(Ok),
            Err(reason) => Some(Err(reason)),
        }
    }

    /// The tensors, by id, whose values `read` (an index into [`Scan::reads`]) holds.
    pub fn tensors_of(&self) -> Vec<Vec<TensorId>> {
        let mut of = vec![Vec::new(); self.reads.len()];
        for (id, read) in self.tensors.iter().enumerate() {
            if let Some(Ok(read)) = read {
                of[*read].push(id);
            }
        }
        of
    }
}

/// Reads the values of every tensor of `files`.
pub fn scan(files: &Files, options: &Options) -> Scan {
    let mut scan = plan(files, options.moments);
    let total = scan.reads.iter().map(|r| r.data.len).sum();
    let cursor = Mutex::new((0usize, 0u64));
    let done = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let cancelled = || {
        failed.load(Ordering::Relaxed) || options.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    };
    let threads = if files.remote() { 1 } else { options.threads };
    let reads = &scan.reads;
    // The next chunk: its read, its start in the read and its length.
    let next = || -> Option<(usize, u64, u64)> {
        let mut at = cursor.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(read) = reads.get(at.0) {
            if at.1 < read.data.len {
                let chunk = (CHUNK / read.kind.unit() * read.kind.unit()).max(read.kind.unit());
                let len = (read.data.len - at.1).min(chunk as u64);
                let job = (at.0, at.1, len);
                at.1 += len;
                return Some(job);
            }
            *at = (at.0 + 1, 0);
        }
        None
    };
    let work = || {
        let mut mine: Vec<(usize, Tally)> = Vec::new();
        while let Some((r, start, len)) = next() {
            if cancelled() {
                break;
            }
            let read = &reads[r];
            let data = DataRange {
                offset: read.data.offset + start,
                len,
                ..read.data
            };
            // Checked when the scan was planned: the file is open and holds the stretch.
            let Some((file, bytes)) = files
                .file(data.file)
                .and_then(|f| Some((f, slice(f, data)?)))
            else {
                continue;
            };
            if file.fetch_tensors(window(file, read.data, data)).is_err() {
                failed.store(true, Ordering::Relaxed);
                break;
            }
            read_ahead(file, data);
            let mut t = Tally::default();
            read.count(bytes, start, options.moments, &mut t);
            match file.is_remote() {
                true => release(file, bytes),
                false => release_around(file, data),
            }
            let done = done.fetch_add(len, Ordering::Relaxed) + len;
            if let Some(progress) = options.progress {
                progress(done, total);
            }
            match mine.last_mut() {
                Some((last, tally)) if *last == r => tally.merge(&t),
                _ => mine.push((r, t)),
            }
        }
        mine
    };
    let mut parts: Vec<(usize, Tally)> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut all = work();
        for other in others {
            all.extend(
                other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        all
    });
    parts.sort_by_key(|(r, _)| *r);
    for (r, tally) in parts {
        if let Some(read) = scan.reads.get_mut(r) {
            read.tally.merge(&tally);
        }
    }
    scan.cancelled = cancelled();
    scan
}

/// Lets go of the pages of `data` in its file, and of those within [`MARGIN`] of it: a page
/// fault maps the pages around the one it is for, which may belong to a chunk another thread
/// has let go of already.
fn release_around(file: &ModelFile, data: DataRange) {
    let bytes = file.bytes();
    let start = usize::try_from(data.offset)
        .unwrap_or(usize::MAX)
        .saturating_sub(MARGIN);
    let end = usize::try_from(data.offset + data.len).unwrap_or(usize::MAX);
    if let Some(around) = bytes.get(start..end.saturating_add(MARGIN).min(bytes.len())) {
        release(file, around);
    }
}

/// The bytes from `data` to the end of `read` or [`WINDOW`] past `data`'s start, which come
/// first: what a remote file fetches ahead of reading `data`.
fn window(file: &ModelFile, read: DataRange, data: DataRange) -> &[u8] {
    let end = (read.offset + read.len).min(data.offset.saturating_add(WINDOW));
    let span = DataRange {
        len: end.saturating_sub(data.offset),
        ..data
    };
    slice(file, span).unwrap_or_default()
}

/// Asks the kernel for the bytes after `data` in its file.
fn read_ahead(file: &ModelFile, data: DataRange) {
    let bytes = file.bytes();
    let start = usize::try_from(data.offset + data.len).unwrap_or(usize::MAX);
    if let Some(after) = bytes.get(start..) {
        ahead(file, &after[..after.len().min(AHEAD)]);
    }
}

/// What to read: each tensor's stretch, in whole values, once for all the tensors whose
/// elements it is, by file and offset.
fn plan(files: &Files, moments: bool) -> Scan {
    let inv = files.inv;
    let mut tensors = vec![None; inv.tensors.len()];
    let mut wanted: Vec<(DataRange, (&'static str, bool), Kind, TensorId)> = Vec::new();
    for (id, t) in inv.tensors.iter().enumerate() {
        let kind = t.dtype.and_then(|d| Some((d, Kind::of(d, moments)?)));
        let Some((dtype, kind)) = kind.filter(|_| t.data.is_some()) else {
            continue;
        };
        let big_endian = inv.big_endian.binary_search(&id).is_ok();
        let range = files.range(id).and_then(|mut data| {
            if big_endian && matches!(kind, Kind::Blocks(_)) {
                return Err("big-endian blocks");
            }
            data.len -= data.len % kind.unit() as u64;
            let file = files.file(data.file).ok_or("file not readable")?;
            slice(file, data).ok_or("data outside its file")?;
            Ok(data)
        });
        match range {
            Ok(data) if data.len == 0 => {}
            Ok(data) => wanted.push((data, (dtype.name(), big_endian), kind, id)),
            Err(reason) => tensors[id] = Some(Err(reason)),
        }
    }
    let key = |d: &DataRange, how| (d.file, d.offset, d.len, how);
    wanted.sort_unstable_by_key(|(d, how, _, id)| (key(d, *how), *id));
    let mut reads: Vec<Read> = Vec::new();
    let mut last = None;
    for (data, how, kind, id) in wanted {
        if last != Some(key(&data, how)) {
            let mut read = Read {
                data,
                kind,
                tally: Tally::default(),
                big_endian: how.1,
                first: 0,
            };
            read.first = read.value(files, 0).map_or(0, |b| kind.first(&b));
            reads.push(read);
            last = Some(key(&data, how));
        }
        tensors[id] = Some(Ok(reads.len() - 1));
    }
    Scan {
        reads,
        tensors,
        cancelled: false,
    }
}
