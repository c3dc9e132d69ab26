//! A remote file as the [`Origin`] of a sparse file: each range asked for is fetched with
//! ranged GETs, and every answer is held to the first one (its total size and `ETag`), so a
//! file that changes between requests is an error rather than a mix of two files.

use super::http::{Answer, Client, HubHeaders};
use crate::inventory::ByteRange;
use crate::source::sparse::{Origin, Purpose};
use crate::source::Provenance;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One remote file.
pub struct Remote {
    client: Arc<Client>,
    /// The URL its bytes are read from (before redirects).
    pub url: String,
    /// Its size, as the first answer said.
    pub total: u64,
    /// The `ETag` of the first answer, which every later one must carry too.
    etag: Option<String>,
    /// What the Hub said of it.
    pub hub: HubHeaders,
    /// Bytes read from the network for it, for its readers.
    spent: AtomicU64,
    /// Tensor bytes read from the network for it ([`Purpose::Tensors`]), and asked for.
    tensors: (AtomicU64, AtomicU64),
    /// Requests made for it.
    requests: AtomicU64,
    /// Where the last answer came from, after redirects: later ranges are asked there.
    direct: Mutex<Option<String>>,
}

/// The first answer about a file: the file, and the bytes it carried from offset 0.
pub struct First {
    /// The file.
    pub remote: Remote,
    /// Its first bytes.
    pub head: Vec<u8>,
}

impl Remote {
    /// Asks for the first `len` bytes of `url`, learning its size on the way.
    pub fn first(client: Arc<Client>, url: &str, len: u64) -> Result<First, String> {
        let mut answer = client.get(url, 0, len)?;
        let total = match answer.range {
            Some((_, _, total)) => Some(total),
            None => answer.length,
        };
        let mut remote = Remote {
            client,
            url: url.to_owned(),
            total: total.unwrap_or(0),
            etag: answer.etag.clone(),
            hub: answer.hub.clone(),
            spent: AtomicU64::new(0),
            tensors: (AtomicU64::new(0), AtomicU64::new(0)),
            requests: AtomicU64::new(1),
            direct: Mutex::new(Some(answer.url.clone())),
        };
        let want = match answer.range {
            Some((from, to, _)) => to - from,
            // The whole file: all of it if the budget allows, since it is coming anyway.
            None => match total {
                Some(t) if t <= remote.client.budgets.file => t.max(len),
                _ => len,
            },
        };
        let mut head = remote.body(&mut answer, want, Purpose::Structure)?;
        if total.is_none() {
            // A whole body of unknown length: all of it must fit the budget.
            if answer.has_more() || head.len() as u64 >= remote.client.budgets.file {
                return Err(format!("{url} answered without a size or a range, and is larger than the per-file budget of {} bytes", remote.client.budgets.file));
            }
            remote.total = head.len() as u64;
        }
        head.truncate(usize::try_from(remote.total).unwrap_or(usize::MAX));
        if let Some(size) = remote.hub.linked_size.filter(|&s| s != remote.total) {
            return Err(format!(
                "{url}: the Hub says the file has {size} bytes (X-Linked-Size), the server {}",
                remote.total
            ));
        }
        Ok(First { remote, head })
    }

    /// Bytes read from the network for this file, and the requests made.
    pub fn spent(&self) -> (u64, u64) {
        (
            self.spent.load(Ordering::Relaxed),
            self.requests.load(Ordering::Relaxed),
        )
    }

    /// Reads up to `want` bytes of `answer`'s body: for the readers, paid from the budgets;
    /// tensor bytes only counted, since no more than the ranges asked is ever read.
    fn body(&self, answer: &mut Answer, want: u64, purpose: Purpose) -> Result<Vec<u8>, String> {
        let budget = self.client.budgets.file;
        answer.read(want, &|n| {
            if purpose == Purpose::Tensors {
                self.tensors.0.fetch_add(n, Ordering::Relaxed);
                return Ok(());
            }
            let spent = self.spent.fetch_add(n, Ordering::Relaxed).saturating_add(n);
            if spent > budget {
                return Err(format!("{}: fetching it would read more than its budget of {budget} bytes (RTENX_REMOTE_BUDGET raises it)", self.url));
            }
            self.client.pay(n)
        })
    }

