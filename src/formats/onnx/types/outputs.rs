//! The element types a node computes for its outputs.

use super::GraphTypes;
use crate::formats::onnx::dtypes::from_onnx;
use crate::formats::onnx::schema::table::{Arity, ParamType, Schema};
use crate::inventory::{AttrValue, DType, Inventory, OpRef};

/// The type of each output of `op`, as far as it is known, into `computed`: from an
/// attribute that names it, from a control-flow body's declared outputs, or from the schema
/// (a fixed type, or a type variable that an input bound).
pub(super) fn computed(
    inv: &Inventory,
    types: &GraphTypes<'_>,
    op: &OpRef,
    schema: &Schema,
    bound: &[Option<DType>],
    computed: &mut Vec<Option<DType>>,
) {
    computed.clear();
    computed.extend((0..op.outputs().len()).map(|i| from_schema(schema, bound, i)));
    if schema.domain != "ai.onnx" {
        return;
    }
    let int = |name: &str| {
        op.attrs()
            .iter()
            .find(|a| a.name == name)
            .and_then(|a| match a.value {
                AttrValue::Int(v) => i32::try_from(v).ok(),
                _ => None,
            })
    };
    // An attribute's type code, where 0 (UNDEFINED) means "not set".
    let named = |name: &str| int(name).filter(|&c| c != 0).and_then(from_onnx);
    let input = |i: usize| types.type_of(op.inputs().get(i).copied().flatten());
    let first = match &**op.op_type() {
        "Cast" | "BitCast" => named("to"),
        "RandomNormal" | "RandomUniform" => named("dtype").or(Some(DType::F32)),
        "Multinomial" => named("dtype").or(Some(DType::I32)),
        "RandomNormalLike" | "RandomUniformLike" | "Bernoulli" | "EyeLike" => {
            named("dtype").or_else(|| input(0))
        }
        "QuantizeLinear" => named("output_dtype").or_else(|| match op.inputs().get(2) {
            Some(Some(_)) => computed.first().copied().flatten(),
            _ => Some(DType::U8),
        }),
        "DequantizeLinear" => named("output_dtype").or(computed.first().copied().flatten()),
        "Constant" => constant(inv, op),
        "ConstantOfShape" => match op.attrs().iter().find(|a| a.name == "value") {
            Some(a) => tensor_type(inv, &a.value),
            None => Some(DType::F32),
        },
        "If" | "Loop" | "Scan" => {
            if let Some(outputs) = control_flow(inv, op) {
                *computed = outputs;
            }
            return;
        }
        _ => return,
    };
    if let Some(slot) = computed.first_mut() {
        *slot = first;
    }
}

/// Output `i`'s type from the schema alone.
fn from_schema(schema: &Schema, bound: &[Option<DType>], i: usize) -> Option<DType> {
    let formal = Schema::formal(&schema.formal_outputs, i)?;
    match formal.ty {
        _ if formal.arity == (Arity::Variadic { homogeneous: false }) => None,
        ParamType::Var(v) => bound.get(v as usize).copied().flatten(),
        ParamType::Fixed(allowed) => allowed.single().and_then(from_onnx),
    }
}

/// The element type of a tensor attribute's value.
fn tensor_type(inv: &Inventory, value: &AttrValue) -> Option<DType> {
    match value {
        AttrValue::Tensor(t) => inv.tensors.get(t.tensor)?.dtype,
        _ => None,
    }
}

/// A Constant's type: from whichever value attribute it has.
fn constant(inv: &Inventory, op: &OpRef) -> Option<DType> {
    let [a] = op.attrs() else {
        return None;
    };
    match (a.name.as_ref(), &a.value) {
        ("value" | "sparse_value", value) => tensor_type(inv, value),
        ("value_float", AttrValue::Float(_)) | ("value_floats", AttrValue::Floats(_)) => {
            Some(DType::F32)
        }
        ("value_int", AttrValue::Int(_)) | ("value_ints", AttrValue::Ints(_)) => Some(DType::I64),
        ("value_string", AttrValue::Str(_)) | ("value_strings", AttrValue::Strs(_)) => {
            Some(DType::String)
        }
        _ => None,
    }
}

/// If, Loop and Scan outputs take the types their body declares for its outputs: If's
/// from its then branch when the else branch agrees, Loop's from the body's outputs after
/// the condition. `None` when the node has no body to read.
fn control_flow(inv: &Inventory, op: &OpRef) -> Option<Vec<Option<DType>>> {
    let declared = |graph: usize| -> Option<Vec<Option<DType>>> {
        let g = inv.graphs.get(graph)?;
        Some(
            g.outputs
                .iter()
                .map(|&o| match g.node(o).map(|n| n.kind) {
                    Some(crate::inventory::NodeKind::Value(v)) => v.dtype,
                    _ => None,
                })
                .collect(),
        )
    };
    let skip = usize::from(op.op_type() == "Loop");
    let mut bodies = op.subgraphs().iter().map(|&g| declared(g));
    let mut outputs: Vec<Option<DType>> = bodies.next()??.into_iter().skip(skip).collect();
    for other in bodies {
        let other = other?;
        for (mine, theirs) in outputs.iter_mut().zip(other) {
            if *mine != theirs {
                *mine = None;
            }
        }
    }
    outputs.resize(op.outputs().len(), None);
    Some(outputs)
}
