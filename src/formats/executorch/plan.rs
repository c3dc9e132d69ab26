//! Methods (execution plans) as graphs: values first, so that a node's id is its value
//! index, then one node per instruction.

use super::desc::Desc;
use super::program::{Delegate, ExternalRef, SegmentUse, Walk};
use super::rules::{out_of_range, INDEX_OUT_OF_RANGE, METHOD_INCOMPLETE};
use super::schema::program as fb;
use crate::check::{Item, Place};
use crate::formats::shared::bytes::offset_in;
use crate::inventory::{Dim, Graph, Name, NewKind, NewNode, NodeId, Symbol, Tensor, Value};
use std::collections::HashMap;
use std::rc::Rc;

/// Entries a node costs at least: at 144 bytes it takes as much memory as 18 node inputs, so
/// a value or an instruction pays this, or its dimensions, listed items or arguments if
/// those are more. A method of a million shared empty instructions then runs the budget out
/// at 1.4M nodes (200 MB).
pub(super) const NODE_ENTRIES: u64 = 3;

/// Whether a value holds something yet, for telling an instruction's outputs from its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Defined {
    /// Not before the instruction being read.
    No,
    /// Before the instruction being read.
    Yes,
    /// Written by the instruction being read.
    Now,
}

/// A method's lists, for range checks.
pub(super) struct Method<'a> {
    /// The method's graph.
    pub graph: usize,
    /// Its name for messages: escaped and cut short.
    pub name: String,
    /// Its values.
    pub values: Option<flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<fb::EValue<'a>>>>,
    /// Whether each value holds something yet.
    pub defined: Vec<Defined>,
    /// The values each list value lists that are values of the method, read on its first use
    /// as an argument.
    pub listed: HashMap<u32, Rc<[NodeId]>>,
}

impl Method<'_> {
    /// How many values the method has.
    pub fn value_count(&self) -> usize {
        self.values.map_or(0, |v| v.len())
    }
}

impl Walk<'_, '_> {
    /// Reads method `index` into a new graph; false once the budget has run out.
    pub fn plan(&mut self, index: usize, plan: fb::ExecutionPlan<'_>) -> bool {
        let graph = self.cx.inv.graphs.len();
        let at = plan._tab.loc() as u64;
        if !self.cx.spend(
            crate::formats::shared::budget::SUBGRAPH_ENTRIES,
            Place::at(at),
        ) {
            return false;
        }
        let name = self.name(plan.name());
        self.required(&plan, index, at);
        let mut method = Method {
            graph,
            name: name.display().into_owned(),
            values: plan.values(),
            defined: Vec::new(),
            listed: HashMap::new(),
        };
        self.cx.inv.graphs.push(Graph {
            name,
            offset: Some(at),
            ..Graph::default()
        });
        // The nodes are made room for at once, as many as the budget can pay for, so that
        // growing the list never holds two copies of it.
        let chains = plan.chains().into_iter().flatten();
        let instructions = chains.map(|c| c.instructions().map_or(0, |i| i.len()));
        let instructions = instructions.fold(0, usize::saturating_add);
        let affordable =
            usize::try_from(self.cx.budget.left() / NODE_ENTRIES).unwrap_or(usize::MAX);
        let values = method.value_count().min(affordable);
        if let Some(g) = self.cx.inv.graphs.get_mut(graph) {
            g.nodes.reserve(
                instructions.min(affordable.saturating_sub(values)),
                values,
                0,
            );
        }
        if !self.values(&mut method) {
            return false;
        }
        let inputs = self.io(&mut method, plan.inputs(), "inputs", at);
        let outputs = self.io(&mut method, plan.outputs(), "outputs", at);
        for &id in &inputs {
            if let Some(slot) = method.defined.get_mut(id as usize) {
                *slot = Defined::Yes;
            }
        }
        if let Some(g) = self.cx.inv.graphs.get_mut(graph) {
            (g.inputs, g.outputs) = (inputs, outputs);
        }
        let operators = self.operators(&plan);
        let delegates = self.plan_delegates(&method, &plan);
        for chain in plan.chains().into_iter().flatten() {
            let count = chain.instructions().map_or(0, |i| i.len());
            let mut traces = super::stacks::of_chain(&chain, count).into_iter().flatten();
            for instruction in chain.instructions().into_iter().flatten() {
                let node = self.cx.inv.graphs.get(graph).map(Graph::next_id);
                if !self.instruction(&mut method, &operators, &delegates, instruction, count) {
                    return false;
                }
                if let (Some(node), Some(frames)) = (node, traces.next()) {
                    self.stacks.record(self.cx, graph, node, frames);
                }
            }
        }
        true
    }

