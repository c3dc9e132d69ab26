//! Pairing the operators of two files, in O(n log n) and never by comparing every pair.
//!
//! 1. Operators of one name and type pair (in order of appearance where a name repeats); so do
//!    the main graph's inputs and outputs of one name, and the constants of tensors already
//!    paired.
//! 2. Pairs spread along the links: two paired operators pair the values at each of their
//!    input and output slots; two paired values pair their producers (of one type, at one
//!    output slot) and, among their consumers not yet paired, the one of each type and input
//!    slot that each side has once. Each pair is spread once, so this is linear in the links.
//! 3. When nothing more spreads, consumers that were alike are told apart by what else they
//!    read; then operators whose type and inputs up to two steps away occur once on each side
//!    pair anywhere; then alike consumers pair in order. Each of these runs at most `ROUNDS`
//!    times, step 2 after each.
//! 4. Operators left over pair with one of another type only where every input and output of
//!    both is paired slot by slot: one replaced the other in place (such as `Relu -> Tanh`).
//!
//! Operators of different types pair in step 4 only.

use super::topology::{mix, Topology, NONE};
use crate::inventory::hashing::HashMap;
use crate::inventory::{AttrValue, Symbol, TensorId};
use std::collections::VecDeque;
use std::hash::Hash;

/// Rounds of step 3 at most.
const ROUNDS: usize = 16;

/// Which operator of B each operator of A is paired with, and the other way round.
pub(super) struct Pairing {
    /// Per operator of A: its partner in B, or `NONE`.
    pub a: Vec<u32>,
    /// Per operator of B: its partner in A, or `NONE`.
    pub b: Vec<u32>,
    /// Per vertex of A: its partner in B, or `NONE`.
    values: Vec<u32>,
}

/// Pairs the operators of `a` and `b`, given the tensors already paired (by name).
pub(super) fn pair(a: &Topology, b: &Topology, tensors: &[(TensorId, TensorId)]) -> Pairing {
    let mut state = State {
        a,
        b,
        op_a: vec![NONE; a.ops.len()],
        op_b: vec![NONE; b.ops.len()],
        paired: 0,
        val_a: vec![NONE; a.vertices()],
        val_b: vec![NONE; b.vertices()],
        queue: VecDeque::new(),
        deferred: Vec::new(),
        scratch: Default::default(),
        wide: None,
    };
    state.seed(tensors);
    for _ in 0..ROUNDS {
        state.spread();
        let before = state.paired;
        state.rescan(Resolve::ByInputs);
        if state.paired > before {
            continue;
        }
        state.global();
        if state.paired > before {
            continue;
        }
        state.rescan(Resolve::InOrder);
        if state.paired == before {
            break;
        }
    }
    state.spread();
    state.replaced();
    Pairing {
        a: state.op_a,
        b: state.op_b,
        values: state.val_a,
    }
}

impl Pairing {
    /// The pairs of operators of one kind.
    fn same_kind<'p>(
        &'p self,
        a: &'p Topology,
        b: &'p Topology,
    ) -> impl Iterator<Item = (u32, u32)> + 'p {
        (0..).zip(&self.a).filter_map(move |(i, &j)| {
            let y = b.ops.get(j as usize)?;
            (a.ops[i as usize].kind == y.kind).then_some((i, j))
        })
    }

    /// The tensors of paired values, and those paired operators hold in one attribute: one
    /// tensor of the model, perhaps renamed or retyped.
    pub fn tensors(&self, a: &Topology, b: &Topology) -> Vec<(TensorId, TensorId)> {
        let values = (0..).zip(&self.values).filter(|&(_, &v)| v != NONE);
        let mut out: Vec<_> = values
            .filter_map(|(u, &v)| a.tensor_of(u).zip(b.tensor_of(v)))
            .collect();
        for (i, j) in self.same_kind(a, b) {
            shared_tensors(a, b, i, j, |place, x, y| {
                if let Place::Attribute(_) = place {
                    out.push((x, y));
                }
            });
        }
        out
    }
}

