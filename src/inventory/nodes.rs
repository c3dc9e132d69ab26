//! A graph's nodes, kept as columns.
//!
//! A model can have millions of nodes, so none is an object of its own: a node is a name, an
//! offset and a slot, and the slot points into the column of its kind. Operators keep their
//! type as an index into the graph's distinct types, and their links and attributes as ranges
//! of one array per graph. Readers push owned [`NewNode`]s; everything else reads [`Node`]
//! views, which borrow the columns.

use super::hashing::HashMap;
use super::{Attr, GraphId, Name, NodeId, Offset, Operator, Symbol, TensorId, Value};
use serde::{Serialize, Serializer};

/// A node as a reader builds it, before [`Nodes::push`] stores it as columns.
#[derive(Debug, Clone)]
pub struct NewNode {
    /// Node name (may be empty).
    pub name: Name,
    /// What the node is.
    pub kind: NewKind,
    /// Absolute offset of the node's declaration in the model file.
    pub offset: Offset,
}

/// What a [`NewNode`] is.
#[derive(Debug, Clone)]
pub enum NewKind {
    /// An operation.
    Operator(Operator),
    /// A runtime value.
    Value(Value),
    /// A constant, described by a tensor.
    Constant {
        /// Index into [`super::Inventory::tensors`].
        tensor: TensorId,
    },
    /// A node type this reader does not know.
    Unknown {
        /// The raw type tag.
        tag: u32,
    },
}

/// One node of a graph, borrowed from its columns.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    /// Node name (may be empty).
    pub name: &'a Name,
    /// What the node is.
    pub kind: NodeKind<'a>,
    /// Absolute offset of the node's declaration in the model file.
    pub offset: Offset,
}

/// The kinds of graph node.
#[derive(Debug, Clone, Copy)]
pub enum NodeKind<'a> {
    /// An operation.
    Operator(OpRef<'a>),
    /// A runtime value: graph input, output or intermediate.
    Value(&'a Value),
    /// A constant; its data is described by the tensor.
    Constant {
        /// Index into [`super::Inventory::tensors`].
        tensor: TensorId,
    },
    /// A node type this reader does not know.
    Unknown {
        /// The raw type tag.
        tag: u32,
    },
}

/// An operation and its connections, borrowed from the graph's columns. Each part is looked
/// up when asked for: most lookups of a node only want to know what kind it is.
#[derive(Clone, Copy)]
pub struct OpRef<'a> {
    nodes: &'a Nodes,
    record: &'a OpRecord,
}

/// `len` items of a column from `start`.
fn range(start: u32, len: u32) -> std::ops::Range<usize> {
    let start = usize::try_from(start).unwrap_or(usize::MAX);
    start..start.saturating_add(usize::try_from(len).unwrap_or(0))
}

impl<'a> OpRef<'a> {
    /// Operator type, such as `Conv`; unknown types read as `#<number>`.
    pub fn op_type(&self) -> &'a Symbol {
        let at = range(self.record.op_type, 1).start;
        self.nodes.op_types.get(at).unwrap_or(&EMPTY)
    }

    /// Decoded attributes.
    pub fn attrs(&self) -> &'a [Attr] {
        let at = range(self.record.attrs, self.record.attr_count);
        self.nodes.attrs.get(at).unwrap_or(&[])
    }

    fn links(&self) -> (&'a [Option<NodeId>], usize) {
        let op = self.record;
        let links = range(op.links, op.inputs.saturating_add(op.outputs));
        let links = self.nodes.links.get(links).unwrap_or(&[]);
        let inputs = usize::try_from(op.inputs).map_or(0, |n| n.min(links.len()));
        (links, inputs)
    }

    /// Input nodes in order; `None` for an omitted optional input.
    pub fn inputs(&self) -> &'a [Option<NodeId>] {
        let (links, inputs) = self.links();
        links.split_at(inputs).0
    }

    /// Output nodes in order; `None` for an unused output.
    pub fn outputs(&self) -> &'a [Option<NodeId>] {
        let (links, inputs) = self.links();
        links.split_at(inputs).1
    }

    fn rare(&self) -> Option<&'a Rare> {
        self.nodes.rare.get(range(self.record.rare, 1).start)
    }

    /// Operator domain or namespace, if the format has one.
    pub fn domain(&self) -> Option<&'a str> {
        self.rare()?.domain.as_deref()
    }

    /// Subgraphs owned by this operator.
    pub fn subgraphs(&self) -> &'a [GraphId] {
        self.rare().map_or(&[], |r| &r.subgraphs)
    }
}