    /// The string `s` of the program, copied once however often it is referred to.
    pub fn name(&mut self, s: Option<&str>) -> Name {
        match s {
            Some(s) => self.cx.name(s.as_bytes()),
            None => Name::default(),
        }
    }

    /// Where string `s` is in the program, to key what is made from it (`u64::MAX` when
    /// absent).
    pub fn position(&self, s: Option<&str>) -> u64 {
        s.and_then(|s| offset_in(self.cx.bytes, s.as_bytes()))
            .unwrap_or(u64::MAX)
    }

    /// Reports fields a method needs to load.
    fn required(&mut self, plan: &fb::ExecutionPlan<'_>, index: usize, at: u64) {
        let missing = [
            ("name", plan.name().is_none()),
            ("values", plan.values().is_none()),
            ("inputs", plan.inputs().is_none()),
            ("outputs", plan.outputs().is_none()),
            ("chains", plan.chains().is_none()),
            (
                "non_const_buffer_sizes",
                plan.non_const_buffer_sizes().is_none(),
            ),
        ];
        for (field, _) in missing.iter().filter(|(_, absent)| *absent) {
            let message = format!(
                "execution plan {index} has no `{field}`, which the runtime needs to load it"
            );
            self.cx.report(
                &METHOD_INCOMPLETE,
                Place::field("execution_plan", at),
                message,
            );
        }
    }

    /// One node per value; false once the budget has run out.
    fn values(&mut self, method: &mut Method<'_>) -> bool {
        let Some(values) = method.values else {
            return true;
        };
        method.defined = Vec::new();
        for (i, value) in (0..).zip(values.iter()) {
            let at = value._tab.loc() as u64;
            // A value costs its node, or its dimensions and the items it lists (checked one
            // by one) if more: a FlatBuffer may list one large value a million times.
            let rank = value
                .val_as_tensor()
                .and_then(|t| t.sizes())
                .map_or(0, |s| s.len().min(64));
            let listed = listed_count(&value);
            let cost = NODE_ENTRIES.max((1 + rank as u64).saturating_add(listed as u64));
            if !self.cx.spend(cost, Place::at(at)) {
                return false;
            }
            let (kind, defined) = self.value(method, i, value, at);
            method
                .defined
                .push(if defined { Defined::Yes } else { Defined::No });
            let name = match &kind {
                // The exporter stores equal constants once; a second value of this method
                // holding one is named for itself, as a value.
                NewKind::Constant { tensor } => match self.cx.inv.tensors.get(*tensor) {
                    Some(t) if t.graph == method.graph && t.node.is_some_and(|n| n != i) => {
                        Name::from(format!("%{i}"))
                    }
                    Some(t) => t.name.clone(),
                    None => Name::default(),
                },
                _ => match fqn(&value) {
                    Some(fqn) => self.name(Some(fqn)),
                    None => Name::from(format!("%{i}")),
                },
            };
            if let Some(g) = self.cx.inv.graphs.get_mut(method.graph) {
                g.nodes.push(NewNode {
                    name,
                    kind,
                    offset: at.into(),
                });
            }
        }
        true
    }

