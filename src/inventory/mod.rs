//! The format-neutral inventory: everything a reader learned about a model file.
//!
//! Every format reader produces one [`Inventory`]. The check rules, the JSON dump, the text
//! summary and the TUI read only this model, so a new format needs no changes to them.
//! Nothing here borrows the mapped file: an inventory outlives the bytes it describes.

pub mod architecture;
pub mod display;
mod dtype;
mod gaps;
mod graph;
pub mod grouped;
pub mod hashing;
mod imports;
mod layout;
mod list;
mod name;
mod nodes;
mod offset;
mod overlaps;
mod repeats;
mod scope;
pub mod signature;
mod sizes;
mod symbol;
mod tensor;

pub use architecture::{Architecture, Verdict};
pub use dtype::{BlockType, DType, Scales};
pub use graph::{
    Attr, AttrValue, Composite, Dim, EnumValue, Graph, GraphId, GraphRef, NodeId, Operator,
    RecordedScope, Shape, SubgraphOf, TensorRef, Value,
};
pub use imports::{Call, Import, Trust};
pub use layout::{ByteRange, FileEntry, FileId, FileRole, Section, SectionKind};
pub use list::{ItemKind, ListValue};
pub use name::Name;
pub use nodes::{NewKind, NewNode, Node, NodeKind, Nodes, OpRef, OperatorParts};
pub use offset::Offset;
pub use overlaps::Overlap;
pub use scope::{Scope, ScopeId, ScopeTree};
pub use sizes::{SizeRow, SizeTable};
pub use symbol::Symbol;
pub use tensor::{DataRange, Storage, Tensor, TensorId, TensorView};

use serde::Serialize;

