//! Folding repeated findings for reports people read: of each rule in each file (a model
//! or one of its data files), the first few are shown and the rest counted. One corrupt data
//! file can otherwise produce hundreds of identical lines, and GitHub shows only the first
//! few annotations of a step. JSON and SARIF keep every finding.

use crate::check::{Finding, Rule, Severity};
use crate::inventory::FileId;
use std::collections::HashMap;
use std::path::Path;

/// Findings of one rule in one file shown before the rest are counted.
pub const SHOWN: usize = 3;

/// Findings held back: their rule, severity, file and how many.
pub struct Folded<'a> {
    /// The rule.
    pub rule: &'static Rule,
    /// The severity of the first held back.
    pub severity: Severity,
    /// The path of the file they are in.
    pub path: &'a Path,
    /// How many were held back.
    pub count: usize,
}

/// Decides, finding by finding, which to show; then lists what it held back.
#[derive(Default)]
pub struct Folder<'a> {
    /// For each rule and file: how many were seen, and where its count is in `held`.
    seen: HashMap<(&'static str, FileId), (usize, Option<usize>)>,
    held: Vec<Folded<'a>>,
}

impl<'a> Folder<'a> {
    /// Whether to show `f`, in the file at `path`: true for the first [`SHOWN`] of its rule
    /// in its file.
    pub fn show(&mut self, f: &Finding, path: &'a Path) -> bool {
        let (seen, slot) = self.seen.entry((f.rule.code, f.file)).or_default();
        *seen += 1;
        if *seen <= SHOWN {
            return true;
        }
        match *slot {
            Some(i) => self.held[i].count += 1,
            None => {
                *slot = Some(self.held.len());
                self.held.push(Folded {
                    rule: f.rule,
                    severity: f.severity,
                    path,
                    count: 1,
                });
            }
        }
        false
    }

    /// What was held back, in the order the rules first appeared.
    pub fn held(self) -> Vec<Folded<'a>> {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::generic::TRAILING_BYTES;
    use crate::check::Place;

    #[test]
    fn the_first_three_of_a_rule_in_a_file_show_and_the_rest_are_counted() {
        let mut folder = Folder::default();
        let finding = |file| Finding::new(&TRAILING_BYTES, Place::FILE.in_file(file), "x");
        let paths = [Path::new("m"), Path::new("m.data")];
        let shown: Vec<bool> = [0, 0, 1, 0, 0, 1, 0]
            .into_iter()
            .map(|file| folder.show(&finding(file), paths[file]))
            .collect();
        assert_eq!(shown, [true, true, true, true, false, true, false]);
        let held = folder.held();
        assert_eq!(held.len(), 1);
        assert_eq!((held[0].path, held[0].count), (paths[0], 2));
    }
}