impl std::fmt::Debug for OpRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operator")
            .field("op_type", self.op_type())
            .field("domain", &self.domain())
            .field("attrs", &self.attrs())
            .field("inputs", &self.inputs())
            .field("outputs", &self.outputs())
            .field("subgraphs", &self.subgraphs())
            .finish()
    }
}

/// A node as one JSON object: its name, its kind and the kind's fields, its offset.
impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", self.name)?;
        match self.kind {
            NodeKind::Operator(op) => {
                m.serialize_entry("kind", "operator")?;
                m.serialize_entry("op_type", op.op_type())?;
                if let Some(domain) = op.domain() {
                    m.serialize_entry("domain", domain)?;
                }
                m.serialize_entry("attrs", op.attrs())?;
                m.serialize_entry("inputs", op.inputs())?;
                m.serialize_entry("outputs", op.outputs())?;
                m.serialize_entry("subgraphs", op.subgraphs())?;
            }
            NodeKind::Value(v) => {
                m.serialize_entry("kind", "value")?;
                m.serialize_entry("dtype", &v.dtype)?;
                m.serialize_entry("shape", &v.shape)?;
                if let Some(composite) = &v.composite {
                    m.serialize_entry("composite", composite)?;
                }
            }
            NodeKind::Constant { tensor } => {
                m.serialize_entry("kind", "constant")?;
                m.serialize_entry("tensor", &tensor)?;
            }
            NodeKind::Unknown { tag } => {
                m.serialize_entry("kind", "unknown")?;
                m.serialize_entry("tag", &tag)?;
            }
        }
        m.serialize_entry("offset", &self.offset)?;
        m.end()
    }
}

/// The fields of an operator that most operators leave empty.
#[derive(Debug, Clone, Default)]
pub(super) struct Rare {
    pub(super) domain: Option<Symbol>,
    pub(super) subgraphs: Box<[GraphId]>,
}

impl Rare {
    /// The rare fields, unless both are empty.
    pub(super) fn of(domain: Option<Symbol>, subgraphs: Box<[GraphId]>) -> Option<Rare> {
        (domain.is_some() || !subgraphs.is_empty()).then_some(Rare { domain, subgraphs })
    }
}

/// An operator as [`Nodes::set_operator`] takes it: its lists borrowed from buffers a reader
/// reuses from node to node, so that storing it allocates nothing of its own.
pub struct OperatorParts<'p> {
    /// Operator type; unknown types read as `#<number>`.
    pub op_type: Symbol,
    /// Decoded attributes, taken out of the buffer.
    pub attrs: &'p mut Vec<Attr>,
    /// Input nodes in order; `None` for an omitted optional input. A graph's first operator
    /// with more inputs than its links have room for takes the buffer itself, uncopied.
    pub inputs: &'p mut Vec<Option<NodeId>>,
    /// Output nodes in order; `None` for an unused output.
    pub outputs: &'p [Option<NodeId>],
    /// Operator domain or namespace, if the format has one.
    pub domain: Option<Symbol>,
    /// Subgraphs owned by the operator.
    pub subgraphs: Box<[GraphId]>,
}

/// Where a node's kind is kept, in four bytes: the kind in the top two bits, and below them
/// the index into the column of that kind (the tensor, for a constant). Readers pay every
/// node and tensor from the budget, far below the 2^30 indices this leaves.
#[derive(Debug, Clone, Copy)]
struct Slot(u32);

impl Slot {
    const OPERATOR: u32 = 0;
    const VALUE: u32 = 1;
    const CONSTANT: u32 = 2;
    const UNKNOWN: u32 = 3;
    const INDEX: u32 = (1 << 30) - 1;

