//! One file's operators as the pairing reads them: every node of every graph numbered once (a
//! vertex), and for each vertex the operator that produces it and those that consume it, as
//! flat arrays built in linear time.

use crate::inventory::grouped::Grouped;
use crate::inventory::{
    AttrValue, GraphId, Inventory, Name, NodeId, NodeKind, OpRef, SubgraphOf, TensorId,
};

/// No operator, vertex or slot.
pub(super) const NONE: u32 = u32::MAX;

/// The slot of a vertex that is an operator node itself, read as an input by a format that
/// links operators directly.
const ITSELF: u32 = u32::MAX - 1;

/// One operator node of a file.
pub(super) struct Op<'a> {
    /// Its graph.
    pub graph: GraphId,
    /// Its node.
    pub id: NodeId,
    /// Its name.
    pub name: &'a Name,
    /// The operator.
    pub op: OpRef<'a>,
    /// Its type and domain, hashed: operators pair only with one of the same kind.
    pub kind: u64,
}

/// A file's operators and the vertices that link them.
pub(super) struct Topology<'a> {
    /// The inventory.
    pub inv: &'a Inventory,
    /// Every operator, graph after graph.
    pub ops: Vec<Op<'a>>,
    /// The first vertex of each graph.
    base: Vec<u32>,
    /// Per vertex: the operator that produces it and its output slot, or `NONE`.
    producer: Vec<(u32, u32)>,
    /// Per vertex: the operators that read it, with their input slots.
    consumers: Grouped<(u32, u32)>,
}

impl<'a> Topology<'a> {
    /// Indexes the operators of `inv`.
    pub fn of(inv: &'a Inventory) -> Self {
        let mut base = Vec::with_capacity(inv.graphs.len());
        let mut total = 0u32;
        for graph in &inv.graphs {
            base.push(total);
            total = total.saturating_add(u32::try_from(graph.nodes.len()).unwrap_or(NONE));
        }
        let mut topo = Topology {
            inv,
            ops: Vec::new(),
            base,
            producer: vec![(NONE, NONE); total as usize],
            consumers: Grouped::default(),
        };
        for (gid, graph) in inv.graphs.iter().enumerate() {
            for (id, node) in graph.nodes_with_ids() {
                let NodeKind::Operator(op) = node.kind else {
                    continue;
                };
                let at = u32::try_from(topo.ops.len()).unwrap_or(NONE);
                topo.set_producer(topo.vertex(gid, Some(id)), (at, ITSELF));
                for (slot, &out) in (0..).zip(op.outputs()) {
                    topo.set_producer(topo.vertex(gid, out), (at, slot));
                }
                topo.ops.push(Op {
                    graph: gid,
                    id,
                    name: node.name,
                    op,
                    kind: kind(op),
                });
            }
        }
        let view = &topo;
        let reads = (0u32..).zip(&view.ops).flat_map(|(at, op)| {
            let slots = (0u32..).zip(op.op.inputs());
            slots
                .filter_map(move |(slot, &input)| Some(((at, slot), view.vertex(op.graph, input)?)))
        });
        let consumers = Grouped::build(view.producer.len(), reads);
        topo.consumers = consumers;
        topo
    }

    /// How many vertices there are.
    pub fn vertices(&self) -> usize {
        self.producer.len()
    }

    fn set_producer(&mut self, vertex: Option<u32>, producer: (u32, u32)) {
        if let Some(slot) = vertex.and_then(|v| self.producer.get_mut(v as usize)) {
            *slot = producer;
        }
    }

    /// The vertex of node `id` of `graph`, if there is such a node.
    pub fn vertex(&self, graph: GraphId, id: Option<NodeId>) -> Option<u32> {
        let nodes = self.inv.graphs.get(graph)?.nodes.len();
        let id = id.filter(|&id| (id as usize) < nodes)?;
        self.base.get(graph)?.checked_add(id)
    }

