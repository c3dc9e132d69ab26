//! Findings: one problem at one place in one file.

use super::{Rule, Severity};
use crate::inventory::{FileId, GraphId, Inventory, NodeId, TensorId};
use serde::Serialize;

/// One problem found in a file.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The rule that found it.
    #[serde(serialize_with = "serialize_code", rename = "code")]
    pub rule: &'static Rule,
    /// Severity after `--deny/--warn` overrides.
    pub severity: Severity,
    /// The file the offset refers to.
    pub file: FileId,
    /// Absolute byte offset of the problem, if it has a place.
    pub offset: Option<u64>,
    /// The node, tensor or field at fault.
    pub item: Option<Item>,
    /// What is wrong, naming field, value and limit.
    pub message: String,
}

fn serialize_code<S: serde::Serializer>(rule: &&'static Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rule.code)
}

/// The part of the model a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    /// A header or structure field.
    Field {
        /// Field name.
        name: &'static str,
    },
    /// A graph as a whole.
    Graph {
        /// Graph index.
        graph: GraphId,
    },
    /// A node.
    Node {
        /// Graph index.
        graph: GraphId,
        /// Node index in the graph.
        node: NodeId,
    },
    /// An entry of a graph's inputs, outputs or captures.
    GraphRef {
        /// Graph index.
        graph: GraphId,
        /// `inputs`, `outputs` or `captures`.
        list: &'static str,
        /// Position in the list.
        index: usize,
    },
    /// A constant tensor.
    Tensor {
        /// Tensor index.
        tensor: TensorId,
    },
    /// A section.
    Section {
        /// Section index.
        section: usize,
    },
    /// Something loading the file imports or runs: a global a pickle names, or code a loader
    /// compiles.
    Import {
        /// Index into the inventory's imports.
        import: usize,
    },
}

impl Item {
    /// A short human description, using names from the inventory where it has them.
    pub fn describe(&self, inv: &Inventory) -> String {
        let graph_label = |g: GraphId| {
            if g == 0 {
                String::new()
            } else {
                format!(" in subgraph {g}")
            }
        };
        match *self {
            Item::Field { name } => format!("field {name}"),
            Item::Graph { graph: 0 } => "main graph".to_owned(),
            Item::Graph { graph } => format!("subgraph {graph}"),
            Item::Node { graph, node } => {
                let name = inv
                    .graphs
                    .get(graph)
                    .and_then(|g| g.node(node))
                    .map(|n| n.name.display().into_owned())
                    .unwrap_or_default();
                format!("node {node} \"{name}\"{}", graph_label(graph))
            }
            Item::GraphRef { graph, list, index } => {
                format!("graph {list}[{index}]{}", graph_label(graph))
            }
            Item::Tensor { tensor } => {
                let name = inv
                    .tensors
                    .get(tensor)
                    .map(|t| t.name.display().into_owned())
                    .unwrap_or_default();
                format!("tensor \"{name}\"")
            }
            Item::Section { section } => match inv.sections.get(section) {
                Some(s) => format!("{} section", s.kind.label()),
                None => format!("section {section}"),
            },
            Item::Import { import } => match inv.imports.get(import) {
                Some(i) => format!("import {}", i.name.display()),
                None => format!("import {import}"),
            },
        }
    }
}

impl Item {
    /// What identifies the item across edits that leave it alone: names where it has them,
    /// never a byte offset, and no index that an unrelated insertion would move (a node or
    /// tensor by name, a section by kind, an import by what it imports).
    pub fn identity(&self, inv: &Inventory) -> String {
        match *self {
            Item::Field { name } => format!("field {name}"),
            Item::Graph { graph } => format!("graph {graph}"),
            Item::Node { graph, node } => {
                let name = inv.graphs.get(graph).and_then(|g| g.node(node));
                match name.map(|n| n.name.display()) {
                    Some(name) if !name.is_empty() => format!("node {graph} {name}"),
                    _ => format!("node {graph} #{node}"),
                }
            }
            Item::GraphRef { graph, list, index } => format!("graph {graph} {list}[{index}]"),
            Item::Tensor { tensor } => match inv.tensors.get(tensor) {
                Some(t) if !t.name.display().is_empty() => format!("tensor {}", t.name.display()),
                _ => format!("tensor #{tensor}"),
            },
            Item::Section { section } => match inv.sections.get(section) {
                Some(s) => format!("section {}", s.kind.label()),
                None => format!("section #{section}"),
            },
            Item::Import { import } => match inv.imports.get(import) {
                Some(i) => format!("import {}", i.name.display()),
                None => format!("import #{import}"),
            },
        }
    }
}