    /// What value `node` is, and whether it holds a value before any instruction runs.
    fn value(
        &mut self,
        method: &Method<'_>,
        node: NodeId,
        value: fb::EValue<'_>,
        at: u64,
    ) -> (NewKind, bool) {
        let scalar = |dtype, shape: Vec<crate::inventory::Dim>| {
            (
                NewKind::Value(Value {
                    dtype: Some(dtype),
                    shape: Some(shape.into()),
                    composite: None,
                }),
                true,
            )
        };
        use crate::inventory::{DType, Dim};
        match value.val_type() {
            fb::KernelTypes::Tensor => match value.val_as_tensor() {
                Some(t) => self.tensor(method, node, t),
                None => (NewKind::Value(Value::default()), false),
            },
            fb::KernelTypes::Int => scalar(DType::I64, vec![]),
            fb::KernelTypes::Double => scalar(DType::F64, vec![]),
            fb::KernelTypes::Bool => scalar(DType::Bool, vec![]),
            fb::KernelTypes::String => scalar(DType::String, vec![]),
            fb::KernelTypes::IntList => {
                // Items are value indices (boxed, so that they can be symbolic).
                let items = value.val_as_int_list().and_then(|l| l.items());
                let n = method.value_count();
                if let Some(bad) = items
                    .into_iter()
                    .flatten()
                    .find(|&i| usize::try_from(i).map_or(true, |i| i >= n))
                {
                    let what = format!("an int list of method \"{}\"", method.name);
                    let message = out_of_range(what, "value", bad, "the method", n);
                    self.cx.report(
                        &INDEX_OUT_OF_RANGE,
                        Place::at(at).item(Item::Graph {
                            graph: method.graph,
                        }),
                        message,
                    );
                }
                scalar(
                    DType::I64,
                    vec![Dim::Fixed(items.map_or(0, |i| i.len()) as u64)],
                )
            }
            fb::KernelTypes::DoubleList => {
                let n = value
                    .val_as_double_list()
                    .and_then(|l| l.items())
                    .map_or(0, |i| i.len());
                scalar(DType::F64, vec![Dim::Fixed(n as u64)])
            }
            fb::KernelTypes::BoolList => {
                let n = value
                    .val_as_bool_list()
                    .and_then(|l| l.items())
                    .map_or(0, |i| i.len());
                scalar(DType::Bool, vec![Dim::Fixed(n as u64)])
            }
            fb::KernelTypes::TensorList | fb::KernelTypes::OptionalTensorList => {
                let optional = value.val_type() == fb::KernelTypes::OptionalTensorList;
                let items = if optional {
                    value.val_as_optional_tensor_list().and_then(|l| l.items())
                } else {
                    value.val_as_tensor_list().and_then(|l| l.items())
                };
                self.check_tensor_list(method, items, optional, at);
                (NewKind::Value(Value::default()), false)
            }
            fb::KernelTypes::Null => (NewKind::Value(Value::default()), true),
            other => (
                NewKind::Unknown {
                    tag: u32::from(other.0),
                },
                true,
            ),
        }
    }

    /// Checks a tensor list's items: values of this method that are tensors (-1, None, in
    /// an optional list).
    fn check_tensor_list(
        &mut self,
        method: &Method<'_>,
        items: Option<flatbuffers::Vector<'_, i32>>,
        optional: bool,
        at: u64,
    ) {
        let n = method.value_count();
        for item in items.into_iter().flatten() {
            if optional && item == -1 {
                continue;
            }
            let target = usize::try_from(item)
                .ok()
                .filter(|&i| i < n)
                .and_then(|i| method.values.map(|v| v.get(i)));
            let problem = match target {
                None => {
                    let what = format!("a tensor list of method \"{}\"", method.name);
                    out_of_range(what, "value", item, "the method", n)
                }
                Some(v) if v.val_type() != fb::KernelTypes::Tensor => format!(
                    "a tensor list of method \"{}\" holds value {item}, which is a {}, not a tensor",
                    method.name,
                    v.val_type().variant_name().unwrap_or("value of unknown type")
                ),
                Some(_) => continue,
            };
            self.cx.report(
                &INDEX_OUT_OF_RANGE,
                Place::at(at).item(Item::Graph {
                    graph: method.graph,
                }),
                problem,
            );
            return;
        }
    }