/// Where an operator holds a tensor.
#[derive(Debug, Clone, Copy)]
pub(super) enum Place<'a> {
    /// At an input slot.
    Input(usize),
    /// In an attribute.
    Attribute(&'a Symbol),
}

/// Calls `found` with each tensor that operators `i` of `a` and `j` of `b` hold at one place.
pub(super) fn shared_tensors<'a>(
    a: &Topology<'a>,
    b: &Topology<'a>,
    i: u32,
    j: u32,
    mut found: impl FnMut(Place<'a>, TensorId, TensorId),
) {
    for (slot, (u, v)) in a.inputs(i).zip(b.inputs(j)).enumerate() {
        let x = u.and_then(|u| a.tensor_of(u));
        if let Some((x, y)) = x.zip(v.and_then(|v| b.tensor_of(v))) {
            found(Place::Input(slot), x, y);
        }
    }
    let (x, y) = (&a.ops[i as usize].op, &b.ops[j as usize].op);
    let attrs: HashMap<&str, &AttrValue> = (y.attrs().iter())
        .map(|at| (&*at.name, &at.value))
        .collect();
    for attr in x.attrs() {
        let place = Place::Attribute(&attr.name);
        match (&attr.value, attrs.get(&*attr.name)) {
            (AttrValue::Tensor(p), Some(AttrValue::Tensor(q))) => found(place, p.tensor, q.tensor),
            (AttrValue::Tensors(p), Some(AttrValue::Tensors(q))) => {
                for (p, q) in p.iter().zip(q) {
                    found(place, p.tensor, q.tensor);
                }
            }
            _ => {}
        }
    }
}

/// How alike consumers of a paired value are told apart.
#[derive(Clone, Copy, PartialEq)]
enum Resolve {
    /// Only those of a type and slot that each side has once.
    Once,
    /// Also by what else they read.
    ByInputs,
    /// Those left in order of appearance.
    InOrder,
}

/// Something newly paired, to spread.
enum Event {
    Op(u32),
    Value(u32),
}

/// Operators with a key each, sorted.
type Keyed = Vec<(u64, u32)>;

struct State<'t, 'a> {
    a: &'t Topology<'a>,
    b: &'t Topology<'a>,
    op_a: Vec<u32>,
    op_b: Vec<u32>,
    /// Operators paired so far.
    paired: usize,
    val_a: Vec<u32>,
    val_b: Vec<u32>,
    queue: VecDeque<Event>,
    /// Values of A whose consumers had alike ones left.
    deferred: Vec<u32>,
    /// Lists of consumers, kept between calls.
    scratch: (Keyed, Keyed),
    /// Each side's [`wide`] keys, once needed.
    wide: Option<[Vec<u64>; 2]>,
}

impl State<'_, '_> {
    /// Step 1.
    fn seed(&mut self, tensors: &[(TensorId, TensorId)]) {
        // B's operators by name and kind: the first of each, and after each the next.
        let mut first: HashMap<(&[u8], u64), u32> = HashMap::default();
        let mut next = vec![NONE; self.b.ops.len()];
        for (j, op) in self.b.ops.iter().enumerate().rev() {
            if !op.name.is_empty() {
                let key = (op.name.as_bytes(), op.kind);
                next[j] = first.insert(key, j as u32).unwrap_or(NONE);
            }
        }
        for (i, op) in (0..).zip(&self.a.ops) {
            if op.name.is_empty() {
                continue;
            }
            if let Some(head) = first.get_mut(&(op.name.as_bytes(), op.kind)) {
                if *head != NONE {
                    let j = std::mem::replace(head, next[*head as usize]);
                    self.pair_ops(i, j);
                }
            }
        }
        let ports: HashMap<&[u8], u32> = self.b.named_ports().collect();
        for (name, u) in self.a.named_ports() {
            if let Some(&v) = ports.get(name) {
                self.pair_values(u, v);
            }
        }
        for &(x, y) in tensors {
            if let (Some(u), Some(v)) = (self.a.constant_vertex(x), self.b.constant_vertex(y)) {
                self.pair_values(u, v);
            }
        }
    }

