//! Parameter streams into the inventory: each record becomes a tensor with its exact byte
//! range, named after the program's persistable variable it belongs to.
//!
//! Records carry no names and no index: the n-th record belongs to the n-th parameter in byte
//! order of the names, and the stream must end exactly after the last one. Only headers are
//! read; a record's data is skipped by its size.

use super::program::Param;
use super::record::{self, problem_of, Cut, Problem, Record, Window};
use super::rules::*;
use crate::check::{Findings, Item, Place};
use crate::formats::shared::bytes::head;
use crate::formats::shared::bytes::Stop;
use crate::formats::shared::context::Context;
use crate::formats::Identify;
use crate::inventory::{
    ByteRange, DType, DataRange, FileId, Inventory, Name, NewKind, Section, SectionKind, Storage,
    Tensor,
};
use crate::source::ModelFile;

/// Budget entries a record takes besides its dimensions: a tensor and a header section.
const RECORD_ENTRIES: u64 = 8;

/// Bytes of a file given to the format detectors to say what a misnamed file is.
const HEAD: usize = 4096;

/// One parameter file: its map and its place in the inventory.
pub struct Stream<'b> {
    pub source: &'b ModelFile,
    pub file: FileId,
    /// How the file is named in messages.
    pub label: String,
}

/// Reads the records of `stream`: one for each of `params` in order, or, with no program,
/// every record up to the end of the file. Stops at the first record that cannot be read.
pub fn read(stream: &Stream<'_>, params: Option<&[Param]>, cx: &mut Context<'_>) {
    let bytes = stream.source.bytes();
    let size = bytes.len() as u64;
    let mut at = 0u64;
    for index in 0.. {
        let param = params.map(|p| p.get(index));
        let param = match param {
            Some(None) => break,
            Some(Some(p)) => Some(p),
            None if at >= size => return,
            None => None,
        };
        let place = Place::at(at).in_file(stream.file);
        let place = match param {
            Some(p) => place.item(Item::Node {
                graph: 0,
                node: p.node,
            }),
            None => place,
        };
        if at >= size {
            if let (Some(param), Some(all)) = (param, params) {
                let message = format!(
                    "{} ends after {index} records at {at}, but the program has {} parameters; \
the first without a record is \"{}\"",
                    stream.label,
                    all.len(),
                    param.name.display()
                );
                cx.report(&RECORD_COUNT_MISMATCH, place, message);
            }
            return;
        }
        let parsed = if param.is_some_and(|p| p.vocab) {
            record::vocab(Window::whole(bytes), at)
        } else {
            dense(stream.source, at, cx.budget.left())
        };
        let record = match parsed.map_err(|cut| problem_of(cut, at)) {
            Ok(r) => r,
            Err(None) => return,
            Err(Some(p)) => {
                // A file of another format is about the whole file, not one variable.
                let (p, place) = match misnamed(stream, at, p, cx.identify) {
                    Ok(p) => (p, place),
                    Err(p) => (p, Place::at(0).in_file(stream.file)),
                };
                cx.report(p.rule, place.offset(p.at), p.message);
                return;
            }
        };
        if !cx.spend(RECORD_ENTRIES + record.dims.len() as u64, place) {
            return;
        }
        let name = param.map_or_else(
            || Name::from(format!("record {index}").as_str()),
            |p| p.name.clone(),
        );
        let tensor = add_tensor(&mut cx.inv, stream.file, &record, name, param);
        let place = place.item(Item::Tensor { tensor });
        if let Some(p) = &record.lod_warning {
            cx.report(p.rule, place.offset(p.at), p.message.clone());
        }
        if let Some(p) = param {
            compare(p, &record, place, cx.out);
        }
        let Some(end) = record.end() else { return };
        if cut_short(cx, stream, &record, tensor, place) {
            return;
        }
        at = end;
    }
    if at < size {
        let last = params
            .and_then(|p| p.last())
            .map(|p| p.name.display().into_owned());
        let message = format!(
            "{} bytes follow the record of the last parameter \"{}\", from {at} to the end of {} \
at {size}; Paddle refuses partial loads",
            size - at,
            last.unwrap_or_default(),
            stream.label
        );
        cx.report(
            &PARAMS_TRAILING_DATA,
            Place::at(at).in_file(stream.file),
            message,
        );
    }
}

/// Reports a record whose data runs past the end of the file, naming its tensor and the
/// bytes missing; whether it does.
fn cut_short(
    cx: &mut Context<'_>,
    stream: &Stream<'_>,
    record: &Record,
    tensor: usize,
    place: Place,
) -> bool {
    let size = stream.source.bytes().len() as u64;
    let Some(end) = record.end().filter(|&end| end > size) else {
        return false;
    };
    let message =
        format!(
        "tensor \"{}\" needs {} data bytes at {}..{end}, but {} ends at {size}: {} bytes short; \
Paddle loads it and reads the missing bytes as zeros",
        cx.inv.tensors.get(tensor).map(|t| t.name.display()).unwrap_or_default(),
        record.len.unwrap_or(0),
        record.data,
        stream.label,
        end - size
    );
    cx.report(&PARAMS_TRUNCATED, place.offset(record.data), message);
    true
}

