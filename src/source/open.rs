//! The remote files open now, by the path they are shown by: tensor bytes read after the
//! analysis (`FileEntry::reopen`) come from the file that was checked, with what was
//! fetched of it, never from a second download by path.

use super::sparse::Sparse;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// The files by path, held weakly: a file closed is gone.
type Files = HashMap<PathBuf, Weak<Sparse>>;

/// The files, and how many were alive at the last sweep of the dead ones.
static OPEN: Mutex<(Option<Files>, usize)> = Mutex::new((None, 0));

/// Records `sparse` as the file shown as `path`.
pub fn insert(path: &Path, sparse: &Arc<Sparse>) {
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let (files, alive) = &mut *open;
    let files = files.get_or_insert_with(HashMap::new);
    files.insert(path.to_owned(), Arc::downgrade(sparse));
    // Swept when it has doubled since: each insertion pays a constant share.
    if files.len() > 2 * *alive + 64 {
        files.retain(|_, f| f.strong_count() > 0);
        *alive = files.len();
    }
}

/// The file shown as `path`, if it is still open.
pub fn get(path: &Path) -> Option<Arc<Sparse>> {
    let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    open.0.as_ref()?.get(path)?.upgrade()
}
