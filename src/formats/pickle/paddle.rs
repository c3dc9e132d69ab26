//! The forms `paddle.save` gives tensors in a pickle, beyond a plain NumPy array: a
//! `(name, array)` tuple (an eager Tensor, and older state dicts), and for a bare
//! `DenseTensor` the one `eval` call Paddle writes, `builtins.eval('data', {'data': array})`.

use crate::formats::shared::pickle::ndarray::{array, Array};
use crate::formats::shared::pickle::{Id, Tree, Value};
use std::collections::HashMap;

/// The global Paddle's bare-tensor form calls.
const EVAL: &str = "builtins.eval";

/// What a value is, as a Paddle tensor.
pub enum Form<'t> {
    /// An array, with the name the value gives it (a tuple's first item).
    Array(Array, Option<&'t [u8]>),
    /// An `eval(expression, namespace)` call other than Paddle's.
    OtherEval,
}

/// The Paddle tensor form of `id`, if it has one.
pub fn form<T: Tree>(tree: &T, id: Id) -> Option<Form<'_>> {
    if let Some(found) = array(tree, id) {
        return Some(Form::Array(found, None));
    }
    if let Some(eval) = eval(tree, id) {
        return Some(match eval {
            Some(found) => Form::Array(found, Some(b"data")),
            None => Form::OtherEval,
        });
    }
    // (name, array), as a tuple or as builtins.tuple((name, array)).
    let pair = match tree.call_of(id, &["builtins.tuple"]) {
        Some((call, _)) => *tree.items(call.args)?.first()?,
        None => id,
    };
    let [name, value] = tree.items(pair)? else {
        return None;
    };
    let name = tree.str(*name)?;
    Some(Form::Array(array(tree, *value)?, Some(name)))
}

/// For an `eval` call with an expression and a namespace dict: `Some(array)` for Paddle's
/// `eval('data', {'data': array})`, `Some(None)` for any other.
fn eval<T: Tree>(tree: &T, id: Id) -> Option<Option<Array>> {
    let (call, _) = tree.call_of(id, &[EVAL])?;
    let [expression, namespace] = tree.items(call.args)? else {
        return None;
    };
    let expression = tree.str(*expression)?;
    let Some(Value::Dict(pairs)) = tree.value(*namespace) else {
        return None;
    };
    let paddle = match pairs.as_slice() {
        [(key, value)] if expression == b"data" && tree.str(*key) == Some(b"data") => {
            array(tree, *value)
        }
        _ => None,
    };
    Some(paddle)
}

/// The `builtins.eval` imports and how they are called, in one pass over the values: `true`
/// for an import called only in Paddle's own form, `false` if some call is an
/// `eval(expression, namespace)` of another kind (which the format reports). Imports called
/// in any other way are left out, for the safe set to judge.
pub fn eval_imports<T: Tree>(tree: &T, values: &[Value]) -> HashMap<usize, bool> {
    let mut found: HashMap<usize, Option<bool>> = HashMap::new();
    for (id, value) in (0..).zip(values) {
        let Value::Call(call) = value else { continue };
        let Some(&Value::Global(index)) = tree.value(call.func) else {
            continue;
        };
        let entry = found.entry(index).or_insert_with(|| {
            let import = tree.imports().get(index);
            import
                .is_some_and(|i| tree.resolved(i) == EVAL)
                .then_some(true)
        });
        if entry.is_none() {
            continue;
        }
        *entry = match (eval(tree, id), *entry) {
            (Some(Some(_)), seen) => seen,
            (Some(None), Some(_)) => Some(false),
            _ => None,
        };
    }
    found
        .into_iter()
        .filter_map(|(i, paddle)| Some((i, paddle?)))
        .collect()
}