    /// A tensor value: a constant, an initial state, an external tensor or a runtime value.
    fn tensor(&mut self, method: &Method<'_>, node: NodeId, t: fb::Tensor<'_>) -> (NewKind, bool) {
        let at = t._tab.loc() as u64;
        let desc = Desc::new(
            t.scalar_type().0,
            t.sizes().map(|s| s.iter()),
            t.dim_order().map(|d| d.iter()),
        );
        let place = Place::at(at).item(Item::Node {
            graph: method.graph,
            node,
        });
        let what = || format!("value {node} of method \"{}\"", method.name);
        let extra = t.extra_tensor_info();
        let index = t.data_buffer_idx();
        let external = extra.is_some_and(|e| e.location() == fb::TensorDataLocation::EXTERNAL);
        let planned = t.allocation_info().is_some();
        let has_mutable = self
            .root
            .mutable_data_segments()
            .is_some_and(|m| !m.is_empty());
        // The runtime loads a planned tensor's initial state from mutable data segment 0
        // unless the tensor names another.
        let initial_state = planned && has_mutable;
        // Constants and initial states become inventory tensors, whose sizes the generic
        // rules check.
        let becomes_tensor = !external && index > 0 && (!planned || initial_state);
        let shape = desc.check(&what, place, !becomes_tensor, self.cx.out);
        let fqn = extra.and_then(|e| e.fully_qualified_name());
        let value = NewKind::Value(Value {
            dtype: shape.dtype,
            shape: Some(
                self.cx
                    .names
                    .shape(shape.dims.iter().map(|&d| Dim::Fixed(d)).collect()),
            ),
            composite: None,
        });
        if external {
            let key = self.name(fqn);
            self.externals.push(ExternalRef {
                graph: method.graph,
                node,
                key,
                desc,
                at,
            });
            return (value, true);
        }
        if index == 0 {
            return (value, false);
        }
        let which = extra.map_or(0, |e| e.mutable_data_segments_idx());
        let state = planned.then_some(which);
        if let Some(tensor) = self.known_tensor(index, state).filter(|_| becomes_tensor) {
            return (NewKind::Constant { tensor }, true);
        }
        let name = match fqn {
            Some(_) => self.name(fqn),
            None => {
                let name = format!("{}.%{node}", method.name);
                match self.cx.budget.copy(name.len() as u64, place, self.cx.out) {
                    true => Name::from(name),
                    false => Name::default(),
                }
            }
        };
        let tensor = Tensor {
            graph: method.graph,
            node: Some(node),
            ..Tensor::declared(name, shape.dtype, shape.dims, at)
        };
        let id = if !planned {
            self.constant(index, tensor, at)
        } else if initial_state {
            self.initial_state(which, index, tensor, at)
        } else {
            None
        };
        match id {
            Some(tensor) => (NewKind::Constant { tensor }, true),
            None => (value, planned),
        }
    }

    /// A method's inputs or outputs, checked to be values of the method. Each one kept pays
    /// the budget: a plan listed many times, or lists shared by many plans, are read again
    /// for each listing.
    fn io(
        &mut self,
        method: &mut Method<'_>,
        list: Option<flatbuffers::Vector<'_, i32>>,
        field: &'static str,
        at: u64,
    ) -> Vec<NodeId> {
        let n = method.value_count();
        let affordable = usize::try_from(self.cx.budget.left()).unwrap_or(usize::MAX);
        let mut ids = Vec::with_capacity(list.map_or(0, |l| l.len()).min(affordable));
        for (pos, v) in list.into_iter().flatten().enumerate() {
            if !self.cx.spend(1, Place::field(field, at)) {
                break;
            }
            match u32::try_from(v).ok().filter(|&v| (v as usize) < n) {
                Some(id) => ids.push(id),
                None => {
                    let what = format!("{field}[{pos}] of method \"{}\"", method.name);
                    let message = out_of_range(what, "value", v, "the method", n);
                    self.cx.report(
                        &INDEX_OUT_OF_RANGE,
                        Place::field(field, at).item(Item::Graph {
                            graph: method.graph,
                        }),
                        message,
                    );
                }
            }
        }
        ids
    }