    fn pair_ops(&mut self, i: u32, j: u32) {
        let (Some(x), Some(y)) = (self.a.ops.get(i as usize), self.b.ops.get(j as usize)) else {
            return;
        };
        if x.kind == y.kind && self.op_a[i as usize] == NONE && self.op_b[j as usize] == NONE {
            (self.op_a[i as usize], self.op_b[j as usize]) = (j, i);
            self.paired += 1;
            self.queue.push_back(Event::Op(i));
        }
    }

    fn pair_values(&mut self, u: u32, v: u32) {
        let (Some(pu), Some(pv)) = (self.val_a.get(u as usize), self.val_b.get(v as usize)) else {
            return;
        };
        if *pu == NONE && *pv == NONE {
            (self.val_a[u as usize], self.val_b[v as usize]) = (v, u);
            self.queue.push_back(Event::Value(u));
        }
    }

    /// Step 2: spreads every pair not spread yet.
    fn spread(&mut self) {
        while let Some(event) = self.queue.pop_front() {
            match event {
                Event::Op(i) => self.spread_op(i),
                Event::Value(u) => self.spread_value(u),
            }
        }
    }

    /// Pairs the values at each slot of two paired operators; then, if one input is left
    /// unpaired on each side, those two (the inputs of a commutative operator swap between
    /// exporters).
    fn spread_op(&mut self, i: u32) {
        let j = self.op_a[i as usize];
        let (a, b) = (self.a, self.b);
        for (u, v) in (a.inputs(i).zip(b.inputs(j))).chain(a.outputs(i).zip(b.outputs(j))) {
            if let (Some(u), Some(v)) = (u, v) {
                self.pair_values(u, v);
            }
        }
        let left = |topo: &Topology, partner: &[u32], op: u32| {
            let mut left = topo
                .inputs(op)
                .flatten()
                .filter(|&v| partner[v as usize] == NONE);
            match (left.next(), left.next()) {
                (Some(v), None) => Some(v),
                _ => None,
            }
        };
        if let (Some(u), Some(v)) = (left(a, &self.val_a, i), left(b, &self.val_b, j)) {
            self.pair_values(u, v);
        }
        for (ga, gb) in a.owned_subgraphs(i).zip(b.owned_subgraphs(j)) {
            let ([ia, oa], [ib, ob]) = (a.interface(ga), b.interface(gb));
            for (u, v) in ia.into_iter().zip(ib).chain(oa.into_iter().zip(ob)) {
                if let (Some(u), Some(v)) = (u, v) {
                    self.pair_values(u, v);
                }
            }
        }
    }

    fn spread_value(&mut self, u: u32) {
        let v = self.val_a[u as usize];
        if let (Some((i, si)), Some((j, sj))) = (self.a.producer(u), self.b.producer(v)) {
            if si == sj {
                self.pair_ops(i, j);
            }
        }
        if self.consumers(u, Resolve::Once, &Default::default()) {
            self.deferred.push(u);
        }
    }

