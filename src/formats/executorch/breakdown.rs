//! Where the bytes of a program and its data files go: the size tables.

use super::program::{Program, SegmentUse};
use crate::inventory::{Inventory, Name, NodeKind, SectionKind, SizeRow, SizeTable};
use std::collections::{BTreeMap, HashSet};

/// Rows the segment table lists before summing the rest.
const SEGMENT_ROWS: usize = 32;

/// Bytes of `file`'s sections of `kind`.
fn section_bytes(inv: &Inventory, file: usize, kinds: &[SectionKind]) -> u64 {
    inv.sections
        .iter()
        .filter(|s| s.file == file && kinds.contains(&s.kind))
        .map(|s| s.range.len)
        .sum()
}

/// The size tables of a program and its paired data files.
pub fn program(inv: &Inventory, p: &Program) -> Vec<SizeTable> {
    let by_use = |u: SegmentUse| {
        let sizes = p.segments.iter().zip(&p.uses).filter(|(_, &x)| x == u);
        sizes.map(|(s, _)| s.size).fold(0u64, u64::saturating_add)
    };
    let (inline_delegates, legacy_constants) = p.inline_bytes;
    let flatbuffer = section_bytes(inv, 0, &[SectionKind::ModelData]);
    let data_files: u64 = inv.files.iter().skip(1).filter_map(|f| f.size).sum();
    let rows = [
        ("header", section_bytes(inv, 0, &[SectionKind::Header])),
        (
            "program FlatBuffer",
            flatbuffer.saturating_sub(inline_delegates + legacy_constants),
        ),
        ("inline delegate blobs", inline_delegates),
        ("legacy constant buffers", legacy_constants),
        ("constants", by_use(SegmentUse::Constants)),
        ("mutable initial state", by_use(SegmentUse::Mutable)),
        ("named data", by_use(SegmentUse::Named)),
        ("delegate segments", by_use(SegmentUse::Delegate)),
        ("unused segments", by_use(SegmentUse::Unused)),
        (
            "padding and gaps",
            section_bytes(inv, 0, &[SectionKind::Padding, SectionKind::Gap]),
        ),
        (
            "trailing bytes",
            section_bytes(inv, 0, &[SectionKind::Trailing]),
        ),
        ("data files (.ptd)", data_files),
    ];
    let content = rows
        .into_iter()
        .filter(|r| r.1 > 0)
        .map(|(l, b)| SizeRow::new(l, b, None))
        .collect();
    let mut tables = vec![SizeTable {
        title: "by content",
        rows: content,
    }];
    tables.push(SizeTable::largest_first("by method", methods(inv, p)));
    let mut backends: BTreeMap<&Name, (u64, u64)> = BTreeMap::new();
    for d in &p.delegates {
        let entry = backends.entry(&d.backend).or_default();
        entry.0 = entry.0.saturating_add(d.bytes.unwrap_or(0));
        entry.1 += 1;
    }
    if !backends.is_empty() {
        let rows = backends
            .into_iter()
            .map(|(b, (bytes, n))| SizeRow::new(b.clone(), bytes, Some(n)))
            .collect();
        tables.push(SizeTable::largest_first("by backend", rows));
    }
    if !p.segments.is_empty() {
        tables.push(SizeTable {
            title: "by segment",
            rows: segments(p),
        });
    }
    tables
}

/// Bytes each method uses: its constants and external tensors, and its delegates' blobs;
/// items are instructions.
fn methods(inv: &Inventory, p: &Program) -> Vec<SizeRow> {
    let mut delegated = vec![0u64; inv.graphs.len()];
    for d in &p.delegates {
        if let Some(sum) = delegated.get_mut(d.graph) {
            *sum = sum.saturating_add(d.bytes.unwrap_or(0));
        }
    }
    inv.graphs
        .iter()
        .zip(delegated)
        .map(|(g, delegated)| {
            let mut seen = HashSet::new();
            let mut bytes = delegated;
            let mut instructions = 0u64;
            for node in &g.nodes {
                match &node.kind {
                    NodeKind::Constant { tensor } if seen.insert(*tensor) => {
                        let t = inv.tensors.get(*tensor);
                        bytes = bytes.saturating_add(t.and_then(|t| t.data).map_or(0, |d| d.len));
                    }
                    NodeKind::Operator(_) => instructions += 1,
                    _ => {}
                }
            }
            SizeRow::new(g.name.clone(), bytes, Some(instructions))
        })
        .collect()
}

/// Each segment in file order, with what it holds.
fn segments(p: &Program) -> Vec<SizeRow> {
    let mut rows: Vec<SizeRow> = p
        .segments
        .iter()
        .zip(&p.uses)
        .enumerate()
        .take(SEGMENT_ROWS)
        .map(|(i, (s, u))| {
            let what = match u {
                _ if s.size == 0 => "empty",
                SegmentUse::Unused => "unused",
                SegmentUse::Constants => "constants",
                SegmentUse::Mutable => "mutable initial state",
                SegmentUse::Named => "named data",
                SegmentUse::Delegate => "delegate blob",
            };
            SizeRow::new(format!("segment {i}: {what}"), s.size, None)
        })
        .collect();
    if let Some(more) = p.segments.get(SEGMENT_ROWS..).filter(|m| !m.is_empty()) {
        let rest = more.iter().map(|s| s.size).fold(0u64, u64::saturating_add);
        let label = format!("{} more segments", p.segments.len() - SEGMENT_ROWS);
        rows.push(SizeRow::new(label, rest, None));
    }
    rows
}

/// The size tables of a data file read alone.
pub fn data(inv: &Inventory) -> Vec<SizeTable> {
    let rows = [
        ("header", section_bytes(inv, 0, &[SectionKind::Header])),
        (
            "FlatBuffer",
            section_bytes(inv, 0, &[SectionKind::ModelData]),
        ),
        ("tensors", section_bytes(inv, 0, &[SectionKind::TensorData])),
        (
            "opaque blobs",
            section_bytes(inv, 0, &[SectionKind::BlobData]),
        ),
        (
            "padding and gaps",
            section_bytes(inv, 0, &[SectionKind::Padding, SectionKind::Gap]),
        ),
        (
            "trailing bytes",
            section_bytes(inv, 0, &[SectionKind::Trailing]),
        ),
    ];
    let content = rows
        .into_iter()
        .filter(|r| r.1 > 0)
        .map(|(l, b)| SizeRow::new(l, b, None))
        .collect();
    vec![SizeTable {
        title: "by content",
        rows: content,
    }]
}