    /// Operator names as `name.overload`, each made once however often it is listed.
    fn operators(&mut self, plan: &fb::ExecutionPlan<'_>) -> Vec<Symbol> {
        let mut names = Vec::new();
        for op in plan.operators().into_iter().flatten() {
            let place = Place::at(op._tab.loc() as u64);
            if !self.cx.spend(1, place) {
                break;
            }
            // Kept as the file spells it: outputs escape it, the inventory does not.
            let (name, overload) = (op.name(), op.overload());
            let key = ("operator", self.position(name), self.position(overload));
            let text = || match overload.filter(|o| !o.is_empty()) {
                Some(overload) => format!("{}.{overload}", name.unwrap_or_default()),
                None => name.unwrap_or_default().to_owned(),
            };
            let symbol = self.cx.symbol_at(key, text, place);
            names.push(symbol);
        }
        names
    }

    /// The method's delegates, with their blobs located and range-checked.
    fn plan_delegates(&mut self, method: &Method<'_>, plan: &fb::ExecutionPlan<'_>) -> Vec<usize> {
        let mut ids = Vec::new();
        for d in plan.delegates().into_iter().flatten() {
            let at = d._tab.loc() as u64;
            if !self.cx.spend(1, Place::at(at)) {
                break;
            }
            let backend = self.name(d.id());
            let key = ("delegate", self.position(d.id()), 0);
            let text = || format!("delegate {}", d.id().unwrap_or_default());
            let call = self.cx.symbol_at(key, text, Place::at(at));
            let processed = d.processed();
            let index = processed.map_or(0, |p| p.index()) as usize;
            let inline = processed.is_none_or(|p| p.location() == fb::DataLocation::INLINE);
            let bytes = if inline {
                let blobs = self.root.backend_delegate_data();
                let count = blobs.map_or(0, |b| b.len());
                match blobs.filter(|_| index < count) {
                    Some(b) => Some(b.get(index).data().map_or(0, |d| d.len() as u64)),
                    None => {
                        let what = format!("delegate {backend} of method \"{}\"", method.name);
                        let message =
                            out_of_range(what, "inline blob", index, "the program", count);
                        self.cx
                            .report(&INDEX_OUT_OF_RANGE, Place::field("processed", at), message);
                        None
                    }
                }
            } else {
                match self.segments.get(index) {
                    Some(s) => {
                        if let Some(used) = self.uses.get_mut(index) {
                            *used = SegmentUse::Delegate;
                        }
                        Some(s.size)
                    }
                    None => {
                        let what = format!("delegate {backend} of method \"{}\"", method.name);
                        let count = self.segments.len();
                        let message = out_of_range(what, "segment", index, "the program", count);
                        self.cx
                            .report(&INDEX_OUT_OF_RANGE, Place::field("processed", at), message);
                        None
                    }
                }
            };
            ids.push(self.delegates.len());
            self.delegates.push(Delegate {
                graph: method.graph,
                backend,
                call,
                bytes,
                inline,
            });
        }
        ids
    }
}

/// The fully qualified name of a tensor value, if it has one.
fn fqn<'a>(value: &fb::EValue<'a>) -> Option<&'a str> {
    value
        .val_as_tensor()?
        .extra_tensor_info()?
        .fully_qualified_name()
}

/// How many items a list value holds.
fn listed_count(value: &fb::EValue<'_>) -> usize {
    match value.val_type() {
        fb::KernelTypes::TensorList => value
            .val_as_tensor_list()
            .and_then(|l| l.items())
            .map_or(0, |i| i.len()),
        fb::KernelTypes::OptionalTensorList => value
            .val_as_optional_tensor_list()
            .and_then(|l| l.items())
            .map_or(0, |i| i.len()),
        fb::KernelTypes::IntList => value
            .val_as_int_list()
            .and_then(|l| l.items())
            .map_or(0, |i| i.len()),
        _ => 0,
    }
}