    /// Holds a later answer to the first: same size, same `ETag`.
    fn same_file(&self, answer: &Answer) -> Result<(), String> {
        let total = match answer.range {
            Some((_, _, total)) => Some(total),
            None => answer.length,
        };
        if let Some(total) = total.filter(|&t| t != self.total) {
            return Err(format!(
                "{}: the file changed between requests: its size went from {} to {total} bytes",
                self.url, self.total
            ));
        }
        if let (Some(before), Some(now)) = (&self.etag, &answer.etag) {
            if before != now {
                let (before, now) = (
                    crate::escape::sanitize(before),
                    crate::escape::sanitize(now),
                );
                return Err(format!(
                    "{}: the file changed between requests: its ETag went from {before} to {now}",
                    self.url
                ));
            }
        }
        Ok(())
    }

    /// Fetches `start..end` for `purpose`: the parts read, in order. A server that answers
    /// less than asked is asked again for the rest.
    fn range(&self, start: u64, end: u64, purpose: Purpose) -> Result<Vec<(u64, Vec<u8>)>, String> {
        let mut parts = Vec::new();
        let mut at = start;
        while at < end {
            let mut answer = self.get(at, end)?;
            let (from, got) = match answer.range {
                Some((from, to, _)) => {
                    let body = self.body(&mut answer, to - from, purpose)?;
                    if body.len() as u64 == to - from && answer.has_more() {
                        return Err(format!("{}: the answer for bytes {from}-{} is longer than its Content-Range says", self.url, to - 1));
                    }
                    (from, body)
                }
                // The whole file from offset 0, ranges ignored: read up to what is needed,
                // within the budget, and stop.
                None => {
                    let budget = self.client.budgets.file;
                    let left = budget.saturating_sub(self.spent().0);
                    if end > left {
                        return Err(format!("{}: the server ignores byte ranges (it answered 200, the whole file, to bytes={at}-{}): reaching them would read {end} bytes, more than the {left} left of the file's budget of {budget} (RTENX_REMOTE_BUDGET raises it)", self.url, end - 1));
                    }
                    (0, self.body(&mut answer, end, Purpose::Structure)?)
                }
            };
            let reached = from + got.len() as u64;
            if reached <= at {
                return Err(format!(
                    "{}: the answer for bytes {at}-{} ended before any of them (a short body)",
                    self.url,
                    end - 1
                ));
            }
            parts.push((from, got));
            at = reached;
        }
        Ok(parts)
    }