    /// Pairs the consumers of `u` and its partner not paired yet, of one type and input slot
    /// and then of one type at any slot (inputs of commutative operators swap between
    /// exporters), as `how` says; whether alike ones are left.
    fn consumers(&mut self, u: u32, how: Resolve, inputs: &[Vec<u64>; 2]) -> bool {
        let v = self.val_a[u as usize];
        let mut alike = false;
        let (mut xs, mut ys) = std::mem::take(&mut self.scratch);
        for by_slot in [true, false] {
            let keyed = |s: &Self, side: Side, v: u32, out: &mut Keyed| {
                let (topo, partner) = (s.side(side), s.partners(side));
                out.clear();
                let found = (topo.consumers(v).iter())
                    .filter(|&&(op, _)| partner[op as usize] == NONE)
                    .map(|&(op, slot)| {
                        let mut key = topo.ops[op as usize].kind;
                        if by_slot {
                            key = mix(key, u64::from(slot));
                        }
                        if how == Resolve::ByInputs {
                            key = mix(key, inputs[side as usize][op as usize]);
                        }
                        (key, op)
                    });
                out.extend(found);
                out.sort_unstable();
            };
            keyed(self, Side::A, u, &mut xs);
            keyed(self, Side::B, v, &mut ys);
            alike = false;
            let (mut p, mut q) = (0, 0);
            while p < xs.len() && q < ys.len() {
                let (kx, ky) = (xs[p].0, ys[q].0);
                if kx != ky {
                    if kx < ky {
                        p += 1;
                    } else {
                        q += 1;
                    }
                    continue;
                }
                let run =
                    |list: &[(u64, u32)], at: usize| list[at..].partition_point(|e| e.0 == kx);
                let (nx, ny) = (run(&xs, p), run(&ys, q));
                if (nx, ny) == (1, 1) || how == Resolve::InOrder {
                    for (x, y) in xs[p..p + nx].iter().zip(&ys[q..q + ny]) {
                        self.pair_ops(x.1, y.1);
                    }
                } else {
                    alike = true;
                }
                (p, q) = (p + nx, q + ny);
            }
        }
        self.scratch = (xs, ys);
        alike
    }

    /// Step 3 on the consumers of values left alike: those still alike stay for the next.
    fn rescan(&mut self, how: Resolve) {
        let deferred = std::mem::take(&mut self.deferred);
        let inputs = match how {
            Resolve::ByInputs => self.inputs_keys(),
            Resolve::Once | Resolve::InOrder => Default::default(),
        };
        for u in deferred {
            if self.consumers(u, how, &inputs) {
                self.deferred.push(u);
            }
        }
    }

    /// Step 3: operators not yet paired whose type and inputs, up to two steps away, occur
    /// once on each side; first with the partners of the inputs that have one, then
    /// without.
    fn global(&mut self) {
        let (a, b) = (self.a, self.b);
        let wide = self.wide.take().unwrap_or_else(|| [wide(a), wide(b)]);
        let inputs = self.inputs_keys();
        for with_inputs in [true, false] {
            let keyed = |s: &Self, side: Side, keys: &[u64]| -> Vec<(u64, usize)> {
                (keys.iter().enumerate())
                    .filter(|&(op, _)| s.partners(side)[op] == NONE)
                    .map(|(op, &k)| {
                        let k = if with_inputs {
                            mix(k, inputs[side as usize][op])
                        } else {
                            k
                        };
                        (k, op)
                    })
                    .collect()
            };
            let (xs, ys) = (
                keyed(self, Side::A, &wide[0]),
                keyed(self, Side::B, &wide[1]),
            );
            for (i, j) in unique_pairs(xs, ys) {
                self.pair_ops(i as u32, j as u32);
            }
            self.spread();
        }
        self.wide = Some(wide);
    }

    /// Step 4.
    fn replaced(&mut self) {
        let keyed = |s: &Self, side: Side| -> Vec<(u64, usize)> {
            (0..)
                .zip(s.partners(side))
                .filter(|&(_, &p)| p == NONE)
                .filter_map(|(op, _)| Some((s.links_key(side, op)?, op as usize)))
                .collect()
        };
        let (xs, ys) = (keyed(self, Side::A), keyed(self, Side::B));
        for (i, j) in unique_pairs(xs, ys) {
            (self.op_a[i], self.op_b[j]) = (j as u32, i as u32);
        }
    }

