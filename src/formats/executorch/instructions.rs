//! Instructions as graph nodes: kernel calls as their operators, delegate calls as nodes
//! that name their backend, moves, jumps and frees; arguments split into inputs and outputs.

use super::plan::{Defined, Method, NODE_ENTRIES};
use super::program::{Delegate, Walk};
use super::rules::{out_of_range, INDEX_OUT_OF_RANGE};
use super::schema::program as fb;
use crate::check::{Item, Place};
use crate::formats::shared::numbers::{bits64, narrow};
use crate::inventory::{
    Attr, AttrValue, EnumValue, GraphId, Name, NewKind, NewNode, NodeId, Operator, Symbol,
};
use std::rc::Rc;

/// List items a scalar-list argument shows as an attribute.
const SHOWN_ITEMS: usize = 16;

impl Walk<'_, '_> {
    /// One instruction as a node, paid for whatever it holds (see [`NODE_ENTRIES`]); false
    /// once the budget has run out.
    pub(super) fn instruction(
        &mut self,
        method: &mut Method<'_>,
        operators: &[Symbol],
        delegates: &[usize],
        instruction: fb::Instruction<'_>,
        chain_len: usize,
    ) -> bool {
        let at = instruction._tab.loc() as u64;
        let Some(graph) = self.cx.inv.graphs.get(method.graph) else {
            return false;
        };
        let node = graph.next_id();
        let place = Place::at(at).item(Item::Node {
            graph: method.graph,
            node,
        });
        let (op_type, args, attrs): (Symbol, Vec<i32>, Vec<Attr>) = match instruction
            .instr_args_type()
        {
            fb::InstructionArguments::KernelCall => {
                let call = instruction.instr_args_as_kernel_call();
                let op = call.map_or(-1, |c| c.op_index());
                let name = usize::try_from(op)
                    .ok()
                    .and_then(|i| operators.get(i))
                    .cloned();
                let name = name.unwrap_or_else(|| {
                    let what = format!("a kernel call of method \"{}\"", method.name);
                    let message = out_of_range(what, "operator", op, "the method", operators.len());
                    self.cx.report(&INDEX_OUT_OF_RANGE, place, message);
                    self.made(("#", bits64(op.into()), 0), || format!("#{op}"), place)
                });
                let args: Vec<i32> = self.bounded_args(call.and_then(|c| c.args()));
                (name, args, Vec::new())
            }
            fb::InstructionArguments::DelegateCall => {
                let call = instruction.instr_args_as_delegate_call();
                let index = call.map_or(-1, |c| c.delegate_index());
                let delegate = usize::try_from(index)
                    .ok()
                    .and_then(|i| delegates.get(i))
                    .and_then(|&d| self.delegates.get(d))
                    .cloned();
                let args: Vec<i32> = self.bounded_args(call.and_then(|c| c.args()));
                match delegate {
                    Some(d) => (d.call.clone(), args, delegate_attrs(&d)),
                    None => {
                        let what = format!("a delegate call of method \"{}\"", method.name);
                        let message =
                            out_of_range(what, "delegate", index, "the method", delegates.len());
                        self.cx.report(&INDEX_OUT_OF_RANGE, place, message);
                        let text = || format!("delegate #{index}");
                        (
                            self.made(("delegate #", bits64(index.into()), 0), text, place),
                            args,
                            Vec::new(),
                        )
                    }
                }
            }
            fb::InstructionArguments::MoveCall => {
                let call = instruction.instr_args_as_move_call();
                let args = call.map_or_else(Vec::new, |c| vec![c.move_from(), c.move_to()]);
                (Symbol::Static("move"), args, Vec::new())
            }
            fb::InstructionArguments::JumpFalseCall => {
                let call = instruction.instr_args_as_jump_false_call();
                let destination = call.map_or(0, |c| c.destination_instruction());
                if usize::try_from(destination).map_or(true, |d| d >= chain_len) {
                    let what = format!("a jump in method \"{}\"", method.name);
                    let message =
                        out_of_range(what, "instruction", destination, "its chain", chain_len);
                    self.cx.report(&INDEX_OUT_OF_RANGE, place, message);
                }
                let attrs = vec![Attr {
                    name: Symbol::Static("destination"),
                    value: AttrValue::Int(destination.into()),
                }];
                (
                    Symbol::Static("jump_false"),
                    call.map_or_else(Vec::new, |c| vec![c.cond_value_index()]),
                    attrs,
                )
            }
            fb::InstructionArguments::FreeCall => {
                let call = instruction.instr_args_as_free_call();
                (
                    Symbol::Static("free"),
                    call.map_or_else(Vec::new, |c| vec![c.value_index()]),
                    Vec::new(),
                )
            }
            other => {
                if !self.cx.spend(NODE_ENTRIES, place) {
                    return false;
                }
                let kind = NewKind::Unknown {
                    tag: u32::from(other.0),
                };
                self.push_node(method.graph, kind, at);
                return true;
            }
        };
        let cost = NODE_ENTRIES.max(1 + args.len() as u64);
        if !self.cx.spend(cost, place) {
            return false;
        }
        let moves = op_type == "move";
        let (inputs, outputs, mut attrs) = self.connect(method, &args, moves, place, attrs);
        attrs.shrink_to_fit();
        let operator = Operator::new(op_type, attrs.into(), inputs, outputs);
        self.push_node(method.graph, NewKind::Operator(operator), at);
        true
    }