    /// GETs `start..end` from where the first answer came from (the CDN a Hub redirected
    /// to, without the Hub's round trip), or, if that fails (a signed URL that expired), from
    /// the URL given; the answer is held to the first.
    fn get(&self, start: u64, end: u64) -> Result<Answer, String> {
        let made = self.requests.fetch_add(1, Ordering::Relaxed);
        let allowed = MAX_REQUESTS + self.tensors.1.load(Ordering::Relaxed) / PIECE;
        if made >= allowed {
            return Err(format!("{}: more than {allowed} requests for this file: its server answers too little at a time", self.url));
        }
        let direct = self.lock().clone();
        let answer = match direct.map(|url| self.client.get(&url, start, end)) {
            Some(Ok(answer)) => answer,
            _ => {
                let answer = self.client.get(&self.url, start, end)?;
                *self.lock() = Some(answer.url.clone());
                answer
            }
        };
        self.same_file(&answer)?;
        Ok(answer)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.direct.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Requests for one file at most, and one more for each [`PIECE`] of tensor bytes asked
/// for: a server that answers a byte at a time is given up on.
const MAX_REQUESTS: u64 = 4096;
/// The most one request asks for: a long stretch of tensor bytes is fetched in pieces, up
/// to [`PARALLEL`] at once.
const PIECE: u64 = 4 << 20;
/// Ranges closer than this are fetched as one: a request costs more than a few pages.
const MERGE_GAP: u64 = 16 << 10;
/// Requests in flight at once for one file.
const PARALLEL: usize = 8;

/// `wanted` with ranges less than [`MERGE_GAP`] apart merged, then cut into [`PIECE`]s.
fn coalesce(wanted: &[ByteRange]) -> Vec<ByteRange> {
    let mut merged: Vec<ByteRange> = Vec::new();
    for r in wanted {
        match merged.last_mut() {
            Some(last) if r.start <= last.end().saturating_add(MERGE_GAP) => {
                *last = ByteRange::between(last.start, last.end().max(r.end()));
            }
            _ => merged.push(*r),
        }
    }
    let pieces = |r: ByteRange| {
        (r.start..r.end())
            .step_by(usize::try_from(PIECE).unwrap_or(usize::MAX))
            .map(move |at| ByteRange::between(at, (at + PIECE).min(r.end())))
    };
    merged.into_iter().flat_map(pieces).collect()
}

impl Origin for Remote {
    /// Fetches the ranges, merged where close, with up to [`PARALLEL`] requests at once.
    fn fetch(
        &self,
        wanted: &[ByteRange],
        purpose: Purpose,
        put: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), String> {
        let ranges: Vec<ByteRange> = (coalesce(wanted).into_iter())
            .map(|r| ByteRange::between(r.start, r.end().min(self.total)))
            .filter(|r| r.len > 0)
            .collect();
        if purpose == Purpose::Tensors {
            let asked = ranges.iter().map(|r| r.len).sum();
            self.tensors.1.fetch_add(asked, Ordering::Relaxed);
        }
        // Parts are written as they come: memory holds the pieces in flight, not the whole.
        let next = AtomicUsize::new(0);
        let (send, parts) = std::sync::mpsc::sync_channel(PARALLEL);
        std::thread::scope(|scope| {
            for _ in 0..PARALLEL.min(ranges.len()) {
                let send = send.clone();
                let (next, ranges) = (&next, &ranges);
                scope.spawn(move || {
                    while let Some(r) = ranges.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let got = self.range(r.start, r.end(), purpose);
                        if got.is_err() {
                            // The others stop at their next range.
                            next.store(ranges.len(), Ordering::Relaxed);
                        }
                        if send.send(got).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(send);
            let mut failed = None;
            for got in parts {
                match got {
                    Ok(got) if failed.is_none() => {
                        for (at, bytes) in got {
                            put(at, &bytes);
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        failed.get_or_insert(e);
                    }
                }
            }
            failed.map_or(Ok(()), Err)
        })
    }

    fn provenance(&self) -> Provenance {
        let (spent, requests) = self.spent();
        let fetched = spent + self.tensors.0.load(Ordering::Relaxed);
        Provenance {
            url: self.url.clone(),
            commit: self.hub.commit.clone(),
            sha256: self.hub.sha256.clone(),
            etag: self.hub.etag.clone().or_else(|| self.etag.clone()),
            size: self.total,
            fetched,
            requests,
            data_files: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_close_together_are_one_request() {
        let r = |start, end| ByteRange::between(start, end);
        let wanted = [
            r(0, 10),
            r(4096, 8192),
            r(30_000, 30_010),
            r(50_000, 50_001),
        ];
        assert_eq!(
            coalesce(&wanted),
            [r(0, 8192), r(30_000, 30_010), r(50_000, 50_001)]
        );
        assert_eq!(coalesce(&[r(0, 100), r(50, 60)]), [r(0, 100)]);
        let long = coalesce(&[r(1, 2 * PIECE + 7)]);
        assert_eq!(
            long,
            [
                r(1, PIECE + 1),
                r(PIECE + 1, 2 * PIECE + 1),
                r(2 * PIECE + 1, 2 * PIECE + 7)
            ]
        );
        assert_eq!(coalesce(&[]), []);
    }
}
