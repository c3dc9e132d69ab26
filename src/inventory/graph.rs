//! Graphs, nodes and attributes.

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
    pub nodes: Vec<Node>,
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
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(usize::try_from(id).ok()?)
    }

    /// The node at `id` to change, if it exists.
    pub fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.get_mut(usize::try_from(id).ok()?)
    }

    /// The id the next node pushed will have. Readers pay every node from the budget, which
    /// keeps the count far below `NodeId::MAX`.
    pub fn next_id(&self) -> NodeId {
        NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX)
    }

    /// The nodes with their ids.
    pub fn nodes_with_ids(&self) -> impl Iterator<Item = (NodeId, &Node)> {
        (0..).zip(&self.nodes)
    }
}

/// One node of a graph.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    /// Node name (may be empty).
    pub name: Name,
    /// What the node is.
    #[serde(flatten)]
    pub kind: NodeKind,
    /// Absolute offset of the node's declaration in the model file.
    pub offset: super::Offset,
}

/// The kinds of graph node.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NodeKind {
    /// An operation.
    Operator(Operator),
    /// A runtime value: graph input, output or intermediate.
    Value(Value),
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

/// An operation and its connections.
///
/// A node holds its operator inline, so the fields every operator has come first and what
/// few have (a domain, subgraphs) lives out of line: on a million-node graph, each byte of
/// `Operator` is a megabyte. Inputs and outputs share one allocation.
#[derive(Debug, Clone)]
pub struct Operator {
    /// Operator type, such as `Conv`; unknown types read as `#<number>`.
    pub op_type: Symbol,
    /// Decoded attributes.
    pub attrs: Box<[Attr]>,
    /// Input nodes, then output nodes; `None` for an omitted input or an unused output.
    links: Box<[Option<NodeId>]>,
    /// How many of `links` are inputs.
    input_count: u32,
    rare: Option<Box<Rare>>,
}

/// The fields of an [`Operator`] that most operators leave empty.
#[derive(Debug, Clone, Default)]
struct Rare {
    domain: Option<Symbol>,
    subgraphs: Box<[super::GraphId]>,
}

impl Operator {
    /// An operator with no domain and no subgraphs. Readers pay every link from the budget,
    /// which keeps the count of inputs far below `u32::MAX`.
    pub fn new(
        op_type: Symbol,
        attrs: Box<[Attr]>,
        inputs: &[Option<NodeId>],
        outputs: &[Option<NodeId>],
    ) -> Self {
        let links = [inputs, outputs].concat().into_boxed_slice();
        let input_count = u32::try_from(inputs.len()).unwrap_or(u32::MAX);
        let rare = None;
        Operator {
            op_type,
            attrs,
            links,
            input_count,
            rare,
        }
    }

    /// Input nodes in order; `None` for an omitted optional input.
    pub fn inputs(&self) -> &[Option<NodeId>] {
        self.links.split_at(self.split()).0
    }

    /// Output nodes in order; `None` for an unused output.
    pub fn outputs(&self) -> &[Option<NodeId>] {
        self.links.split_at(self.split()).1
    }

    fn split(&self) -> usize {
        usize::try_from(self.input_count).map_or(self.links.len(), |n| n.min(self.links.len()))
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

    /// Operator domain or namespace, if the format has one.
    pub fn domain(&self) -> Option<&str> {
        self.rare.as_ref()?.domain.as_deref()
    }

    /// Subgraphs owned by this operator.
    pub fn subgraphs(&self) -> &[super::GraphId] {
        self.rare.as_ref().map_or(&[], |r| &r.subgraphs)
    }
}

impl Serialize for Operator {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let domain = self.domain();
        let mut st = s.serialize_struct("Operator", 5 + usize::from(domain.is_some()))?;
        st.serialize_field("op_type", &self.op_type)?;
        if let Some(domain) = domain {
            st.serialize_field("domain", domain)?;
        }
        st.serialize_field("attrs", &self.attrs)?;
        st.serialize_field("inputs", self.inputs())?;
        st.serialize_field("outputs", self.outputs())?;
        st.serialize_field("subgraphs", self.subgraphs())?;
        st.end()
    }
}

/// A runtime value's type.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Value {
    /// Element type, if known.
    pub dtype: Option<DType>,
    /// Shape, if known.
    pub shape: Option<Shape>,
    /// A type that is not a tensor, as text, such as `seq(map(string, f32))` (ONNX
    /// sequences, maps and optionals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub composite: Option<Box<str>>,
}

/// A value's dimensions: a shared handle, since many values of a graph have one shape and
/// readers keep one copy of each (see the formats' `Interner`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shape(std::sync::Arc<[Dim]>);

impl std::ops::Deref for Shape {
    type Target = [Dim];

    fn deref(&self) -> &[Dim] {
        &self.0
    }
}

impl std::borrow::Borrow<[Dim]> for Shape {
    fn borrow(&self) -> &[Dim] {
        &self.0
    }
}

impl From<Vec<Dim>> for Shape {
    fn from(dims: Vec<Dim>) -> Self {
        Shape(dims.into())
    }
}

impl From<&[Dim]> for Shape {
    fn from(dims: &[Dim]) -> Self {
        Shape(dims.into())
    }
}

impl Serialize for Shape {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A node is paid for once per node of the largest graphs: growing it is a decision.
    #[test]
    fn nodes_stay_small() {
        assert_eq!(std::mem::size_of::<Operator>(), 72);
        assert_eq!(std::mem::size_of::<Node>(), 96);
    }

    #[test]
    fn rare_fields_serialize_as_before() {
        let op = Operator::new("If".into(), Box::new([]), &[Some(0)], &[]);
        let plain = serde_json::to_string(&op).unwrap();
        assert_eq!(
            plain,
            r#"{"op_type":"If","attrs":[],"inputs":[0],"outputs":[],"subgraphs":[]}"#
        );
        let op = op
            .with_domain(Some("ai.onnx.ml".into()))
            .with_subgraphs(Box::new([2, 3]));
        assert_eq!(op.domain(), Some("ai.onnx.ml"));
        assert_eq!(
            serde_json::to_string(&op).unwrap(),
            r#"{"op_type":"If","domain":"ai.onnx.ml","attrs":[],"inputs":[0],"outputs":[],"subgraphs":[2,3]}"#
        );
    }
}