    /// Adds a nameless node at `at` to `graph`.
    fn push_node(&mut self, graph: GraphId, kind: NewKind, at: u64) {
        if let Some(graph) = self.cx.inv.graphs.get_mut(graph) {
            let name = Name::default();
            let offset = at.into();
            graph.nodes.push(NewNode { name, kind, offset });
        }
    }

    /// Arguments as stored, no more than the budget could pay for: an instruction with more
    /// is refused by the budget once counted, so the rest need not be copied.
    fn bounded_args(&self, args: Option<flatbuffers::Vector<'_, i32>>) -> Vec<i32> {
        let limit = usize::try_from(self.cx.budget.left()).unwrap_or(usize::MAX);
        args.into_iter()
            .flatten()
            .take(limit.saturating_add(1))
            .collect()
    }

    /// A symbol the reader makes, such as `#7` for an operator index out of range: made once
    /// per `key`.
    fn made(
        &mut self,
        key: crate::formats::shared::budget::SymbolKey,
        text: impl FnOnce() -> String,
        place: Place,
    ) -> Symbol {
        self.cx.symbol_at(key, text, place)
    }

    /// Splits arguments into inputs (values defined before) and outputs (tensors defined
    /// here), checking each is a value of the method; scalar arguments are shown as
    /// attributes too.
    fn connect(
        &mut self,
        method: &mut Method<'_>,
        args: &[i32],
        moves: bool,
        place: Place,
        mut attrs: Vec<Attr>,
    ) -> (Vec<Option<NodeId>>, Vec<Option<NodeId>>, Vec<Attr>) {
        let n = method.value_count();
        let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
        for (pos, &arg) in args.iter().enumerate() {
            let Some(id) = u32::try_from(arg).ok().filter(|&a| (a as usize) < n) else {
                let what = format!(
                    "argument {pos} of an instruction of method \"{}\"",
                    method.name
                );
                let message = out_of_range(what, "value", arg, "the method", n);
                self.cx.report(&INDEX_OUT_OF_RANGE, place, message);
                continue;
            };
            let slot = method.defined.get_mut(id as usize);
            match slot {
                // Written earlier in this instruction: listed once.
                Some(Defined::Now) => continue,
                Some(slot) if (moves && pos == 1) || *slot == Defined::No => {
                    *slot = Defined::Now;
                    outputs.push(Some(id));
                    continue;
                }
                _ => inputs.push(Some(id)),
            }
            // A list argument reads the values it lists, too.
            if let Some(listed) = self.listed(method, id) {
                if self.cx.spend(listed.len() as u64, place) {
                    inputs.extend(listed.iter().map(|&v| Some(v)));
                }
            }
            if let Some(value) = method.values.and_then(|v| self.literal(v.get(id as usize))) {
                let name = self.made(("arg", pos as u64, 0), || format!("arg{pos}"), place);
                attrs.push(Attr { name, value });
            }
        }
        for id in outputs.iter().flatten() {
            if let Some(slot) = method.defined.get_mut(*id as usize) {
                *slot = Defined::Yes;
            }
        }
        (inputs, outputs, attrs)
    }