/// Reads a SelectedRows tensor file into one tensor, `value`, with its row count and height
/// as properties.
pub fn read_selected_rows(stream: &Stream<'_>, cx: &mut Context<'_>) {
    let window = Window::whole(stream.source.bytes());
    let (record, rows, height) = match record::selected_rows(window, cx.budget.left()) {
        Ok(read) => read,
        Err(cut) => {
            if let Some(p) = problem_of(cut, 0) {
                cx.report(p.rule, Place::at(p.at), p.message);
            }
            return;
        }
    };
    if !cx.spend(RECORD_ENTRIES + record.dims.len() as u64, Place::FILE) {
        return;
    }
    cx.inv.property("rows", rows, Some(4));
    cx.inv.property("height", height, None);
    let tensor = add_tensor(&mut cx.inv, stream.file, &record, Name::from("value"), None);
    let place = Place::at(record.offset).item(Item::Tensor { tensor });
    cut_short(cx, stream, &record, tensor, place);
}

/// Bytes read first for a record header: a LoD-free header with up to 7 dims of 2-byte
/// varints (24 bytes of words, a TensorDesc of about 20 bytes). Longer headers read again.
const FIRST_READ: usize = 64;

/// Windows larger than this are not copied: the map is read instead.
const MAX_READ: usize = 16 << 20;

/// Reads the header of the DenseTensor record at `at` from a few bytes of the file, read
/// without mapping the data around them, and more as the header turns out to need.
fn dense(source: &ModelFile, at: u64, max_dims: u64) -> Result<Record, Cut> {
    let size = source.bytes().len() as u64;
    let mut len = FIRST_READ;
    loop {
        let result = if len > MAX_READ {
            record::dense(Window::whole(source.bytes()), at, max_dims)
        } else {
            let bytes = source.read_at(at, len);
            let window = Window {
                bytes: &bytes,
                base: at,
                size,
            };
            record::dense(window, at, max_dims)
        };
        match result {
            Ok(r) => return Ok(r),
            Err(Stop::Short(short)) if len <= MAX_READ => {
                let end = short.at.saturating_add(short.needed);
                let needed = usize::try_from(end.saturating_sub(at)).unwrap_or(usize::MAX);
                len = needed.max(len.saturating_mul(2));
            }
            Err(cut) => return Err(cut),
        }
    }
}

/// The tensor for `record`, its header section, and the constant its variable becomes.
fn add_tensor(
    inv: &mut Inventory,
    file: FileId,
    record: &Record,
    name: Name,
    param: Option<&Param>,
) -> usize {
    inv.sections.push(Section {
        file,
        kind: SectionKind::Header,
        range: ByteRange::between(record.offset, record.data),
    });
    let dtype = record.dtype.or(Some(DType::String));
    let id = inv.tensors.len();
    let tensor = Tensor {
        node: param.map(|p| p.node),
        decl_offset: param.map_or(Some(record.offset), |p| p.offset),
        ..Tensor::declared(name, dtype, record.dims.clone(), record.offset)
    };
    let data = record.len.map(|len| DataRange {
        file,
        offset: record.data,
        len,
    });
    inv.tensors.push(match data {
        Some(data) => tensor.stored(Storage::External, data),
        None => tensor,
    });
    if let Some((p, g)) = param.zip(inv.graphs.first_mut()) {
        g.nodes.set_kind(p.node, NewKind::Constant { tensor: id });
    }
    id
}

/// Reports a record whose dtype or dimensions differ from its variable's declaration.
fn compare(param: &Param, record: &Record, place: Place, out: &mut Findings) {
    if param.vocab {
        return;
    }
    let dtype_differs = matches!((param.dtype, record.dtype), (Some(a), Some(b)) if a != b);
    let dims_differ = param.dims.as_ref().is_some_and(|declared| {
        declared.len() != record.dims.len()
            || declared
                .iter()
                .zip(&record.dims)
                .any(|(&d, &r)| u64::try_from(d).is_ok_and(|d| d != r))
    });
    if dtype_differs || dims_differ {
        let shown = |d: Option<DType>| d.map_or_else(|| "?".to_owned(), |d| d.to_string());
        let message = format!(
            "variable \"{}\" is declared {} {:?}, but its record holds {} {:?}",
            param.name.display(),
            shown(param.dtype),
            param.dims.as_deref().unwrap_or_default(),
            shown(record.dtype),
            record.dims
        );
        out.add(&RECORD_TYPE_MISMATCH, place.offset(record.offset), message);
    }
}

/// A bad version word at the start of the file is restated (`Err`) as what the file really
/// is when another format claims it; any other problem stays as it is (`Ok`).
fn misnamed(
    stream: &Stream<'_>,
    at: u64,
    p: Problem,
    identify: Identify,
) -> Result<Problem, Problem> {
    if at != 0 || !std::ptr::eq(p.rule, &VERSION_WORD) {
        return Ok(p);
    }
    let bytes = stream.source.bytes();
    let head = head(bytes, HEAD).to_vec();
    let Some(what) = identify(&ModelFile::in_memory(&stream.label, head), "paddle") else {
        return Ok(p);
    };
    let found = bytes
        .first_chunk::<4>()
        .map_or(0, |b| u32::from_le_bytes(*b));
    Err(Problem {
        rule: &PARAMS_NOT_PADDLE,
        message: format!(
            "{} is {what}, not a Paddle parameter stream; Paddle refuses it (expected file \
format: 0, but {found} found)",
            stream.label
        ),
        ..p
    })
}
