//! `Model.operator_codes`: each code named (a builtin's schema name, a custom operator's own
//! name) with its version, checked as the verifier checks it; custom operators named.

use super::reader::{OpCode, Reader};
use super::rules::{CUSTOM_OPERATOR, CUSTOM_UNNAMED, UNKNOWN_BUILTIN};
use super::schema::{self, BuiltinOperator};
use crate::check::{Item, Place};
use crate::inventory::Symbol;

/// The builtin code of custom operators.
const CUSTOM: i32 = 32;

/// Reads and names every operator code.
pub fn codes(r: &mut Reader<'_, '_>, model: schema::Model<'_>) -> Vec<OpCode> {
    let Some(codes) = model.operator_codes() else {
        return Vec::new();
    };
    let at = r.seen(codes.bytes());
    if !r.cx.spend(codes.len() as u64, Place::at(at)) {
        return Vec::new();
    }
    (codes.iter().enumerate())
        .map(|(index, code)| one(r, index, code))
        .collect()
}

fn one(r: &mut Reader<'_, '_>, index: usize, code: schema::OperatorCode<'_>) -> OpCode {
    let at = r.table(code._tab.loc());
    let place = Place::at(at).item(Item::Field {
        name: "operator_codes",
    });
    // The interpreter's GetBuiltinCode: the larger of the two fields.
    let builtin = code
        .builtin_code()
        .0
        .max(i32::from(code.deprecated_builtin_code()));
    let version = code.version();
    if builtin == CUSTOM {
        let name = code.custom_code().unwrap_or_default();
        if name.is_empty() {
            r.cx.report(
                &CUSTOM_UNNAMED,
                place,
                format!("operator_codes[{index}] is CUSTOM, but its custom_code is empty"),
            );
        } else {
            let flex = if name.starts_with("Flex") {
                " (a TensorFlow op: it needs the Flex delegate, tensorflow/lite/delegates/flex)"
            } else {
                ""
            };
            r.cx.report(
                &CUSTOM_OPERATOR,
                place,
                format!(
                    "operator_codes[{index}] is the custom operator \"{}\"{flex}: the interpreter refuses the model unless a kernel of that name is registered",
                    name
                ),
            );
        }
        let cx = &mut *r.cx;
        let name = cx.names.symbol(name, place, &mut cx.budget, cx.out);
        return OpCode {
            name,
            custom: true,
            version,
        };
    }
    let name = match BuiltinOperator(builtin).variant_name() {
        Some(name) if builtin >= 0 => Symbol::Static(name),
        _ => {
            r.cx.report(
                &UNKNOWN_BUILTIN,
                place,
                format!(
                    "operator_codes[{index}] has builtin code {builtin}, but the builtin operators are 0..={}",
                    BuiltinOperator::ENUM_MAX
                ),
            );
            Symbol::from(format!("#{builtin}"))
        }
    };
    OpCode {
        name,
        custom: false,
        version,
    }
}
