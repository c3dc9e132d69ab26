//! `.ptd` data files: the `FH01` header, the FlatTensor FlatBuffer (either generation), its
//! segments, and the named entries that become tensors.

use super::desc::Desc;
use super::entries::{Entries, Entry};
use super::header;
use super::rules::{CONSTANT_OUT_OF_RANGE, LEGACY_DATA_FILE};
use super::schema::{data as fb, legacy_data as legacy};
use super::segments::{self, Segment};
use super::verify;
use crate::check::Place;
use crate::formats::shared::context::Context;
use crate::formats::shared::flatbuffer::RawTable;
use crate::inventory::{ByteRange, DataRange, Inventory, Section, SectionKind, Tensor};

/// Whether the root table has more than the current generation's three fields: the first
/// generation always has ids 2 and 3 (`tensors`, `segments`).
fn is_legacy(flatbuffer: &[u8]) -> bool {
    RawTable::root(flatbuffer)
        .vtable_len()
        .is_some_and(|len| len > 4 + 2 * 3)
}

/// Reads the `.ptd` that `cx` reads (its file 0), and returns its entries, with their
/// tensors added to its inventory; `None` if the file could not be read to its end.
pub fn read(cx: &mut Context<'_>) -> Option<Vec<Entry>> {
    let bytes = cx.bytes;
    let layout = header::data(cx)?;
    let flatbuffer = usize::try_from(layout.flatbuffer_end)
        .ok()
        .and_then(|end| bytes.get(..end))
        .unwrap_or_default();
    let mut reader = Entries::new(cx);
    let segments = if is_legacy(flatbuffer) {
        reader.cx.inv.format_version = "FT01 data, first generation".to_owned();
        let message = "this .ptd has the first FT01 layout (ExecuTorch 0.6, with tensor_alignment and a tensor list); runtimes from 0.7 on read its fields as the current layout's and get garbage";
        reader.cx.report(&LEGACY_DATA_FILE, Place::at(0), message);
        let root = verify::verify(
            flatbuffer,
            legacy::root_as_flat_tensor_with_opts,
            reader.cx.out,
        )?;
        reader.version(root.version(), &root._tab);
        let segments = reader.segments(
            root.segments()
                .map(|v| v.iter().map(|s| (s.offset(), s.size(), s._tab.loc()))),
            &layout,
        );
        let ends = legacy_tensors(&mut reader, &root, &segments);
        pad_tails(
            &mut reader.cx.inv,
            &segments,
            &ends,
            u64::from(root.tensor_alignment()),
        );
        reader.named(
            root.named_data().map(|v| {
                v.iter()
                    .map(|n| (n.key(), n.segment_index(), None, n._tab.loc()))
            }),
            &segments,
        );
        segments
    } else {
        reader.cx.inv.format_version = "FT01 data".to_owned();
        let root = verify::verify(flatbuffer, fb::root_as_flat_tensor_with_opts, reader.cx.out)?;
        reader.version(root.version(), &root._tab);
        let segments = reader.segments(
            root.segments()
                .map(|v| v.iter().map(|s| (s.offset(), s.size(), s._tab.loc()))),
            &layout,
        );
        let named = root.named_data().map(|v| {
            v.iter().map(|n| {
                let desc = n.tensor_layout().map(|l| {
                    Desc::new(
                        l.scalar_type().0,
                        l.sizes().map(|s| s.iter()),
                        l.dim_order().map(|d| d.iter()),
                    )
                });
                (n.key(), n.segment_index(), desc, n._tab.loc())
            })
        });
        reader.named(named, &segments);
        segments
    };
    let entries = reader.finish();
    let mut holds_tensors = vec![false; segments.len()];
    for e in entries.iter().filter(|e| e.desc.is_some()) {
        if let Some(slot) = e.segment.and_then(|i| holds_tensors.get_mut(i)) {
            *slot = true;
        }
    }
    let kind = |i: usize| match holds_tensors.get(i) {
        Some(true) => SectionKind::TensorData,
        _ => SectionKind::BlobData,
    };
    segments::declare(&segments, &layout, 0, kind, &mut cx.inv);
    Some(entries).filter(|_| layout.complete())
}

/// Declares the padding after the last tensor of each segment of a first-generation file,
/// whose tensors are padded to `alignment` inside their one segment; `ends` holds where the
/// last tensor of each segment ends.
fn pad_tails(inv: &mut Inventory, segments: &[Segment], ends: &[Option<u64>], alignment: u64) {
    for (seg, end) in segments.iter().zip(ends) {
        let (Some(seg), Some(end)) = (seg.range, *end) else {
            continue;
        };
        if end < seg.end() && seg.end() - end < alignment {
            let range = ByteRange::between(end, seg.end());
            inv.sections.push(Section {
                file: 0,
                kind: SectionKind::Padding,
                range,
            });
        }
    }
}

/// Tensors of a first-generation file: each at an offset inside its segment. Returns where
/// the last tensor of each segment ends.
fn legacy_tensors(
    r: &mut Entries<'_, '_>,
    root: &legacy::FlatTensor<'_>,
    segments: &[Segment],
) -> Vec<Option<u64>> {
    let mut ends = vec![None; segments.len()];
    for t in root.tensors().into_iter().flatten() {
        let at = t._tab.loc() as u64;
        let key = r.key(t.fully_qualified_name());
        let desc = Desc::new(
            t.scalar_type().0,
            t.sizes().map(|s| s.iter()),
            t.dim_order().map(|d| d.iter()),
        );
        let what = || format!("tensor \"{key}\"");
        let segment = r.segment_range(segments, t.segment_index(), &what, at);
        let nbytes = super::dtypes::dtype(desc.scalar_type).and_then(|dt| {
            let dims: Vec<u64> = desc
                .sizes
                .iter()
                .map(|&d| u64::try_from(d).unwrap_or(Tensor::NOT_A_SIZE))
                .collect();
            Tensor::sizes(&dims, Some(dt)).1
        });
        let data = segment.and_then(|seg| {
            let len = nbytes.unwrap_or(0);
            let fits = t
                .offset()
                .checked_add(len)
                .is_some_and(|end| end <= seg.len);
            if !fits {
                let message = format!(
                    "{} at offset {} needs {len} bytes, past the end of its {}-byte segment",
                    what(),
                    t.offset(),
                    seg.len
                );
                r.cx.report(&CONSTANT_OUT_OF_RANGE, Place::at(at), message);
                return None;
            }
            Some(DataRange {
                file: 0,
                offset: seg.offset + t.offset(),
                len,
            })
        });
        let Some(tensor) = r.tensor(&key, Some(&desc), data, at) else {
            break;
        };
        let segment = Some(t.segment_index() as usize).filter(|&i| i < segments.len());
        if let (Some(end), Some(slot)) = (
            data.and_then(|d| d.end()),
            segment.and_then(|i| ends.get_mut(i)),
        ) {
            *slot = Some(slot.map_or(end, |e: u64| e.max(end)));
        }
        r.entries.push(Entry {
            key,
            desc: Some(desc),
            tensor,
            segment,
        });
    }
    ends
}