    fn new(kind: u32, index: usize) -> Self {
        Slot(kind << 30 | u32::try_from(index).unwrap_or(Self::INDEX).min(Self::INDEX))
    }

    fn kind(self) -> u32 {
        self.0 >> 30
    }

    fn index(self) -> usize {
        usize::try_from(self.0 & Self::INDEX).unwrap_or(usize::MAX)
    }
}

/// An operator as stored: ranges of the graph's link and attribute arrays.
#[derive(Debug, Clone, Copy)]
struct OpRecord {
    op_type: u32,
    attrs: u32,
    attr_count: u32,
    links: u32,
    inputs: u32,
    outputs: u32,
    rare: u32,
}

/// An operator's inputs as a reader hands them over: a list of its own, or a buffer it
/// reuses. Either can become the links column of an empty graph.
enum Inputs<'a> {
    Owned(Vec<Option<NodeId>>),
    Buffer(&'a mut Vec<Option<NodeId>>),
}

/// [`OpRecord::rare`] of an operator with no rare fields.
const NO_RARE: u32 = u32::MAX;

/// The nodes of a graph, in order, as columns.
///
/// Indices into the columns are `u32`: readers pay every node, link and attribute from the
/// budget, which keeps each column far below `u32::MAX` entries.
#[derive(Debug, Clone, Default)]
pub struct Nodes {
    names: Vec<Name>,
    offsets: Vec<Offset>,
    slots: Vec<Slot>,
    ops: Vec<OpRecord>,
    values: Vec<Value>,
    links: Vec<Option<NodeId>>,
    attrs: Vec<Attr>,
    rare: Vec<Rare>,
    unknown: Vec<u32>,
    op_types: Vec<Symbol>,
    /// Each type's index, by the address and length of its text.
    op_type_ids: HashMap<(usize, usize), u32>,
}