    fn side(&self, side: Side) -> &Topology<'_> {
        match side {
            Side::A => self.a,
            Side::B => self.b,
        }
    }

    /// Operator partners of `side`.
    fn partners(&self, side: Side) -> &[u32] {
        match side {
            Side::A => &self.op_a,
            Side::B => &self.op_b,
        }
    }

    /// A vertex as both sides name it: B's vertex where it is paired, else what it is.
    fn canonical(&self, side: Side, v: Option<u32>) -> u64 {
        let paired = v.and_then(|v| match side {
            Side::A => self.val_a.get(v as usize).filter(|&&p| p != NONE).copied(),
            Side::B => self
                .val_b
                .get(v as usize)
                .filter(|&&p| p != NONE)
                .map(|_| v),
        });
        paired.map_or_else(|| self.side(side).leaf(v), u64::from)
    }

    /// What each operator of each side reads, as both sides name it, in any order.
    fn inputs_keys(&self) -> [Vec<u64>; 2] {
        [Side::A, Side::B].map(|side| {
            let topo = self.side(side);
            (0..topo.ops.len() as u32)
                .map(|op| {
                    (topo.inputs(op)).fold(7, |h: u64, v| {
                        h.wrapping_add(mix(7, self.canonical(side, v)))
                    })
                })
                .collect()
        })
    }

    /// What an operator reads and writes, if every link of it is paired.
    fn links_key(&self, side: Side, op: u32) -> Option<u64> {
        let topo = self.side(side);
        let mut h = 11;
        let mut links = 0usize;
        for (v, slot_kind) in
            (topo.inputs(op).map(|v| (v, 1))).chain(topo.outputs(op).map(|v| (v, 2)))
        {
            let c = self.canonical(side, v);
            if c >= 1 << 63 {
                return None;
            }
            h = mix(mix(h, slot_kind), c);
            links += 1;
        }
        (links > 0).then_some(h)
    }
}

#[derive(Clone, Copy)]
enum Side {
    A = 0,
    B = 1,
}

/// Each operator's type with the types (or constants' dtype and shape) that feed its inputs
/// in any order, then that again one step further up.
fn wide(topo: &Topology) -> Vec<u64> {
    let mut keys: Vec<u64> = topo.ops.iter().map(|op| op.kind).collect();
    for _ in 0..2 {
        let feed = |v: Option<u32>| match v.and_then(|v| topo.producer(v)) {
            Some((op, slot)) => keys
                .get(op as usize)
                .map_or(0, |&k| mix(k, u64::from(slot))),
            None => topo.leaf(v),
        };
        keys = (0..)
            .zip(&topo.ops)
            .map(|(i, op)| (topo.inputs(i)).fold(op.kind, |h, v| h.wrapping_add(mix(7, feed(v)))))
            .collect();
    }
    keys
}