    /// The values of the method that list value `id` lists, read once per value: a list
    /// passed a million times is not read a million times. `None` if it is no list.
    fn listed(&mut self, method: &mut Method<'_>, id: NodeId) -> Option<Rc<[NodeId]>> {
        if let Some(listed) = method.listed.get(&id) {
            return Some(listed.clone());
        }
        let n = method.value_count();
        let limit = usize::try_from(self.cx.budget.left()).unwrap_or(usize::MAX);
        let items = listed_values(method.values?.get(id as usize), limit)?;
        let listed: Rc<[NodeId]> = items
            .into_iter()
            .filter_map(|i| u32::try_from(i).ok().filter(|&i| (i as usize) < n))
            .collect();
        method.listed.insert(id, listed.clone());
        Some(listed)
    }

    /// A scalar value as an attribute, lists cut to [`SHOWN_ITEMS`]; a string is copied once
    /// however often it is passed.
    fn literal(&mut self, value: fb::EValue<'_>) -> Option<AttrValue> {
        if value.val_type() == fb::KernelTypes::String {
            let text = value.val_as_string()?.string_val();
            return Some(AttrValue::Str(self.name(text)));
        }
        literal(value)
    }
}

/// The value indices a list value holds, at most `limit`: tensor lists, optional tensor
/// lists (without their -1 for None) and int lists, whose items are boxed values. `None` for
/// any other value.
fn listed_values(value: fb::EValue<'_>, limit: usize) -> Option<Vec<i64>> {
    let items: Option<Vec<i64>> = match value.val_type() {
        fb::KernelTypes::TensorList => value
            .val_as_tensor_list()
            .and_then(|l| l.items())
            .map(|i| i.iter().take(limit).map(i64::from).collect()),
        fb::KernelTypes::OptionalTensorList => value
            .val_as_optional_tensor_list()
            .and_then(|l| l.items())
            .map(|i| {
                i.iter()
                    .filter(|&x| x != -1)
                    .take(limit)
                    .map(i64::from)
                    .collect()
            }),
        fb::KernelTypes::IntList => value
            .val_as_int_list()
            .and_then(|l| l.items())
            .map(|i| i.iter().take(limit).collect()),
        _ => return None,
    };
    Some(items.unwrap_or_default())
}

/// A scalar value other than a string as an attribute, lists cut to [`SHOWN_ITEMS`].
fn literal(value: fb::EValue<'_>) -> Option<AttrValue> {
    Some(match value.val_type() {
        fb::KernelTypes::Int => AttrValue::Int(value.val_as_int()?.int_val()),
        fb::KernelTypes::Double => AttrValue::Float(narrow(value.val_as_double()?.double_val())),
        fb::KernelTypes::Bool => AttrValue::Bool(value.val_as_bool()?.bool_val()),
        fb::KernelTypes::DoubleList => AttrValue::Floats(
            value
                .val_as_double_list()?
                .items()?
                .iter()
                .take(SHOWN_ITEMS)
                .map(narrow)
                .collect(),
        ),
        fb::KernelTypes::BoolList => AttrValue::Ints(
            value
                .val_as_bool_list()?
                .items()?
                .iter()
                .take(SHOWN_ITEMS)
                .map(i64::from)
                .collect(),
        ),
        _ => return None,
    })
}

/// What a delegate call shows: backend, where the blob is and how large.
fn delegate_attrs(d: &Delegate) -> Vec<Attr> {
    let location = EnumValue {
        value: i64::from(!d.inline),
        name: Some(if d.inline { "INLINE" } else { "SEGMENT" }),
    };
    let mut attrs = vec![
        Attr {
            name: Symbol::Static("backend"),
            value: AttrValue::Str(d.backend.clone()),
        },
        Attr {
            name: Symbol::Static("processed"),
            value: AttrValue::Enum(location),
        },
    ];
    if let Some(bytes) = d.bytes {
        attrs.push(Attr {
            name: Symbol::Static("bytes"),
            value: AttrValue::Int(i64::try_from(bytes).unwrap_or(i64::MAX)),
        });
    }
    attrs
}