/// Where a finding points: the file, the absolute byte offset and the item at fault, known
/// where the finding is made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Place {
    /// The file the offset refers to.
    pub file: FileId,
    /// Absolute byte offset of the problem, if it has a place.
    pub offset: Option<u64>,
    /// The node, tensor or field at fault.
    pub item: Option<Item>,
}

impl Place {
    /// The model file as a whole.
    pub const FILE: Place = Place {
        file: 0,
        offset: None,
        item: None,
    };

    /// Byte `offset` of the model file.
    pub fn at(offset: impl Into<Option<u64>>) -> Self {
        Place::FILE.offset(offset)
    }

    /// `item` of the model.
    pub fn on(item: Item) -> Self {
        Place::FILE.item(item)
    }

    /// Header or structure field `name` at byte `offset` of the model file.
    pub fn field(name: &'static str, offset: impl Into<Option<u64>>) -> Self {
        Place::at(offset).item(Item::Field { name })
    }

    /// The same place at byte `offset`.
    pub fn offset(self, offset: impl Into<Option<u64>>) -> Self {
        Place {
            offset: offset.into(),
            ..self
        }
    }

    /// The same place, about `item`.
    pub fn item(self, item: Item) -> Self {
        Place {
            item: Some(item),
            ..self
        }
    }

    /// The same place, with the offset in file `file` (a data file) rather than the model.
    pub fn in_file(self, file: FileId) -> Self {
        Place { file, ..self }
    }
}

/// The longest message a finding keeps, in characters.
const MAX_MESSAGE: usize = 1000;

impl Finding {
    /// A finding for `rule` at `place`, with the rule's default severity. Messages quote
    /// values from the file, so they are cut to 1000 characters.
    pub fn new(rule: &'static Rule, place: Place, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = match crate::escape::clip(message.as_str().into(), MAX_MESSAGE) {
            std::borrow::Cow::Borrowed(_) => message,
            std::borrow::Cow::Owned(clipped) => clipped,
        };
        Finding {
            rule,
            severity: rule.severity,
            file: place.file,
            offset: place.offset,
            item: place.item,
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Finding, Item, Place};
    use crate::check::generic::UNKNOWN_FORMAT;
    use crate::inventory::{FileEntry, FileFormat, Import, Inventory, Trust};

    #[test]
    fn an_import_is_described_and_identified_by_its_name() {
        let mut inv = Inventory::new(FileFormat::Read("pickle"), "", FileEntry::model("m", 0));
        for name in ["argparse.Namespace", "os.system", "evil\u{1b}[2J"] {
            inv.imports.push(Import {
                name: name.into(),
                kind: "GLOBAL",
                file: 0,
                offset: 2,
                call: None,
                trust: Trust::Unsafe,
            });
        }
        let import = |import| Item::Import { import };
        assert_eq!(import(1).describe(&inv), "import os.system");
        assert_eq!(import(1).identity(&inv), "import os.system");
        assert_ne!(import(0).identity(&inv), import(1).identity(&inv));
        // Names are escaped as every other name is.
        assert_eq!(import(2).describe(&inv), "import evil\\u{1b}[2J");
        // An index past the list is still an item.
        assert_eq!(import(9).describe(&inv), "import 9");
    }

    #[test]
    fn a_megabyte_of_hostile_text_makes_a_short_message() {
        let huge = format!("location \"{}\"", "a".repeat(1 << 20));
        let f = Finding::new(&UNKNOWN_FORMAT, Place::FILE, huge);
        assert!(f.message.len() < 1100, "{} bytes", f.message.len());
        assert!(f.message.ends_with("more bytes)"), "{}", &f.message[990..]);
        let short = Finding::new(&UNKNOWN_FORMAT, Place::FILE, "short");
        assert_eq!(short.message, "short");
    }
}
