//! A node held to its operator's schema: domain import, operator, arity and attributes.

use super::table::{Arity, Schema};
use super::{Context, Resolved};
use crate::check::{Findings, Place};
use crate::formats::onnx::rules::*;
use crate::formats::onnx::views::attribute::AttributeView;
use crate::formats::onnx::views::node::NodeView;
use crate::inventory::Name;

/// Checks node `n` of graph `graph` and its decoded `attributes`; findings go to `place`.
/// Returns the schema whose types the node follows: none for an unknown, deprecated or
/// contrib operator, whose types are not known.
pub(in crate::formats::onnx) fn check_node(
    cx: &Context,
    graph: usize,
    n: &NodeView<'_>,
    attributes: &[AttributeView<'_>],
    place: Place,
    out: &mut Findings,
) -> Option<&'static Schema> {
    let opsets = cx.of(graph);
    if opsets.is_empty() {
        return None;
    }
    // Names are built only for findings: the usual node costs no allocation.
    let op = || Name::from(n.op_type);
    let domain = || Name::from(super::canonical(n.domain));
    let schema = match opsets.resolve(n.domain, n.op_type) {
        Resolved::Found(schema) => schema,
        Resolved::NotImported => {
            let (op, domain) = (op(), domain());
            let message =
                format!("operator {op} is in domain \"{domain}\", which has no opset import here");
            out.add(&DOMAIN_NOT_IMPORTED, place, message);
            return None;
        }
        Resolved::Custom => return None,
        _ if cx.is_function(n.domain, n.op_type) => return None,
        Resolved::Unknown { version, first } => {
            let since = match first {
                Some(first) => format!("; it first appears in version {first}"),
                None => String::new(),
            };
            let (op, domain) = (op(), domain());
            let rule = if super::refuses_unknown(&domain.display()) {
                &UNKNOWN_OPERATOR
            } else {
                &UNKNOWN_CONTRIB_OPERATOR
            };
            let message = format!(
                "domain \"{domain}\" at opset version {version} has no operator {op}{since}"
            );
            out.add(rule, place, message);
            return None;
        }
    };
    if schema.contrib {
        return None;
    }
    if schema.deprecated {
        let version = opsets.version(n.domain).unwrap_or_default();
        let message = format!(
            "operator {} is deprecated since version {}, and opset version {version} is imported",
            schema.name, schema.since
        );
        out.add(&UNKNOWN_OPERATOR, place, message);
        return None;
    }
    arity(
        schema,
        "input",
        &n.inputs,
        schema.inputs,
        &schema.formal_inputs,
        place,
        out,
    );
    arity(
        schema,
        "output",
        &n.outputs,
        schema.outputs,
        &schema.formal_outputs,
        place,
        out,
    );
    attributes_of(schema, attributes, place, out);
    Some(schema)
}

/// Holds `names` (a node's inputs or outputs) to the schema's bounds and required ones.
fn arity(
    what: &Schema,
    side: &str,
    names: &[&[u8]],
    (min, max): (u32, u32),
    formal: &[super::table::Param],
    place: Place,
    out: &mut Findings,
) {
    let count = names.len();
    if count < min as usize || count > max as usize {
        let bound = if min == max {
            format!("exactly {min}")
        } else if max == u32::MAX >> 1 {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        let message = format!("{what} takes {bound} {side}s; the node has {count}");
        return out.add(&OPERATOR_ARITY, place, message);
    }
    let empty = names.iter().enumerate().find(|&(i, name)| {
        name.is_empty() && Schema::formal(formal, i).is_some_and(|p| p.arity == Arity::Single)
    });
    if let Some((i, _)) = empty {
        let message = format!("{side} {i} of {what} is required, but the node leaves it empty");
        out.add(&OPERATOR_ARITY, place, message);
    }
}

/// AttributeProto.AttributeType names, by number.
fn type_name(ty: i32) -> String {
    const NAMES: [&str; 15] = [
        "UNDEFINED",
        "FLOAT",
        "INT",
        "STRING",
        "TENSOR",
        "GRAPH",
        "FLOATS",
        "INTS",
        "STRINGS",
        "TENSORS",
        "GRAPHS",
        "SPARSE_TENSOR",
        "SPARSE_TENSORS",
        "TYPE_PROTO",
        "TYPE_PROTOS",
    ];
    usize::try_from(ty)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| ty.to_string(), |name| (*name).to_owned())
}

/// Unknown, mistyped and missing attributes.
fn attributes_of(
    schema: &Schema,
    attributes: &[AttributeView<'_>],
    place: Place,
    out: &mut Findings,
) {
    for a in attributes {
        let name = || Name::from(a.name);
        match schema.attr(a.name) {
            None => {
                let message = format!("{schema} has no attribute \"{}\"", name());
                out.add(&UNKNOWN_ATTRIBUTE, place, message);
            }
            Some(spec) => match a.r#type {
                Some(ty) if ty != spec.ty => {
                    let message = format!(
                        "attribute \"{}\" of {schema} is of type {}, not {}",
                        name(),
                        type_name(ty),
                        type_name(spec.ty)
                    );
                    out.add(&ATTRIBUTE_TYPE, place, message);
                }
                _ => {}
            },
        }
    }
    for spec in schema.attrs.iter().filter(|s| s.required) {
        if !attributes.iter().any(|a| a.name == spec.name.as_bytes()) {
            let message = format!(
                "{schema} requires attribute \"{}\" ({}), which the node lacks",
                spec.name,
                type_name(spec.ty)
            );
            out.add(&ATTRIBUTE_MISSING, place, message);
        }
    }
}
