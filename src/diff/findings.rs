//! Findings that B has and A had not (new), and the other way round (fixed), matched by rule
//! code and the item they are about, named rather than placed: byte offsets and indices
//! move between two files of one model.

use crate::analysis::Analysis;
use crate::check::{Finding, Item, Severity};
use crate::inventory::Inventory;
use serde::Serialize;
use std::collections::HashMap;

/// New and fixed findings.
#[derive(Debug, Default, Serialize)]
pub struct FindingsDiff {
    /// Findings of B that A has not.
    pub new: Vec<FindingKey>,
    /// Findings of A that B has not.
    pub fixed: Vec<FindingKey>,
}

impl FindingsDiff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.new.is_empty() && self.fixed.is_empty()
    }
}

/// A finding as a diff names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct FindingKey {
    /// The rule code.
    pub code: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// The item it is about, by name, such as `tensor "fc.weight"`; `null` for the file.
    pub item: Option<String>,
    /// Its message, from the file that has it.
    pub message: String,
}

pub(super) fn compare(a: &Analysis, b: &Analysis) -> FindingsDiff {
    let keys = |x: &Analysis| -> Vec<FindingKey> {
        (x.findings.iter()).map(|f| key(f, &x.inventory)).collect()
    };
    let (ka, kb) = (keys(a), keys(b));
    FindingsDiff {
        new: missing(&kb, &ka),
        fixed: missing(&ka, &kb),
    }
}

/// The keys of `from` left over once each key of `other` has cancelled one equal key.
fn missing(from: &[FindingKey], other: &[FindingKey]) -> Vec<FindingKey> {
    let id = |k: &FindingKey| (k.code, k.item.clone());
    let mut counts: HashMap<(&str, Option<String>), usize> = HashMap::new();
    for k in other {
        *counts.entry(id(k)).or_default() += 1;
    }
    (from.iter())
        .filter(|k| match counts.get_mut(&id(k)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

fn key(f: &Finding, inv: &Inventory) -> FindingKey {
    let item = f.item.map(|item| match item {
        Item::Node { graph, node } => {
            let name = (inv.graphs.get(graph))
                .and_then(|g| g.node(node))
                .map(|n| n.name.display().into_owned())
                .unwrap_or_default();
            format!("node \"{name}\"")
        }
        Item::Tensor { .. } | Item::Field { .. } | Item::Graph { .. } | Item::Import { .. } => {
            item.describe(inv)
        }
        Item::GraphRef { graph, list, index } => format!("graph {graph} {list}[{index}]"),
        Item::Section { section } => (inv.sections.get(section))
            .map_or_else(|| "section".to_owned(), |s| s.kind.label().to_owned()),
    });
    FindingKey {
        code: f.rule.code,
        severity: f.severity,
        item,
        message: f.message.clone(),
    }
}
