//! The tensors llama.cpp's loader creates for an architecture, held to the file's: every
//! required one there (`check_tensor_dims: tensor 'X' not found`), each with the shape the
//! hyperparameters give it (`... has wrong shape`), none the loader does not create (`done_
//! getting_tensors: wrong number of tensors`), and no weight in an integer type no operation
//! of the architecture takes.

use super::hparams::Env;
use super::table::{name_of, Arch, Spec, TensorNeed};
use super::Reporter;
use crate::check::{Item, Place};
use crate::escape::{excerpt, EXCERPT};
use crate::formats::gguf::rules::{TENSOR_MISSING, TENSOR_SHAPE, TENSOR_TYPE, TENSOR_UNEXPECTED};
use crate::formats::shared::expr::{dims_shown, Scope, Value};
use crate::formats::shared::tensor_index::TensorIndex;
use crate::inventory::hashing::{HashMap, HashSet};
use crate::inventory::{DType, TensorId};

/// ggml's `GGML_MAX_DIMS`: `check_tensor_dims` compares this many, 1 past a shape's end.
const MAX_DIMS: usize = 4;

/// `blk.12.attn_q.weight` as the table writes it, `blk.%d.attn_q.weight`; other names as
/// they are.
fn pattern(name: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let Some(rest) = name.strip_prefix(b"blk.") else {
        return name.into();
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || rest.get(digits) != Some(&b'.') {
        return name.into();
    }
    let tail = rest.get(digits..).unwrap_or_default();
    [b"blk.%d".as_slice(), tail].concat().into()
}

/// What a record applicable to one file tensor says of its shape.
struct Wanted<'t> {
    spec: &'t Spec,
    dims: Vec<Option<u64>>,
    /// Whether its condition holds (rather than being unknown).
    holds: bool,
}

/// Checks the model's tensors against `arch`'s; returns those it does not expect.
pub fn check(r: &mut Reporter<'_, '_>, env: &mut Env, arch: &'static Arch) -> Vec<TensorId> {
    let layers = env
        .var("n_layer_loop")
        .and_then(Value::count)
        .filter(|&n| n <= 4096);
    let mut expected: HashSet<TensorId> = HashSet::default();
    let mut wanted: HashMap<TensorId, Vec<Wanted<'static>>> = HashMap::default();
    let mut name = String::new();
    for spec in &arch.tensors {
        let per_layer: Vec<Option<u64>> = match (spec.per_layer(), layers) {
            (true, Some(n)) => (0..n).map(Some).collect(),
            (true, None) => Vec::new(),
            (false, _) => vec![None],
        };
        for layer in per_layer {
            env.layer = layer;
            name_of(&mut name, spec.name, layer);
            let when = spec.when.as_ref().and_then(|w| w.holds(env));
            if when == Some(false) {
                continue;
            }
            match env.tensors.find(&r.cx.inv.tensors, name.as_bytes()) {
                None if spec.need == TensorNeed::Required && when == Some(true) => {
                    missing(r, &name, layer);
                }
                None => {}
                Some(id) => {
                    expected.insert(id);
                    let dims = (spec.dims.iter())
                        .map(|d| d.as_ref().and_then(|d| d.eval(env)).and_then(Value::count))
                        .collect();
                    let holds = when == Some(true);
                    wanted
                        .entry(id)
                        .or_default()
                        .push(Wanted { spec, dims, holds });
                }
            }
        }
    }
    env.layer = None;
    let mut ids: Vec<TensorId> = wanted.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        if let Some(w) = wanted.get(&id) {
            shape(r, w, id);
        }
        dtype(r, id);
    }
    unexpected(r, arch, &env.tensors, layers.map(|_| &expected))
}

fn missing(r: &mut Reporter<'_, '_>, name: &str, layer: Option<u64>) {
    let of = layer.map(|l| format!(" (layer {l})")).unwrap_or_default();
    let message = format!(
        "the model has no tensor \"{name}\"{of}, which {} creates for architecture {} and refuses the model without (\"check_tensor_dims: tensor '{name}' not found\")",
        r.version, r.arch
    );
    r.report(&TENSOR_MISSING, Place::FILE, message);
}

/// Whether `shape` is `dims`, as `check_tensor_dims` compares them: the first dimensions,
/// and 1 past the end of `dims`.
fn fits(shape: &[u64], dims: &[Option<u64>]) -> bool {
    let got = |i: usize| shape.get(i).copied().unwrap_or(1);
    shape.len() <= MAX_DIMS
        && (0..MAX_DIMS).all(|i| match dims.get(i) {
            Some(Some(want)) => got(i) == *want,
            Some(None) => true,
            None => got(i) == 1,
        })
}

