//! Which byte ranges of a file are known: what a remote file has fetched, and what a
//! format's fetch plan (`Format::fetch_plan`) looks at.

use super::ByteRange;

/// Byte ranges of a file, sorted, disjoint and merged where they touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fetched {
    ranges: Vec<(u64, u64)>,
}

impl Fetched {
    /// Adds `start..end`.
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let last = self.ranges.partition_point(|&(s, _)| s <= end);
        let (mut start, mut end) = (start, end);
        if let Some(merged) = self.ranges.get(first..last) {
            if let (Some(a), Some(b)) = (merged.first(), merged.last()) {
                start = start.min(a.0);
                end = end.max(b.1);
            }
        }
        self.ranges.splice(first..last, [(start, end)]);
    }

    /// The parts of `start..end` in the set.
    pub fn inside(&self, start: u64, end: u64) -> Vec<ByteRange> {
        let first = self.ranges.partition_point(|&(_, e)| e <= start);
        (self.ranges.get(first..).unwrap_or_default().iter())
            .take_while(|&&(s, _)| s < end)
            .map(|&(s, e)| ByteRange::between(s.max(start), e.min(end)))
            .collect()
    }

    /// Takes `start..end` out.
    pub fn remove(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let first = self.ranges.partition_point(|&(_, e)| e <= start);
        let last = self.ranges.partition_point(|&(s, _)| s < end);
        let Some(cut) = self.ranges.get(first..last) else {
            return;
        };
        let kept: Vec<(u64, u64)> = [
            cut.first().map(|&(s, _)| (s, start)),
            cut.last().map(|&(_, e)| (end, e)),
        ]
        .into_iter()
        .flatten()
        .filter(|(s, e)| s < e)
        .collect();
        self.ranges.splice(first..last, kept);
    }

    /// Whether every byte of `start..start + len` is in the set.
    pub fn covers(&self, start: u64, len: u64) -> bool {
        let end = start.saturating_add(len);
        let at = self.ranges.partition_point(|&(_, e)| e <= start);
        len == 0
            || self
                .ranges
                .get(at)
                .is_some_and(|&(s, e)| s <= start && end <= e)
    }

    /// The end of the run that starts at 0: how long a prefix of the file is known.
    pub fn prefix(&self) -> u64 {
        match self.ranges.first() {
            Some(&(0, end)) => end,
            _ => 0,
        }
    }

    /// The parts of `start..end` not in the set.
    pub fn missing(&self, start: u64, end: u64) -> Vec<ByteRange> {
        let mut gaps = Vec::new();
        let mut at = start;
        let first = self.ranges.partition_point(|&(_, e)| e <= start);
        for &(s, e) in self.ranges.get(first..).unwrap_or_default() {
            if s >= end {
                break;
            }
            if s > at {
                gaps.push(ByteRange::between(at, s));
            }
            at = at.max(e);
        }
        if at < end {
            gaps.push(ByteRange::between(at, end));
        }
        gaps
    }

    /// Bytes in the set.
    pub fn bytes(&self) -> u64 {
        self.ranges.iter().map(|&(s, e)| e - s).sum()
    }

    /// The ranges, in order.
    pub fn ranges(&self) -> impl Iterator<Item = ByteRange> + '_ {
        self.ranges.iter().map(|&(s, e)| ByteRange::between(s, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_merges_and_tells_what_is_missing() {
        let mut set = Fetched::default();
        set.insert(10, 20);
        set.insert(30, 40);
        set.insert(20, 25);
        assert_eq!(set.ranges, [(10, 25), (30, 40)]);
        assert!(set.covers(12, 13) && !set.covers(24, 2) && set.covers(0, 0));
        assert_eq!(
            set.missing(0, 50),
            [
                ByteRange::between(0, 10),
                ByteRange::between(25, 30),
                ByteRange::between(40, 50)
            ]
        );
        set.insert(5, 35);
        assert_eq!(set.ranges, [(5, 40)]);
        assert_eq!((set.bytes(), set.prefix()), (35, 0));
        assert_eq!(set.inside(0, 12), [ByteRange::between(5, 12)]);
        set.remove(10, 20);
        assert_eq!(set.ranges, [(5, 10), (20, 40)]);
        set.remove(0, 6);
        set.remove(38, 99);
        assert_eq!(set.ranges, [(6, 10), (20, 38)]);
        set.remove(6, 38);
        assert_eq!(set.ranges, []);
    }
}
