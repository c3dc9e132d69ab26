//! What `pickle.load` sees in the file: the pickle, the bytes after it, what they import, and
//! the arrays they hold; in a file joblib compressed, what it sees once `joblib.load` has
//! decompressed it.

use super::paddle::{self, Form};
use super::rules::EVAL_NOT_PADDLE;
use crate::check::{Item, Place};
use crate::formats::shared::compressed;
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::effects;
use crate::formats::shared::pickle::walk::{self, Flow};
use crate::formats::shared::pickle::{self, Id, Located, Options, Pickle, Source, Tree, Value};
use crate::inventory::{Name, Tensor, Trust};
use std::collections::HashSet;

/// Reads the file of `cx` as one pickle and what follows it, inflated first if joblib
/// compressed it.
pub fn read(cx: &mut Context<'_>) {
    let bytes = cx.bytes;
    let wrapper = compressed::wrapper(bytes).filter(|_| !pickle::sniff(bytes, super::SNIFFED));
    let Some(wrapper) = wrapper else {
        return read_from(cx, &Source::file(bytes, 0), "");
    };
    let limit = usize::try_from(cx.budget.bytes_left().saturating_add(1)).unwrap_or(usize::MAX);
    let Some((inflated, _)) = compressed::inflate(bytes, wrapper, limit) else {
        return;
    };
    if !cx.budget.copy(inflated.len() as u64, Place::at(0), cx.out) {
        return;
    }
    let src = Source {
        bytes: &inflated,
        start: 0,
        located: Located::Member {
            header: 0,
            name: Name::from(format!("the {} stream", wrapper.name())),
        },
        item: None,
        nth: 0,
    };
    let how = format!(", {}-compressed (joblib)", wrapper.name());
    read_from(cx, &src, &how);
}

/// Reads the pickles of `src`; `how` ends the format version.
fn read_from(cx: &mut Context<'_>, src: &Source<'_>, how: &str) {
    let options = Options::reporting(false);
    let first = pickle::read(cx, src, options);
    let protocol = match first.protocol {
        Some(p) => format!("protocol {p}{how}"),
        None => format!("protocol 0 or 1{how}"),
    };
    // paddle.save writes this key beside the parameters of every state dict.
    let paddle = first
        .root
        .and_then(|r| first.get(r, b"StructuredToParameterName@@"));
    // Paddle's own extensions name what the file is for, with or without that key.
    let paddle_named = matches!(
        crate::formats::extension(cx.file.path()).as_deref(),
        Some("pdparams" | "pdopt")
    );
    cx.inv.format_version = match (paddle, paddle_named) {
        (Some(_), _) => format!("PaddlePaddle state dict (paddle.save), pickle {protocol}"),
        (None, true) => format!("PaddlePaddle parameters (by its name), pickle {protocol}"),
        (None, false) => protocol,
    };
    let evals = paddle::eval_imports(&first, &first.values, first.root);
    let known = |i: usize| {
        evals.get(&i).map(|&paddle| {
            if paddle {
                Trust::Recognised
            } else {
                Trust::Unsafe
            }
        })
    };
    pickle::judge(cx, src, &first, options, &known);
    if evals.values().any(|&paddle| paddle) {
        let form = "a bare tensor saved by paddle.save: builtins.eval('data', {'data': array}) evaluates only the name of its array";
        cx.inv.property("paddle form", form, None);
    }
    pickle::read_rest(cx, src, &first, options);
    let mut reported = HashSet::new();
    if let Some(root) = first.root {
        tensors(cx, src, &first, root, &mut reported);
    }
    // Calls of another eval that no entry holds are reported without one.
    for (id, value) in (0..).zip(&first.values) {
        if let Value::Call(call) = value {
            let other = matches!(paddle::form(&first, id), Some(Form::OtherEval));
            if other && !reported.contains(&id) {
                report_eval(cx, src, &first, id, call.at, None);
            }
        }
    }
    cx.whole_if_unread();
}

/// Lists the arrays under `root` as tensors named by their key path.
fn tensors(
    cx: &mut Context<'_>,
    src: &Source<'_>,
    p: &Pickle<'_>,
    root: Id,
    reported: &mut HashSet<Id>,
) {
    let is_leaf = |id| paddle::form(p, id).is_some();
    walk::leaves(p, root, is_leaf, |path, id| {
        let Some(form) = paddle::form(p, id) else {
            return Flow::Continue;
        };
        let at = match p.value(id) {
            Some(Value::Call(call)) => call.at,
            _ => 0,
        };
        if !cx.spend(1, src.place(at)) {
            return Flow::Stop;
        }
        let index = cx.inv.tensors.len();
        match form {
            Form::Array(array, own) => {
                let name = if path.is_empty() {
                    own.unwrap_or_default()
                } else {
                    path
                };
                let name = cx.name(name);
                cx.inv.tensors.push(array.tensor(name, src));
            }
            Form::OtherEval => {
                let name = cx.name(path);
                let decl = src.place(at).offset.unwrap_or(0);
                cx.inv
                    .tensors
                    .push(Tensor::declared(name, None, Vec::new(), decl));
                reported.insert(id);
                report_eval(cx, src, p, id, at, Some(index));
            }
        }
        Flow::Continue
    });
}

/// Reports the `eval` call `id` at `at`, about tensor `tensor` if an entry holds it.
fn report_eval(
    cx: &mut Context<'_>,
    src: &Source<'_>,
    p: &Pickle<'_>,
    id: Id,
    at: u64,
    tensor: Option<usize>,
) {
    let Some(Value::Call(call)) = p.value(id) else {
        return;
    };
    let what = effects::consequence(p, call.op, call.func, call.args);
    let mut place = src.place(at);
    if let Some(tensor) = tensor {
        place = place.item(Item::Tensor { tensor });
    }
    let entry = tensor
        .and_then(|t| cx.inv.tensors.get(t))
        .map(|t| format!(" for entry \"{}\"", t.name.display()))
        .unwrap_or_default();
    let message = format!("{what} — builtins.eval called by REDUCE at {}{entry}: paddle.save writes only eval('data', {{'data': array}}), and paddle.load runs any other expression", src.at(at));
    cx.report(&EVAL_NOT_PADDLE, place, message);
}