/// `n` as a column index; see [`Nodes`] for why it fits.
fn index(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Nodes {
    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True for a graph without nodes.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Makes room for the `operators`, `values` and `others` (constants, unknown nodes) a
    /// reader is about to push, and for two links an operator: most graphs have about one
    /// value per operator, written once and read once. A column that grows instead copies
    /// itself as it doubles, and on a million-node graph the copies left behind cost as much
    /// memory as the columns; room made and not used costs memory too, once the allocator
    /// backs it with huge pages, so a reader that cannot count asks for what it expects.
    pub fn reserve(&mut self, operators: usize, values: usize, others: usize) {
        let nodes = operators.saturating_add(values).saturating_add(others);
        self.names.reserve_exact(nodes);
        self.offsets.reserve_exact(nodes);
        self.slots.reserve_exact(nodes);
        self.ops.reserve_exact(operators);
        self.values.reserve_exact(values);
        self.links.reserve_exact(operators.saturating_mul(2));
    }

    /// Makes room for `links` operator inputs and outputs, for a reader whose operators have
    /// more than the two each that [`Nodes::reserve`] makes room for; called first, so that
    /// the links are allocated once.
    pub fn reserve_links(&mut self, links: usize) {
        self.links.reserve_exact(links);
    }

    /// Makes room for `expected` more attributes if there is none left (see
    /// [`super::make_room`]): a reader calls this at each operator that has attributes, with
    /// the number of operators still to come.
    pub fn room_for_attrs(&mut self, expected: usize) {
        super::make_room(&mut self.attrs, expected);
    }

    /// The node at `id`, if it exists.
    pub fn get(&self, id: NodeId) -> Option<Node<'_>> {
        let i = usize::try_from(id).ok()?;
        Some(Node {
            name: self.names.get(i)?,
            kind: self.kind(*self.slots.get(i)?),
            offset: self.offsets.get(i).copied().unwrap_or_default(),
        })
    }

    /// The nodes in order.
    pub fn iter(&self) -> Iter<'_> {
        let columns = self.names.iter().zip(&self.offsets).zip(&self.slots);
        Iter {
            nodes: self,
            columns,
        }
    }

    fn kind(&self, slot: Slot) -> NodeKind<'_> {
        let found = match slot.kind() {
            Slot::OPERATOR => self.ops.get(slot.index()).map(|op| {
                NodeKind::Operator(OpRef {
                    nodes: self,
                    record: op,
                })
            }),
            Slot::VALUE => self.values.get(slot.index()).map(NodeKind::Value),
            Slot::CONSTANT => Some(NodeKind::Constant {
                tensor: slot.index(),
            }),
            _ => self
                .unknown
                .get(slot.index())
                .map(|&tag| NodeKind::Unknown { tag }),
        };
        found.unwrap_or(NodeKind::Unknown { tag: 0 })
    }

    /// Appends `node`; its id is the count of nodes before it.
    pub fn push(&mut self, node: NewNode) {
        let slot = self.store(node.kind);
        self.names.push(node.name);
        self.offsets.push(node.offset);
        self.slots.push(slot);
    }

    /// Replaces the kind of the node at `id`, such as a placeholder a reader pushed to give an
    /// operator its id before reading its outputs. A node that does not exist is left alone.
    /// An unknown node's tag, the last of its column, goes with it: a placeholder for every
    /// operator leaves nothing behind.
    pub fn set_kind(&mut self, id: NodeId, kind: NewKind) {
        self.replace(id, |nodes| nodes.store(kind));
    }

    /// Makes the node at `id`, such as a placeholder, the operator `parts` describes, as
    /// [`Nodes::set_kind`] does; the attributes are taken out of their buffer.
    pub fn set_operator(&mut self, id: NodeId, parts: OperatorParts<'_>) {
        self.replace(id, |nodes| {
            let rare = Rare::of(parts.domain, parts.subgraphs);
            let attrs = parts.attrs.drain(..);
            let inputs = Inputs::Buffer(parts.inputs);
            nodes.store_operator(parts.op_type, attrs, inputs, parts.outputs, rare)
        });
    }

    /// Gives the node at `id` the slot `store` makes, dropping a replaced unknown node's
    /// tag if it is the last of its column; a node that does not exist is left alone.
    fn replace(&mut self, id: NodeId, store: impl FnOnce(&mut Self) -> Slot) {
        let Some(old) = usize::try_from(id)
            .ok()
            .and_then(|i| self.slots.get(i))
            .copied()
        else {
            return;
        };
        let last_tag = self.unknown.len().checked_sub(1);
        if old.kind() == Slot::UNKNOWN && Some(old.index()) == last_tag {
            self.unknown.pop();
        }
        let slot = store(self);
        if let Some(s) = usize::try_from(id).ok().and_then(|i| self.slots.get_mut(i)) {
            *s = slot;
        }
    }

    /// Stores an operator's record, appending its attributes and links to the columns.
    fn store_operator(
        &mut self,
        op_type: Symbol,
        attrs: impl ExactSizeIterator<Item = Attr>,
        inputs: Inputs<'_>,
        outputs: &[Option<NodeId>],
        rare: Option<Rare>,
    ) -> Slot {
        let op_type = self.op_type(op_type);
        let (links, attr_count) = (index(self.links.len()), index(attrs.len()));
        let attrs_at = index(self.attrs.len());
        self.attrs.extend(attrs);
        // A first operator with more inputs than the room made: its list becomes the array,
        // uncopied.
        let adopt =
            |nodes: &Self, inputs: usize| nodes.links.is_empty() && nodes.links.capacity() < inputs;
        let inputs = match inputs {
            Inputs::Owned(list) if adopt(self, list.len()) => {
                self.links = list;
                self.links.len()
            }
            Inputs::Buffer(buffer) if adopt(self, buffer.len()) => {
                self.links = std::mem::take(buffer);
                self.links.len()
            }
            Inputs::Owned(list) => self.extend_links(&list),
            Inputs::Buffer(buffer) => self.extend_links(buffer),
        };
        self.links.extend_from_slice(outputs);
        let rare = match rare {
            Some(rare) => {
                self.rare.push(rare);
                index(self.rare.len() - 1)
            }
            None => NO_RARE,
        };
        self.ops.push(OpRecord {
            op_type,
            attrs: attrs_at,
            attr_count,
            links,
            inputs: index(inputs),
            outputs: index(outputs.len()),
            rare,
        });
        Slot::new(Slot::OPERATOR, self.ops.len() - 1)
    }

    /// Appends `list` to the links; its length.
    fn extend_links(&mut self, list: &[Option<NodeId>]) -> usize {
        self.links.extend_from_slice(list);
        list.len()
    }

    fn store(&mut self, kind: NewKind) -> Slot {
        match kind {
            NewKind::Operator(op) => {
                let Operator {
                    op_type,
                    attrs,
                    inputs,
                    outputs,
                    rare,
                } = op;
                let attrs = attrs.into_vec().into_iter();
                self.store_operator(op_type, attrs, Inputs::Owned(inputs), &outputs, rare)
            }
            NewKind::Value(value) => {
                self.values.push(value);
                Slot::new(Slot::VALUE, self.values.len() - 1)
            }
            NewKind::Constant { tensor } => Slot::new(Slot::CONSTANT, tensor),
            NewKind::Unknown { tag } => {
                self.unknown.push(tag);
                Slot::new(Slot::UNKNOWN, self.unknown.len() - 1)
            }
        }
    }

    /// The index of `op_type` among the graph's operator types. Types are told apart by
    /// where their text is, not by the text: readers share one copy of each type they read,
    /// and a type a megabyte long, named by a million operators, is then never hashed.
    fn op_type(&mut self, op_type: Symbol) -> u32 {
        let key = (op_type.as_ptr() as usize, op_type.len());
        if let Some(&id) = self.op_type_ids.get(&key) {
            return id;
        }
        let id = index(self.op_types.len());
        self.op_types.push(op_type);
        self.op_type_ids.insert(key, id);
        id
    }
}

