//! The forms `paddle.save` gives tensors in a pickle, beyond a plain NumPy array: a
//! `(name, array)` tuple (an eager Tensor, and older state dicts), and for a bare
//! `DenseTensor` the one `eval` call Paddle writes, `builtins.eval('data', {'data': array})`.

use crate::formats::shared::pickle::ndarray::{array, Array};
use crate::formats::shared::pickle::{Id, Tree, Value};
use std::collections::{HashMap, HashSet};

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

/// The `builtins.eval` imports and how they are used, in one pass over the values: `true` for
/// an import used only as the callable of Paddle's own form, `false` if some call of it is an
/// `eval(expression, namespace)` of another kind (which the format reports). An import used
/// any other way (stored as a `__setstate__` that `BUILD` calls, passed as an argument,
/// returned) is left out, for the safe set to judge.
pub fn eval_imports<T: Tree>(tree: &T, values: &[Value], root: Option<Id>) -> HashMap<usize, bool> {
    let evals: HashMap<Id, usize> = (0..)
        .zip(values)
        .filter_map(|(id, value)| match value {
            Value::Global(index) => {
                let import = tree.imports().get(*index)?;
                (tree.resolved(import) == EVAL).then_some((id, *index))
            }
            _ => None,
        })
        .collect();
    if evals.is_empty() {
        return HashMap::new();
    }
    // For each eval global: how often it is referred to, and how often called in Paddle's form.
    let mut uses: HashMap<Id, (u64, u64)> = HashMap::new();
    let mut other = HashSet::new();
    for (id, value) in (0..).zip(values) {
        value.each_ref(|child| {
            if evals.contains_key(&child) {
                uses.entry(child).or_default().0 += 1;
            }
        });
        let Value::Call(call) = value else { continue };
        if !evals.contains_key(&call.func) {
            continue;
        }
        match eval(tree, id) {
            Some(Some(_)) => uses.entry(call.func).or_default().1 += 1,
            Some(None) => {
                other.insert(call.func);
            }
            None => {}
        }
    }
    evals
        .into_iter()
        .filter_map(|(global, index)| {
            if other.contains(&global) {
                return Some((index, false));
            }
            let (refs, paddle) = uses.get(&global).copied().unwrap_or_default();
            (paddle > 0 && refs == paddle && root != Some(global)).then_some((index, true))
        })
        .collect()
}
