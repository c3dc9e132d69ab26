//! Completing a file's layout with padding, gaps and trailing bytes.

use super::{ByteRange, FileId, Inventory, Section, SectionKind};

/// Unclaimed runs shorter than this are padding when the format states no alignment.
const DEFAULT_PADDING: u64 = 8;

impl Inventory {
    /// Adds padding, gap and trailing sections for the bytes of each file that no header,
    /// model data or tensor claims, then sorts the sections by file and offset.
    ///
    /// Readers call this once they have declared their sections and tensors.
    pub fn fill_gaps(&mut self) {
        let threshold = self.preferred_alignment.unwrap_or(DEFAULT_PADDING).max(1);
        let mut found = Vec::new();
        for (file, entry) in self.files.iter().enumerate() {
            let Some(size) = entry.size else { continue };
            let mut claims = self.claims(file, size);
            claims.sort_unstable_by_key(|r| r.start);
            let mut cursor = 0u64;
            for claim in claims {
                if claim.start > cursor {
                    let gap = ByteRange::between(cursor, claim.start);
                    let kind = if gap.len < threshold {
                        SectionKind::Padding
                    } else {
                        SectionKind::Gap
                    };
                    found.push(Section {
                        file,
                        kind,
                        range: gap,
                    });
                }
                cursor = cursor.max(claim.end());
            }
            if cursor < size {
                let range = ByteRange::between(cursor, size);
                found.push(Section {
                    file,
                    kind: SectionKind::Trailing,
                    range,
                });
            }
        }
        self.sections.extend(found);
        self.sections
            .sort_by_key(|s| (s.file, s.range.start, s.range.len));
    }

    /// Ranges of `file` in use: headers, model data and tensor data, clamped to `size`. The
    /// start of a tensor data or external data section counts as an empty claim, so that the
    /// padding before it is not mistaken for trailing bytes when it holds no tensors.
    fn claims(&self, file: FileId, size: u64) -> Vec<ByteRange> {
        let sections = self
            .sections
            .iter()
            .filter(|s| s.file == file)
            .map(|s| match s.kind {
                SectionKind::Header | SectionKind::ModelData => s.range,
                _ => ByteRange {
                    start: s.range.start,
                    len: 0,
                },
            });
        let tensors = self
            .tensors
            .iter()
            .filter_map(|t| t.data)
            .filter(|d| d.file == file && d.len > 0)
            .map(|d| ByteRange::between(d.offset, d.end().unwrap_or(u64::MAX)));
        sections
            .chain(tensors)
            .filter(|r| r.start <= size)
            .map(|r| ByteRange::between(r.start, r.end().min(size)))
            .collect()
    }
}
