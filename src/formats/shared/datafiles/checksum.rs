//! `--verify-checksums`: SHA-1 of each external data file against the `checksum` keys.
//!
//! Files are hashed in parallel, one thread per file up to the number of cores, each
//! streaming its memory-mapped file through SHA-1 in large blocks. This is the only code
//! that reads tensor bytes.

use super::rules::CHECKSUM_MISMATCH;
use crate::check::{Findings, Item, Place};
use crate::inventory::{FileId, Inventory, TensorId};
use crate::source::digest;
use sha1::Sha1;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A checksum a model records for the data file holding one of its tensors.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The data file.
    pub file: FileId,
    /// The SHA-1 the model records, as it stores it.
    pub sha1: String,
    /// The tensor that records it.
    pub tensor: TensorId,
}

/// Hashes every file some tensor records a checksum for, opened as `data` opens them (a
/// remote model's from its repository), and reports mismatches.
pub fn verify(
    inv: &Inventory,
    wanted: &[Recorded],
    data: &super::DataFiles,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
    out: &mut Findings,
) {
    let mut files: Vec<FileId> = wanted.iter().map(|w| w.file).collect();
    files.sort_unstable();
    files.dedup();
    let total: u64 = files.iter().filter_map(|&f| inv.files.get(f)?.size).sum();
    let done = AtomicU64::new(0);
    let next = Mutex::new(files.iter());
    let digests = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(file) = next.lock().ok().and_then(|mut it| it.next().copied()) {
                    let Some(opened) = data.reopen(file, inv) else {
                        continue;
                    };
                    let digest = opened.and_then(|f| {
                        digest::of_file::<Sha1>(&f, |n| {
                            let now = done.fetch_add(n, Ordering::Relaxed) + n;
                            if let Some(report) = progress {
                                report(now, total);
                            }
                        })
                    });
                    if let Ok(mut d) = digests.lock() {
                        d.push((file, digest));
                    }
                }
            });
        }
    });
    let digests: HashMap<FileId, _> = digests
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .collect();
    for Recorded { file, sha1, tensor } in wanted {
        let (Some(actual), Some(entry)) = (digests.get(file), inv.files.get(*file)) else {
            continue;
        };
        let message = match actual {
            Ok(actual) if actual.eq_ignore_ascii_case(sha1.trim()) => continue,
            Ok(actual) => format!(
                "SHA-1 of {} is {actual}, but the tensor records checksum \"{}\"",
                entry.path.display(),
                crate::escape::sanitize(sha1)
            ),
            Err(e) => format!("cannot hash {}: {e}", entry.path.display()),
        };
        out.add(
            &CHECKSUM_MISMATCH,
            Place::on(Item::Tensor { tensor: *tensor }).in_file(*file),
            message,
        );
    }
}