    /// The node of a vertex.
    fn node(&self, v: u32) -> Option<crate::inventory::Node<'a>> {
        let graph = self.base.partition_point(|&b| b <= v).checked_sub(1)?;
        self.inv.graphs.get(graph)?.node(v - self.base[graph])
    }

    /// The vertices an operator reads, slot by slot.
    pub fn inputs(&self, op: u32) -> impl Iterator<Item = Option<u32>> + '_ {
        let op = &self.ops[op as usize];
        (op.op.inputs().iter()).map(move |&id| self.vertex(op.graph, id))
    }

    /// The vertices an operator writes, slot by slot.
    pub fn outputs(&self, op: u32) -> impl Iterator<Item = Option<u32>> + '_ {
        let op = &self.ops[op as usize];
        (op.op.outputs().iter()).map(move |&id| self.vertex(op.graph, id))
    }

    /// The operator that produces `v`, and its output slot.
    pub fn producer(&self, v: u32) -> Option<(u32, u32)> {
        self.producer
            .get(v as usize)
            .filter(|p| p.0 != NONE)
            .copied()
    }

    /// The operators that read `v`, with the input slot.
    pub fn consumers(&self, v: u32) -> &[(u32, u32)] {
        self.consumers.get(v)
    }

    /// The tensor of a vertex that is a constant.
    pub fn constant(&self, v: u32) -> Option<TensorId> {
        match self.node(v)?.kind {
            NodeKind::Constant { tensor } => Some(tensor),
            _ => None,
        }
    }

    /// The tensor whose values a vertex holds: a constant's, or that of the operator that
    /// makes it from nothing but a tensor attribute (a constant written as an operator).
    pub fn tensor_of(&self, v: u32) -> Option<TensorId> {
        if let Some(t) = self.constant(v) {
            return Some(t);
        }
        let (op, _) = self.producer(v)?;
        let op = &self.ops[op as usize].op;
        let mut tensors = op.attrs().iter().filter_map(|a| match &a.value {
            AttrValue::Tensor(t) => Some(t.tensor),
            _ => None,
        });
        let only = (op.inputs().is_empty() && op.outputs().len() == 1).then(|| tensors.next());
        only.flatten().filter(|_| tensors.next().is_none())
    }

    /// The vertex of the constant node that declares `tensor`.
    pub fn constant_vertex(&self, tensor: TensorId) -> Option<u32> {
        let t = self.inv.tensors.get(tensor)?;
        let v = self.vertex(t.graph, t.node)?;
        (self.constant(v) == Some(tensor)).then_some(v)
    }

    /// The inputs and outputs of `graph`, as vertices.
    pub fn interface(&self, graph: GraphId) -> [Vec<Option<u32>>; 2] {
        let Some(g) = self.inv.graphs.get(graph) else {
            return [Vec::new(), Vec::new()];
        };
        [&g.inputs, &g.outputs]
            .map(|ids| ids.iter().map(|&id| self.vertex(graph, Some(id))).collect())
    }

    /// The subgraphs an operator owns: those it names whose parent it is (so that each is
    /// read once, however many operators name it).
    pub fn owned_subgraphs(&self, op: u32) -> impl Iterator<Item = GraphId> + '_ {
        let op = &self.ops[op as usize];
        let parent = SubgraphOf {
            graph: op.graph,
            node: op.id,
        };
        (op.op.subgraphs().iter().copied()).filter(move |&g| {
            self.inv
                .graphs
                .get(g)
                .is_some_and(|g| g.parent == Some(parent))
        })
    }

    /// The value nodes of the main graph's inputs and outputs, with their names.
    pub fn named_ports(&self) -> impl Iterator<Item = (&'a [u8], u32)> + '_ {
        let [inputs, outputs] = self.interface(0);
        (inputs.into_iter().chain(outputs).flatten()).filter_map(|v| {
            let node = self.node(v)?;
            matches!(node.kind, NodeKind::Value(_)).then(|| (node.name.as_bytes(), v))
        })
    }

    /// What a vertex is, for a key that cannot use its partner: a constant's dtype and
    /// shape, or the kind of the operator that produces it.
    pub fn leaf(&self, v: Option<u32>) -> u64 {
        const TAG: u64 = 1 << 63;
        let Some(v) = v else { return TAG };
        if let Some(t) = self.constant(v).and_then(|t| self.inv.tensors.get(t)) {
            let dtype = t.dtype.map_or(0, |d| text_key(d.name()));
            return TAG | t.shape.iter().fold(mix(3, dtype), |h, &d| mix(h, d));
        }
        TAG | self.producer(v).map_or(4, |(op, slot)| {
            mix(mix(5, self.ops[op as usize].kind), u64::from(slot))
        })
    }
}

/// An operator's type and domain, hashed.
fn kind(op: OpRef<'_>) -> u64 {
    let key = text_key(op.op_type());
    op.domain().map_or(key, |d| mix(key, text_key(d)))
}

/// Mixes `x` into the hash `h` (FxHash's step).
pub(super) fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95)
}

fn text_key(s: &str) -> u64 {
    s.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| mix(h, u64::from(b)))
}