/// The format of a file, as detection found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// A format rtenx reads, by its short name, such as `rten`.
    Read(&'static str),
    /// A format rtenx recognises but does not read, such as `tflite`.
    NotRead(&'static str),
    /// A file that goes with a model rather than being one, such as a Hugging Face
    /// `config.json`: nothing to check on its own.
    NotModel(&'static str),
    /// Nothing rtenx recognises.
    Unknown,
}

impl FileFormat {
    /// The short name; `unknown` for an unrecognised file.
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::Read(name) | FileFormat::NotRead(name) | FileFormat::NotModel(name) => name,
            FileFormat::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

impl Serialize for FileFormat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// What a reader found in one model file and the files it refers to.
#[derive(Debug, Clone, Serialize)]
pub struct Inventory {
    /// The file's format.
    pub format: FileFormat,
    /// Format variant or version as the file states it, such as `V2`.
    pub format_version: String,
    /// The alignment, in bytes, that the format's writers give tensor data, if it has one;
    /// 1 for a format that never aligns, whose runtimes copy every tensor.
    pub preferred_alignment: Option<u64>,
    /// The model file first, then any files it refers to.
    pub files: Vec<FileEntry>,
    /// Byte ranges of the files, sorted by file and start offset.
    pub sections: Vec<Section>,
    /// Format-specific header fields and facts, in file order.
    pub properties: Vec<Property>,
    /// Graphs; index 0 is the main graph, the rest are subgraphs in discovery order.
    pub graphs: Vec<Graph>,
    /// Constant tensors from every graph. (`dump --json` writes them itself, with no graph
    /// for a model that has none.)
    #[serde(skip)]
    pub tensors: Vec<Tensor>,
    /// Key/value metadata stored in the model.
    pub metadata: Vec<MetadataEntry>,
    /// The oldest runtime release that can load this file, if the format defines one.
    pub runtime: Option<RuntimeRequirement>,
    /// Where the bytes go, for formats whose readers break them down.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<SizeTable>,
    /// What loading the file would import and run, for formats that can (pickles).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<Import>,
    /// Tensors that view a storage other tensors may share (PyTorch), by tensor.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<TensorView>,
    /// The architecture and whether its loader would take the model, where a reader checks it.
    pub architecture: Option<Architecture>,
    /// The tensors whose elements are stored big-endian (those of a big-endian GGUF file, a
    /// `>f4` NumPy array), by id, ascending; every other tensor's are little-endian.
    #[serde(skip)]
    pub big_endian: Vec<TensorId>,
    /// The OpenSSF signature over the model, where one was looked for (set after reading).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<signature::Signature>,
}

/// A named fact from the file, usually a header field.
#[derive(Debug, Clone, Serialize)]
pub struct Property {
    /// Field name, such as `model_offset`.
    pub key: String,
    /// The value as text.
    pub value: String,
    /// Absolute offset of the field in the model file, if it has one.
    pub offset: Option<u64>,
}

/// One metadata key and its value.
#[derive(Debug, Clone, Serialize)]
pub struct MetadataEntry {
    /// Metadata key.
    pub key: Name,
    /// Metadata value; for a list, a summary such as `[151936 × string]` and its first items.
    pub value: Name,
    /// Absolute offset of the entry in the model file, if the format places it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// A list value, left in the file: its items are read only when someone looks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<ListValue>,
}

impl MetadataEntry {
    /// A key and a value with no place in the file.
    pub fn new(key: impl Into<Name>, value: impl Into<Name>) -> Self {
        MetadataEntry {
            key: key.into(),
            value: value.into(),
            offset: None,
            list: None,
        }
    }
}

/// The oldest release of a runtime that can load the file, and why.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeRequirement {
    /// Runtime name, such as `rten`.
    pub runtime: &'static str,
    /// Minimum version, such as `0.14.0`.
    pub min_version: String,
    /// The newest feature the file uses, which sets the minimum.
    pub reason: String,
}

/// Parameter totals over all constant tensors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Number of constant tensors.
    pub tensors: u64,
    /// Sum of element counts (saturating), with the numbers of float-list attributes.
    pub parameters: u64,
    /// The part of `parameters` that float-list attributes hold: the thresholds and leaf
    /// weights of tree ensembles, the coefficients of linear models and the like, which
    /// ONNX-ML operators keep in attributes rather than tensors.
    pub attribute_parameters: u64,
    /// Sum of byte sizes (saturating).
    pub bytes: u64,
    /// Tensors stored outside the graph structure.
    pub external: u64,
    /// Tensors whose data lie in another file than the model file (external data, shards).
    pub in_data_files: u64,
}

/// Gives `list`, if it is full, room for `expected` more entries, or as many as it holds if
/// that is more. A reader that cannot count what it will add, but can guess it once the
/// first one comes, calls this before each: a list that is never added to takes no memory,
/// and one that outgrows the guess still grows geometrically, copied a few times at most.
fn make_room<T>(list: &mut Vec<T>, expected: usize) {
    if list.len() == list.capacity() {
        list.reserve_exact(expected.max(list.len()));
    }
}

impl Inventory {
    /// Makes room for `expected` more tensors if there is none left (see [`make_room`]).
    pub fn room_for_tensors(&mut self, expected: usize) {
        make_room(&mut self.tensors, expected);
    }

    /// An inventory with one file and nothing else, for `format` at `version`.
    pub fn new(format: FileFormat, format_version: impl Into<String>, main: FileEntry) -> Self {
        Inventory {
            format,
            format_version: format_version.into(),
            preferred_alignment: None,
            files: vec![main],
            sections: Vec::new(),
            properties: Vec::new(),
            graphs: Vec::new(),
            tensors: Vec::new(),
            metadata: Vec::new(),
            runtime: None,
            sizes: Vec::new(),
            imports: Vec::new(),
            views: Vec::new(),
            architecture: None,
            big_endian: Vec::new(),
            signature: None,
        }
    }

    /// The inventory of the model `file`, in `format`, with nothing read yet.
    pub fn of_model(format: FileFormat, file: &crate::source::ModelFile) -> Self {
        let entry = FileEntry {
            path: file.path().to_owned(),
            size: Some(file.bytes().len() as u64),
            role: FileRole::Model,
            identity: file.identity(),
        };
        Inventory::new(format, "", entry)
    }

    /// The model file itself.
    pub fn main_file(&self) -> &FileEntry {
        // `new` always creates the main file and nothing removes it.
        &self.files[0]
    }

    /// Records a header field or other fact.
    pub fn property(&mut self, key: &str, value: impl ToString, offset: Option<u64>) {
        self.properties.push(Property {
            key: key.to_owned(),
            value: value.to_string(),
            offset,
        });
    }

    /// Parameter and byte totals over all constants, and the numbers held in float-list
    /// attributes.
    pub fn totals(&self) -> Totals {
        let mut totals = self
            .tensors
            .iter()
            .fold(Totals::default(), |mut t, tensor| {
                t.tensors += 1;
                t.parameters = t.parameters.saturating_add(tensor.parameters());
                t.bytes = t.bytes.saturating_add(tensor.byte_size.unwrap_or(0));
                if tensor.storage == Storage::External {
                    t.external += 1;
                }
                if tensor.data.is_some_and(|d| d.file != 0) {
                    t.in_data_files += 1;
                }
                t
            });
        let floats = (self.graphs.iter().flat_map(|g| &g.nodes))
            .filter_map(|n| match &n.kind {
                NodeKind::Operator(op) => Some(op.attrs().iter()),
                _ => None,
            })
            .flatten()
            .map(|a| match &a.value {
                AttrValue::Floats(values) => values.len() as u64,
                _ => 0,
            })
            .fold(0u64, u64::saturating_add);
        totals.attribute_parameters = floats;
        totals.parameters = totals.parameters.saturating_add(floats);
        totals
    }

    /// Operator counts by type over all graphs, most frequent first, ties by name.
    pub fn operator_histogram(&self) -> Vec<(&str, u64)> {
        let mut counts = std::collections::HashMap::<&str, u64>::new();
        for node in self.graphs.iter().flat_map(|g| &g.nodes) {
            if let NodeKind::Operator(op) = &node.kind {
                *counts.entry(op.op_type().as_ref()).or_default() += 1;
            }
        }
        let mut counts: Vec<_> = counts.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::make_room;

    #[test]
    fn room_is_made_only_when_full_and_at_least_doubles() {
        let mut list: Vec<u32> = Vec::new();
        make_room(&mut list, 10);
        assert_eq!(list.capacity(), 10);
        list.extend(0..5);
        make_room(&mut list, 100);
        assert_eq!(list.capacity(), 10, "not full: left alone");
        list.extend(5..10);
        make_room(&mut list, 3);
        assert_eq!(list.capacity(), 20, "a guess below the length doubles it");
        list.extend(10..20);
        make_room(&mut list, 50);
        assert_eq!(list.capacity(), 70);
    }
}
