//! Graphs, nodes and attributes.

use super::nodes::{Node, Nodes, Rare};
use super::{DType, Name, Symbol, TensorId};
use serde::Serialize;

/// Index into [`super::Inventory::graphs`].
pub type GraphId = usize;
/// Index into [`Graph::nodes`]. Indices read from a file may be out of range: use
/// [`Graph::node`] to look them up.
pub type NodeId = u32;

/// A graph: nodes in execution order plus its inputs and outputs.
///
/// Values are nodes too, so every format maps onto one list: an operator's inputs and
/// outputs name value or constant nodes of the same graph.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Graph {
    /// Graph name, if the format has one.
    pub name: Name,
    /// The operator node that owns this subgraph, and the attribute holding it.
    pub parent: Option<SubgraphOf>,
    /// Nodes in order.
    pub nodes: Nodes,
    /// Graph inputs.
    pub inputs: Vec<NodeId>,
    /// Graph outputs.
    pub outputs: Vec<NodeId>,
    /// Values captured by name from enclosing graphs.
    pub captures: Vec<NodeId>,
    /// Absolute offset of the graph's declaration in the model file.
    pub offset: Option<u64>,
    /// Scopes the file records for nodes, in node order (see [`RecordedScope`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<RecordedScope>,
}

/// The scope a file records for a node, such as the module path `layers.0.attn` that the
/// PyTorch exporter writes in an ONNX node's metadata: parts separated by `.` or `/`, a
/// number joining the part before it (see [`super::ScopeTree`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedScope {
    /// The node.
    pub node: NodeId,
    /// Its scope's path.
    pub path: Name,
}

/// Where a subgraph hangs in its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SubgraphOf {
    /// The parent graph.
    pub graph: GraphId,
    /// The operator node in the parent graph.
    pub node: NodeId,
}

impl Graph {
    /// The node at `id`, if it exists.
    pub fn node(&self, id: NodeId) -> Option<Node<'_>> {
        self.nodes.get(id)
    }

    /// The id the next node pushed will have. Readers pay every node from the budget, which
    /// keeps the count far below `NodeId::MAX`.
    pub fn next_id(&self) -> NodeId {
        NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX)
    }

    /// The nodes with their ids.
    pub fn nodes_with_ids(&self) -> impl Iterator<Item = (NodeId, Node<'_>)> {
        (0..).zip(&self.nodes)
    }
}

/// An operation and its connections, as a reader builds it (see [`super::NewKind`]).
#[derive(Debug, Clone)]
pub struct Operator {
    pub(super) op_type: Symbol,
    pub(super) attrs: Box<[Attr]>,
    pub(super) inputs: Vec<Option<NodeId>>,
    pub(super) outputs: Vec<Option<NodeId>>,
    pub(super) rare: Option<Rare>,
}

impl Operator {
    /// An operator of type `op_type` (unknown types read as `#<number>`) with its decoded
    /// attributes, its input nodes (`None` for an omitted optional input) and its output
    /// nodes (`None` for an unused output); no domain and no subgraphs. The lists are taken
    /// by value, so that a node with millions of inputs is copied once, into the graph.
    pub fn new(
        op_type: Symbol,
        attrs: Box<[Attr]>,
        inputs: Vec<Option<NodeId>>,
        outputs: Vec<Option<NodeId>>,
    ) -> Self {
        Operator {
            op_type,
            attrs,
            inputs,
            outputs,
            rare: None,
        }
    }

    /// The operator in `domain` (an operator set or dialect), if it has one.
    pub fn with_domain(mut self, domain: Option<Symbol>) -> Self {
        if domain.is_some() {
            self.rare.get_or_insert_default().domain = domain;
        }
        self
    }

    /// The operator owning `subgraphs`.
    pub fn with_subgraphs(mut self, subgraphs: Box<[super::GraphId]>) -> Self {
        if !subgraphs.is_empty() {
            self.rare.get_or_insert_default().subgraphs = subgraphs;
        }
        self
    }
}

/// A runtime value's type.
#[derive(Debug, Clone, Default)]
pub struct Value {
    /// Element type, if known.
    pub dtype: Option<DType>,
    /// Shape, if known.
    pub shape: Option<Shape>,
    /// A type that is not a tensor, as text, such as `seq(map(string, f32))` (ONNX
    /// sequences, maps and optionals).
    pub composite: Option<Box<Composite>>,
}

/// The text of a type that is not a tensor. A value holds it behind one pointer, since
/// few values have one and every value pays for the field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Composite(pub Box<str>);

impl std::fmt::Display for Composite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A value's dimensions: a shared handle, since many values of a graph have one shape and
/// readers keep one copy of each (see the formats' `Interner`). The handle is one pointer,
/// as every value pays for it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shape(std::sync::Arc<Dims>);

#[derive(Debug, PartialEq, Eq, Hash)]
struct Dims(Box<[Dim]>);

impl std::ops::Deref for Shape {
    type Target = [Dim];

    fn deref(&self) -> &[Dim] {
        &self.0 .0
    }
}

impl std::borrow::Borrow<[Dim]> for Shape {
    fn borrow(&self) -> &[Dim] {
        self
    }
}

impl From<Vec<Dim>> for Shape {
    fn from(dims: Vec<Dim>) -> Self {
        Shape(Dims(dims.into()).into())
    }
}

impl From<&[Dim]> for Shape {
    fn from(dims: &[Dim]) -> Self {
        Shape(Dims(dims.into()).into())
    }
}

impl Serialize for Shape {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

/// One dimension of a value's shape.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum Dim {
    /// A fixed size.
    Fixed(u64),
    /// A named, symbolic size.
    Symbolic(Name),
}

/// A named attribute of an operator.
#[derive(Debug, Clone, Serialize)]
pub struct Attr {
    /// Attribute name.
    pub name: Symbol,
    /// Decoded value.
    pub value: AttrValue,
}

/// Attribute values.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AttrValue {
    /// Boolean.
    Bool(bool),
    /// Integer.
    Int(i64),
    /// Floating point.
    Float(f32),
    /// Text.
    Str(Name),
    /// Integer list.
    Ints(Vec<i64>),
    /// Float list.
    Floats(Vec<f32>),
    /// A named enum value, or its number if the name is unknown.
    Enum(EnumValue),
    /// Text list.
    Strs(Vec<Name>),
    /// A subgraph.
    Graph(GraphRef),
    /// Several subgraphs.
    Graphs(Vec<GraphRef>),
    /// A constant tensor.
    Tensor(TensorRef),
    /// Several constant tensors.
    Tensors(Vec<TensorRef>),
}

/// An enum attribute value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EnumValue {
    /// The raw value.
    pub value: i64,
    /// Its name, if known.
    pub name: Option<&'static str>,
}

/// A reference to a tensor from an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TensorRef {
    /// Index into [`super::Inventory::tensors`].
    pub tensor: TensorId,
}

/// A reference to a subgraph from an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GraphRef {
    /// Index into [`super::Inventory::graphs`].
    pub graph: super::GraphId,
}