/// The positions of the keys that occur exactly once in `a` and once in `b`, paired and
/// sorted by their position in `a`.
pub(super) fn unique_pairs<K: Hash + Eq>(
    a: impl IntoIterator<Item = (K, usize)>,
    b: impl IntoIterator<Item = (K, usize)>,
) -> Vec<(usize, usize)> {
    // Per key: occurrences in a, the last position there, occurrences in b, the last there.
    let mut seen: HashMap<K, (u32, usize, u32, usize)> = HashMap::default();
    for (k, i) in a {
        let e = seen.entry(k).or_default();
        (e.0, e.1) = (e.0.saturating_add(1), i);
    }
    for (k, j) in b {
        if let Some(e) = seen.get_mut(&k) {
            (e.2, e.3) = (e.2.saturating_add(1), j);
        }
    }
    let mut unique: Vec<(usize, usize)> = (seen.into_values())
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.1, e.3))
        .collect();
    unique.sort_unstable();
    unique
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::{
        FileEntry, FileFormat, Graph, Inventory, NewKind, NewNode, NodeId, Offset, Operator,
        Tensor, Value,
    };

    /// A node of a graph written as a list: a value, a constant of tensor 0, or an operator
    /// reading and writing the nodes at those positions.
    enum N {
        Value(&'static str),
        Weight(&'static str),
        Op(
            &'static str,
            &'static str,
            &'static [NodeId],
            &'static [NodeId],
        ),
    }

    /// A one-graph inventory of `nodes`, with `x` as input and `y` as output.
    fn inventory(nodes: &[N]) -> Inventory {
        let mut inv = Inventory::new(FileFormat::Read("test"), "", FileEntry::model("m", 0));
        let new = |name: &str, kind| NewNode {
            name: name.into(),
            kind,
            offset: Offset::NONE,
        };
        let ids = |list: &[NodeId]| list.iter().map(|&i| Some(i)).collect::<Vec<_>>();
        let mut graph = Graph::default();
        for (id, n) in (0..).zip(nodes) {
            graph.nodes.push(match *n {
                N::Value(name) => {
                    match name {
                        "x" => graph.inputs.push(id),
                        "y" => graph.outputs.push(id),
                        _ => {}
                    }
                    new(name, NewKind::Value(Value::default()))
                }
                N::Weight(name) => {
                    let mut t = Tensor::declared(name.into(), None, vec![4], 0);
                    t.node = Some(id);
                    inv.tensors.push(t);
                    new(
                        name,
                        NewKind::Constant {
                            tensor: inv.tensors.len() - 1,
                        },
                    )
                }
                N::Op(name, op, i, o) => {
                    let op = Operator::new(op.into(), Box::new([]), ids(i), ids(o));
                    new(name, NewKind::Operator(op))
                }
            });
        }
        inv.graphs.push(graph);
        inv
    }

    /// The pairs of operators as (A's name, B's name).
    fn pairs(a: &Inventory, b: &Inventory) -> Vec<(String, String)> {
        let (ta, tb) = (Topology::of(a), Topology::of(b));
        let tensors = [(0, 0)];
        let pairing = pair(&ta, &tb, &tensors);
        (ta.ops.iter().zip(&pairing.a))
            .filter_map(|(x, &j)| {
                let y = tb.ops.get(j as usize)?;
                Some((x.name.to_string(), y.name.to_string()))
            })
            .collect()
    }

    #[test]
    fn renamed_and_reordered_operators_pair_along_the_links() {
        // x -> conv(w) -> relu -> add(·, x) -> y, against the same renamed, written in
        // another order, with the add's inputs swapped and the relu a tanh.
        use N::*;
        let a = inventory(&[
            Value("x"),
            Weight("w"),
            Op("conv", "Conv", &[0, 1], &[3]),
            Value("c"),
            Op("relu", "Relu", &[3], &[5]),
            Value("r"),
            Op("add", "Add", &[5, 0], &[7]),
            Value("y"),
        ]);
        let b = inventory(&[
            Value("x"),
            Op("n2", "Add", &[0, 6], &[2]),
            Value("y"),
            Weight("w"),
            Op("n0", "Conv", &[0, 3], &[5]),
            Value("v0"),
            Value("v1"),
            Op("n1", "Tanh", &[5], &[6]),
        ]);
        let found = pairs(&a, &b);
        let expected = [("conv", "n0"), ("relu", "n1"), ("add", "n2")];
        let expected: Vec<_> = expected.map(|(x, y)| (x.to_owned(), y.to_owned())).into();
        assert_eq!(found, expected);
    }

    #[test]
    fn operators_of_other_types_pair_only_in_place_and_names_pair_first() {
        use N::*;
        // B's relu reads another value than A's: no pair across types. Its conv keeps
        // A's name but reads other inputs: the name pairs it.
        let a = inventory(&[
            Value("x"),
            Op("conv", "Conv", &[0], &[2]),
            Value("c"),
            Op("relu", "Relu", &[2], &[4]),
            Value("y"),
        ]);
        let b = inventory(&[
            Value("x"),
            Op("other", "Tanh", &[0], &[2]),
            Value("t"),
            Op("conv", "Conv", &[2], &[4]),
            Value("y"),
        ]);
        let found = pairs(&a, &b);
        assert_eq!(found, [("conv".to_owned(), "conv".to_owned())]);
    }
}
