//! Tables compiled into rtenx whose records are grouped by an owner (an architecture, a
//! model class): lines indexed by owner when the table is first used, an owner's records
//! parsed when a model first names it, so a model pays for its own part of the table.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Parses one line into the owner's records.
pub type Record<T> = fn(&mut T, &'static str) -> Result<(), String>;

/// The lines of each owner, and their records once parsed.
pub struct Sections<T> {
    lines: HashMap<&'static str, (Vec<&'static str>, OnceLock<T>)>,
    record: Record<T>,
}

impl<T: Default> Sections<T> {
    /// No lines yet; `record` parses each.
    pub fn new(record: Record<T>) -> Self {
        Sections {
            lines: HashMap::new(),
            record,
        }
    }

    /// Adds `line` to `owner`'s.
    pub fn push(&mut self, owner: &'static str, line: &'static str) {
        self.lines.entry(owner).or_default().0.push(line);
    }

    /// `owner`'s records, parsed on first use; `None` if the table has no line of it. The
    /// tables are compiled in and a unit test parses every owner, so a line that fails to
    /// parse leaves the owner empty rather than half-read.
    pub fn get(&self, owner: &str) -> Option<&T> {
        let (lines, parsed) = self.lines.get(owner)?;
        Some(parsed.get_or_init(|| self.parse(lines).unwrap_or_default()))
    }

    /// Parses `lines`; the error names the first that is not understood.
    fn parse(&self, lines: &[&'static str]) -> Result<T, String> {
        let mut records = T::default();
        for line in lines {
            (self.record)(&mut records, line).map_err(|e| format!("{line:?}: {e}"))?;
        }
        Ok(records)
    }

    /// Every owner with its records freshly parsed, for tests.
    pub fn parse_all(&self) -> Vec<(&'static str, Result<T, String>)> {
        let owners = self.lines.iter();
        owners
            .map(|(owner, (lines, _))| (*owner, self.parse(lines)))
            .collect()
    }
}