/// Reports tensor `id` if its shape breaks the records applicable to it: every record whose
/// condition holds, or, where none does, one of those whose condition is unknown.
fn shape(r: &mut Reporter<'_, '_>, wanted: &[Wanted<'_>], id: TensorId) {
    let Some(tensor) = r.cx.inv.tensors.get(id) else {
        return;
    };
    if tensor.shape.len() > MAX_DIMS {
        return;
    }
    let sure = wanted.iter().filter(|w| w.holds);
    let first = match sure.clone().find(|w| !fits(&tensor.shape, &w.dims)) {
        Some(broken) => broken,
        None if wanted.iter().any(|w| w.holds) => return,
        None if wanted.iter().any(|w| fits(&tensor.shape, &w.dims)) => return,
        None => match wanted.first() {
            Some(first) => first,
            None => return,
        },
    };
    let want = dims_shown(first.spec.dims_text, &first.dims);
    let got: Vec<String> = tensor.shape.iter().map(u64::to_string).collect();
    let name = excerpt(tensor.name.as_bytes(), EXCERPT);
    let message = format!(
        "tensor \"{name}\" has shape [{}]; {} expects [{}] for architecture {} and refuses the model (\"check_tensor_dims: tensor '{name}' has wrong shape\")",
        got.join(", "),
        r.version,
        want,
        r.arch
    );
    let place = Place::at(tensor.decl_offset).item(Item::Tensor { tensor: id });
    r.report(&TENSOR_SHAPE, place, message);
}

/// Reports a tensor stored as integers: llama.cpp loads it, and the architecture's matrix
/// products, norms and lookups then stop on a type they have no kernel for.
fn dtype(r: &mut Reporter<'_, '_>, id: TensorId) {
    let Some(tensor) = r.cx.inv.tensors.get(id) else {
        return;
    };
    let Some(dt) = tensor
        .dtype
        .filter(|d| matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64))
    else {
        return;
    };
    let message = format!(
        "tensor \"{}\" is stored as {dt}; {} loads it, but architecture {} uses it in float operations (matrix products, norms, embedding lookups) that take float or quantized weights, not integers",
        excerpt(tensor.name.as_bytes(), EXCERPT),
        r.version,
        r.arch
    );
    let place = Place::at(tensor.decl_offset).item(Item::Tensor { tensor: id });
    r.report(&TENSOR_TYPE, place, message);
}

/// Reports the tensors the loader does not create: those no applicable record names
/// (`expected`), or, where the layer count is unknown, whose name with its layer as `%d` is
/// no record's. It counts the tensors it creates and refuses a file with any left over.
fn unexpected(
    r: &mut Reporter<'_, '_>,
    arch: &Arch,
    index: &TensorIndex,
    expected: Option<&HashSet<TensorId>>,
) -> Vec<TensorId> {
    let patterns: HashSet<&[u8]> = arch.tensors.iter().map(|s| s.name.as_bytes()).collect();
    let odd: Vec<TensorId> = (r.cx.inv.tensors.iter().enumerate())
        .filter(|(id, t)| match expected {
            // A second tensor of an expected name is a duplicate (GG011), not a stranger.
            Some(expected) => {
                let first = index.find(&r.cx.inv.tensors, t.name.as_bytes());
                !expected.contains(id) && !first.is_some_and(|f| expected.contains(&f))
            }
            None => !patterns.contains(&*pattern(t.name.as_bytes())),
        })
        .map(|(i, _)| i)
        .collect();
    for &id in &odd {
        let Some(tensor) = r.cx.inv.tensors.get(id) else {
            continue;
        };
        let message = format!(
            "tensor \"{}\" is not one {} creates for architecture {} with these hyperparameters; it counts the file's tensors and refuses a file with any left over (\"done_getting_tensors: wrong number of tensors\")",
            excerpt(tensor.name.as_bytes(), EXCERPT),
            r.version,
            r.arch
        );
        let place = Place::at(tensor.decl_offset).item(Item::Tensor { tensor: id });
        r.report(&TENSOR_UNEXPECTED, place, message);
    }
    odd
}

#[cfg(test)]
mod tests {
    use super::pattern;

    #[test]
    fn layer_numbers_become_the_tables_placeholder() {
        assert_eq!(&*pattern(b"blk.12.attn_q.weight"), b"blk.%d.attn_q.weight");
        assert_eq!(&*pattern(b"blk.x.attn_q.weight"), b"blk.x.attn_q.weight");
        assert_eq!(&*pattern(b"blk.3"), b"blk.3");
        assert_eq!(&*pattern(b"token_embd.weight"), b"token_embd.weight");
    }
}
