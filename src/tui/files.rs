//! The model's files, opened again when a tab first shows bytes from them (a tensor's
//! values, a list's items): only files the reader accepted, and only if each is still the
//! file that was read. A remote file's bytes are fetched when first shown, up to
//! [`REMOTE_SHOWN`] at a time, and kept while the browser is open.

use crate::inventory::{DataRange, Inventory};
use crate::source::ModelFile;
use bytes::Bytes;

/// The most bytes of a remote file fetched to show one tensor or list: more would keep the
/// browser waiting on the network (`check --values` and `dump --values` read any size).
pub const REMOTE_SHOWN: u64 = 256 << 20;

/// Files opened so far, by inventory file id.
#[derive(Default)]
pub struct Files {
    opened: Vec<Option<ModelFile>>,
}

impl Files {
    /// The content of the file `d` is in, opened on first use ([`FileEntry::reopen`]), with
    /// the bytes of `d` in it.
    ///
    /// [`FileEntry::reopen`]: crate::inventory::FileEntry::reopen
    pub fn bytes(&mut self, inv: &Inventory, d: DataRange) -> Result<Bytes, String> {
        let entry = inv.files.get(d.file).ok_or("no such file")?;
        if self.opened.len() < inv.files.len() {
            self.opened.resize_with(inv.files.len(), || None);
        }
        let slot = self.opened.get_mut(d.file).ok_or("no such file")?;
        let file = match slot {
            Some(file) => file,
            None => slot.insert(entry.reopen().map_err(|e| e.to_string())?),
        };
        if file.is_remote() {
            if d.len > REMOTE_SHOWN {
                return Err(format!("its {} bytes are not fetched from the server to be shown here (at most {REMOTE_SHOWN}): rtenx dump --values reads them", d.len));
            }
            let part = (file.bytes().get(d.offset as usize..))
                .and_then(|rest| rest.get(..d.len as usize))
                .ok_or("the data lies outside its file")?;
            file.fetch_tensors(part).map_err(|e| e.to_string())?;
        }
        Ok(file.shared())
    }
}
