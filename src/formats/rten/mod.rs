//! RTen `.rten` files: V1 (a bare FlatBuffer) and V2 (32-byte header, FlatBuffer, tensor data).
//!
//! Reading goes header → FlatBuffer verification → graph walk. Each step reports what it
//! finds and hands on only what it could validate, so no offset from the file is used
//! before it has been checked.

mod attrs;
mod header;
mod raw;
pub mod rules;
#[allow(unsafe_code, clippy::all, clippy::pedantic, missing_docs, dead_code, unused_imports)]
#[rustfmt::skip]
mod schema_generated;
mod table_types;
#[rustfmt::skip]
mod tables;
mod verify;
mod version;
mod walk;

use crate::check::{Finding, Rule};
use crate::formats::{Detection, Format};
use crate::inventory::{FileEntry, FileRole, Inventory, SectionKind};
use crate::source::ModelFile;

/// Alignment rten-convert gives tensor data.
const TENSOR_ALIGNMENT: u64 = 64;

/// The RTen format.
pub struct Rten;

impl Format for Rten {
    fn name(&self) -> &'static str {
        "rten"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["rten"]
    }

    fn rules(&self) -> &'static [&'static Rule] {
        rules::RULES
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if bytes.starts_with(header::MAGIC) {
            Detection::Magic
        } else if header::plausible_v1(bytes) {
            Detection::Plausible
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, out: &mut Vec<Finding>) -> Inventory {
        let bytes = file.bytes();
        let entry = FileEntry {
            path: file.path().to_owned(),
            size: Some(bytes.len() as u64),
            role: FileRole::Model,
        };
        let mut inv = Inventory::new("rten", "", entry);
        inv.preferred_alignment = Some(TENSOR_ALIGNMENT);
        if let Some(layout) = header::read(bytes, &mut inv, out) {
            read_model(bytes, &layout, &mut inv, out);
            declare_tensor_section(&layout, &mut inv);
        }
        inv.fill_gaps();
        inv
    }
}

fn read_model(
    bytes: &[u8],
    layout: &header::Container,
    inv: &mut Inventory,
    out: &mut Vec<Finding>,
) {
    let range = usize::try_from(layout.model_offset)
        .ok()
        .zip(usize::try_from(layout.model_len).ok())
        .and_then(|(start, len)| bytes.get(start..start.checked_add(len)?));
    let Some(model) = range else { return };
    if let Some(root) = verify::verify(model, layout.model_offset, out) {
        walk::Walker::new(model, layout, inv, out).run(root);
    }
}

/// The tensor data section runs from tensor_data_offset to the end of the last external
/// tensor that lies inside the file.
fn declare_tensor_section(layout: &header::Container, inv: &mut Inventory) {
    let Some(start) = layout.tensor_data_offset else {
        return;
    };
    let size = inv.main_file().size.unwrap_or(0);
    let end = inv
        .tensors
        .iter()
        .filter(|t| t.storage == crate::inventory::Storage::External)
        .filter_map(|t| t.data?.end())
        .filter(|&end| end <= size)
        .fold(start, u64::max);
    header::push_section(inv, SectionKind::TensorData, start, end);
}