/// The type an operator record whose index is out of range reads as; never stored.
static EMPTY: Symbol = Symbol::Static("");

impl FromIterator<NewNode> for Nodes {
    fn from_iter<I: IntoIterator<Item = NewNode>>(nodes: I) -> Self {
        let mut all = Nodes::default();
        nodes.into_iter().for_each(|node| all.push(node));
        all
    }
}

/// The nodes of a graph in order: see [`Nodes::iter`]. It walks the columns side by side.
#[derive(Clone)]
pub struct Iter<'a> {
    nodes: &'a Nodes,
    columns: Columns<'a>,
}

type Columns<'a> = std::iter::Zip<
    std::iter::Zip<std::slice::Iter<'a, Name>, std::slice::Iter<'a, Offset>>,
    std::slice::Iter<'a, Slot>,
>;

impl<'a> Iter<'a> {
    fn node(&self, ((name, &offset), &slot): ((&'a Name, &Offset), &Slot)) -> Node<'a> {
        Node {
            name,
            kind: self.nodes.kind(slot),
            offset,
        }
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = Node<'a>;

    fn next(&mut self) -> Option<Node<'a>> {
        self.columns.next().map(|c| self.node(c))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.columns.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.columns.next_back().map(|c| self.node(c))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Nodes {
    type Item = Node<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl Serialize for Nodes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node pays for a name, an offset and a slot; every operator for a record.
    #[test]
    fn columns_stay_small() {
        assert_eq!(std::mem::size_of::<Slot>(), 4);
        assert_eq!(std::mem::size_of::<OpRecord>(), 28);
    }

    fn push(nodes: &mut Nodes, op: Operator) {
        let (name, offset) = (Name::from("n"), Offset::NONE);
        let kind = NewKind::Operator(op);
        nodes.push(NewNode { name, kind, offset });
    }

    #[test]
    fn operators_read_back_and_serialize_as_before() {
        let mut nodes = Nodes::default();
        let shared = Symbol::from("If".to_owned());
        push(
            &mut nodes,
            Operator::new(shared.clone(), Box::new([]), vec![Some(0)], vec![]),
        );
        let op = Operator::new(shared, Box::new([]), vec![None], vec![Some(1)])
            .with_domain(Some("ai.onnx.ml".into()))
            .with_subgraphs(Box::new([2, 3]));
        push(&mut nodes, op);
        let json = serde_json::to_string(&nodes).unwrap();
        assert_eq!(
            json,
            concat!(
                r#"[{"name":"n","kind":"operator","op_type":"If","attrs":[],"inputs":[0],"#,
                r#""outputs":[],"subgraphs":[],"offset":null},"#,
                r#"{"name":"n","kind":"operator","op_type":"If","domain":"ai.onnx.ml","#,
                r#""attrs":[],"inputs":[null],"outputs":[1],"subgraphs":[2,3],"offset":null}]"#
            )
        );
        let Some(NodeKind::Operator(op)) = nodes.get(1).map(|n| n.kind) else {
            panic!("not an operator")
        };
        assert_eq!((op.inputs(), op.outputs()), (&[None][..], &[Some(1)][..]));
        assert_eq!(nodes.op_types.len(), 1, "one copy of a shared type");
        assert!(nodes.get(2).is_none());
    }

    #[test]
    fn a_placeholder_takes_its_kind_later() {
        let mut nodes = Nodes::default();
        let (name, offset) = (Name::from("op"), Offset::from(7));
        nodes.push(NewNode {
            name,
            kind: NewKind::Unknown { tag: 0 },
            offset,
        });
        nodes.set_kind(
            0,
            NewKind::Operator(Operator::new("Add".into(), Box::new([]), vec![], vec![])),
        );
        nodes.set_kind(5, NewKind::Unknown { tag: 1 });
        let node = nodes.get(0).unwrap();
        assert!(matches!(node.kind, NodeKind::Operator(op) if *op.op_type() == *"Add"));
        assert_eq!((node.offset.get(), nodes.len()), (Some(7), 1));
        assert!(
            nodes.unknown.is_empty(),
            "the placeholder's tag went with it"
        );
        // Every kind reads back whole, whatever a file puts in a tag.
        for kind in [
            NewKind::Unknown { tag: u32::MAX },
            NewKind::Constant { tensor: 5 },
        ] {
            let name = Name::from("k");
            nodes.push(NewNode { name, kind, offset });
        }
        let kinds: Vec<_> = nodes.iter().skip(1).map(|n| n.kind).collect();
        assert!(matches!(
            kinds[..],
            [
                NodeKind::Unknown { tag: u32::MAX },
                NodeKind::Constant { tensor: 5 }
            ]
        ));
    }

    /// An operator stored from a reader's buffers reads back as one pushed whole; a graph's
    /// first operator takes its input buffer as the links column, and later ones copy theirs.
    #[test]
    fn operators_stored_from_buffers_read_back_whole() {
        let mut nodes = Nodes::default();
        let mut inputs: Vec<Option<NodeId>> = vec![Some(4), None, Some(5)];
        let (mut attrs, outputs) = (Vec::new(), [Some(1)]);
        for id in [0, 1] {
            let (name, offset) = (Name::from("op"), Offset::NONE);
            let kind = NewKind::Unknown { tag: 0 };
            nodes.push(NewNode { name, kind, offset });
            attrs.push(Attr {
                name: "axis".into(),
                value: crate::inventory::AttrValue::Int(id.into()),
            });
            let parts = OperatorParts {
                op_type: "Concat".into(),
                attrs: &mut attrs,
                inputs: &mut inputs,
                outputs: &outputs,
                domain: None,
                subgraphs: Box::new([]),
            };
            nodes.set_operator(id, parts);
            if id == 0 {
                assert_eq!(inputs.capacity(), 0, "the first buffer became the links");
                assert!(attrs.is_empty(), "the attributes were taken out");
                inputs.extend([Some(6), Some(7)]);
            }
        }
        let ops: Vec<_> = (nodes.iter())
            .filter_map(|n| match n.kind {
                NodeKind::Operator(op) => Some((op.inputs(), op.outputs(), op.attrs().len())),
                _ => None,
            })
            .collect();
        let first: &[Option<NodeId>] = &[Some(4), None, Some(5)];
        let second: &[Option<NodeId>] = &[Some(6), Some(7)];
        assert_eq!(ops, [(first, &outputs[..], 1), (second, &outputs[..], 1)]);
        assert_eq!(
            inputs, second,
            "a later buffer is copied and stays the reader's"
        );
        assert!(
            nodes.unknown.is_empty(),
            "each placeholder's tag went with it"
        );
    }
}
