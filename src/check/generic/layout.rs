//! Section overlaps, gaps, padding and trailing bytes.

use super::{EXTERNAL_DATA_UNUSED, NONZERO_PADDING, SECTION_OVERLAP, TRAILING_BYTES, UNUSED_BYTES};
use crate::check::{Findings, Item, Place};
use crate::inventory::{FileRole, Inventory, Section, SectionKind};
use humansize::{format_size, BINARY};

pub(super) fn check(inv: &Inventory, bytes: &[u8], out: &mut Findings) {
    overlaps(inv, out);
    // Padding between tensors shares pages with tensor data; reading it would page in the
    // weights, so only padding outside tensor data sections is read.
    let is_data_file = |section: &Section| {
        inv.files
            .get(section.file)
            .is_some_and(|f| f.role == FileRole::ExternalData)
    };
    // The model file's tensor data sections by start, each with the furthest end of it and
    // those before it, so that a padding section finds the one holding it by binary search.
    let mut containers: Vec<(u64, u64)> = (inv.sections.iter())
        .filter(|c| c.file == 0 && c.kind == SectionKind::TensorData)
        .map(|c| (c.range.start, c.range.end()))
        .collect();
    containers.sort();
    let mut furthest = 0;
    for (_, end) in &mut containers {
        furthest = furthest.max(*end);
        *end = furthest;
    }
    let in_tensor_data = |section: &Section| {
        let before = containers.partition_point(|&(start, _)| start <= section.range.start);
        before
            .checked_sub(1)
            .and_then(|i| containers.get(i))
            .is_some_and(|&(_, end)| section.range.end() <= end)
    };
    for (index, section) in inv.sections.iter().enumerate() {
        let range = section.range;
        let item = Item::Section { section: index };
        let size = format_size(range.len, BINARY);
        let place = Place::at(range.start).in_file(section.file).item(item);
        let (rule, place, message) = match section.kind {
            SectionKind::Gap | SectionKind::Trailing if is_data_file(section) => {
                let (len, start, end) = (range.len, range.start, range.end());
                let message =
                    format!("{size} ({len} bytes) at {start}..{end} are used by no tensor");
                (&EXTERNAL_DATA_UNUSED, place, message)
            }
            SectionKind::Gap => {
                let (len, start, end) = (range.len, range.start, range.end());
                let message = format!(
                    "{size} ({len} bytes) at {start}..{end} are used by no section or tensor"
                );
                (&UNUSED_BYTES, place, message)
            }
            SectionKind::Trailing => {
                let (len, start) = (range.len, range.start);
                let message = format!("{size} ({len} bytes) follow the last section, from offset {start} to the end of the file");
                (&TRAILING_BYTES, place, message)
            }
            SectionKind::Padding if section.file == 0 && !in_tensor_data(section) => {
                let Some(first) = first_nonzero(bytes, range.start, range.end()) else {
                    continue;
                };
                let byte = bytes.get(first as usize).copied().unwrap_or(0);
                let (start, end) = (range.start, range.end());
                let message = format!(
                    "padding {start}..{end} holds non-zero byte 0x{byte:02x} at offset {first}"
                );
                (&NONZERO_PADDING, place.offset(first), message)
            }
            _ => continue,
        };
        out.add(rule, place, message);
    }
}

fn first_nonzero(bytes: &[u8], start: u64, end: u64) -> Option<u64> {
    let start_idx = usize::try_from(start).ok()?;
    let end_idx = usize::try_from(end).ok()?.min(bytes.len());
    let slice = bytes.get(start_idx..end_idx)?;
    slice.iter().position(|&b| b != 0).map(|i| start + i as u64)
}

/// Reports each declared section that starts before an earlier one (in start order) ends.
fn overlaps(inv: &Inventory, out: &mut Findings) {
    let mut declared: Vec<(usize, &Section)> = inv
        .sections
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind.is_declared() && s.range.len > 0)
        .collect();
    declared.sort_by_key(|(_, s)| (s.file, s.range.start));
    let mut widest: Option<&Section> = None;
    for (index, b) in declared {
        if let Some(a) = widest.filter(|a| a.file == b.file && b.range.start < a.range.end()) {
            let end = a.range.end().min(b.range.end());
            out.add(
                &SECTION_OVERLAP,
                Place::at(b.range.start)
                    .item(Item::Section { section: index })
                    .in_file(b.file),
                format!(
                    "{} {}..{} overlaps {} {}..{} in bytes {}..{end}",
                    b.kind.label(),
                    b.range.start,
                    b.range.end(),
                    a.kind.label(),
                    a.range.start,
                    a.range.end(),
                    b.range.start
                ),
            );
        }
        if widest.is_none_or(|a| a.file != b.file || b.range.end() > a.range.end()) {
            widest = Some(b);
        }
    }
}
