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
        let all_claims = self.claims();
        for ((file, entry), mut claims) in self.files.iter().enumerate().zip(all_claims) {
            let Some(size) = entry.size else { continue };
            claims.sort_by_key(|r| r.start);
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
        self.sort_sections();
    }

    /// Forgets the section that declares all of data file `file` as external data, for a
    /// reader that declares the file's own sections instead. It is looked for from the end, as
    /// a reader forgets it right after the file is found, so that a model of many data files
    /// forgets each in constant time.
    pub fn forget_whole_file_section(&mut self, file: FileId) {
        let whole = |s: &Section| s.file == file && s.kind == SectionKind::ExternalData;
        if let Some(at) = self.sections.iter().rposition(whole) {
            self.sections.remove(at);
        }
    }

    /// Sorts the sections by file and offset, as [`Inventory::sections`] promises; readers
    /// may declare them in any order, and one that stops early leaves them as declared.
    pub fn sort_sections(&mut self) {
        self.sections
            .sort_by_key(|s| (s.file, s.range.start, s.range.len));
    }

    /// Ranges of each file in use: headers, model data, blobs, padding a reader declared
    /// and tensor data, clamped to the file's size. The start of a tensor data or external
    /// data section counts as an empty claim, so that the padding before it is not mistaken for trailing bytes when it holds
    /// no tensors. One pass over sections and tensors, however many files there are.
    fn claims(&self) -> Vec<Vec<ByteRange>> {
        let mut claims = vec![Vec::new(); self.files.len()];
        let sections = self.sections.iter().map(|s| match s.kind {
            SectionKind::Header
            | SectionKind::ModelData
            | SectionKind::BlobData
            | SectionKind::Padding => (s.file, s.range),
            _ => (
                s.file,
                ByteRange {
                    start: s.range.start,
                    len: 0,
                },
            ),
        });
        let tensors = self
            .tensors
            .iter()
            .filter_map(|t| t.data)
            .filter(|d| d.len > 0)
            .map(|d| {
                let end = d.end().unwrap_or(u64::MAX);
                (d.file, ByteRange::between(d.offset, end))
            });
        for (file, range) in sections.chain(tensors) {
            let size = self.files.get(file).and_then(|f| f.size);
            if let (Some(list), Some(size)) = (claims.get_mut(file), size) {
                if range.start <= size {
                    list.push(ByteRange::between(range.start, range.end().min(size)));
                }
            }
        }
        claims
    }
}
