//! The model's files, opened again when a tab first shows bytes from them (a tensor's
//! values, a list's items): only files the reader accepted, and only if each is still the
//! file that was read.

use crate::inventory::{FileId, Inventory};
use bytes::Bytes;

/// Files mapped so far, by inventory file id.
#[derive(Default)]
pub struct Files {
    mapped: Vec<Option<Bytes>>,
}

impl Files {
    /// The content of file `id`, mapped on first use ([`FileEntry::reopen`]).
    pub fn bytes(&mut self, inv: &Inventory, id: FileId) -> Result<Bytes, String> {
        let entry = inv.files.get(id).ok_or("no such file")?;
        if self.mapped.len() < inv.files.len() {
            self.mapped.resize(inv.files.len(), None);
        }
        if let Some(Some(bytes)) = self.mapped.get(id) {
            return Ok(bytes.clone());
        }
        let bytes = entry.reopen().map_err(|e| e.to_string())?.shared();
        if let Some(slot) = self.mapped.get_mut(id) {
            *slot = Some(bytes.clone());
        }
        Ok(bytes)
    }
}
