//! Tensors rebuilt from `torch._utils._rebuild_tensor_v2` and its relatives: each with its
//! storage (a persistent id `('storage', type, key, location, numel)`), element type, shape,
//! strides and storage offset, placed at the storage's bytes. Views of one storage share it.

use super::dtypes;
use super::rules::{STORAGE_MISSING, STORAGE_TOO_SMALL, TENSOR_INVALID};
use crate::check::{Item, Place};
use crate::escape::excerpt;
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::ndarray::array;
use crate::formats::shared::pickle::walk::{self, Flow};
use crate::formats::shared::pickle::{Id, Pickle, Source, Tree, Value};
use crate::inventory::{DType, DataRange, Storage, Tensor, TensorView};

/// A storage as the container holds it.
pub struct Stored {
    /// Its bytes in the file, if they lie there as they are.
    pub range: Option<DataRange>,
    /// How many bytes it holds.
    pub len: u64,
    /// What to call it in a message, such as `archive/data/0`.
    pub label: String,
}

/// Finds the storage with a key.
pub type Storages<'s> = &'s dyn Fn(&[u8]) -> Option<Stored>;

/// Functions whose arguments start `(storage, storage_offset, size, stride)`.
const STRIDED: &[&str] = &[
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_qtensor",
];
/// Functions whose first argument is the tensor they wrap.
const WRAPPERS: &[&str] = &[
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch.nn.parameter.Parameter",
];
/// `_rebuild_from_type_v2(func, new_type, args, state)` calls `func(*args)`.
const FROM_TYPE: &str = "torch._tensor._rebuild_from_type_v2";
/// `_rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad)`: no data.
const META: &str = "torch._utils._rebuild_meta_tensor_no_storage";

/// Wrappers unwrapped at most: more is not a tensor torch writes.
const MAX_WRAPPING: usize = 4;

/// Whether `id` is a tensor.
pub fn is_tensor(tree: &impl Tree, id: Id) -> bool {
    tree.call_of(id, STRIDED).is_some()
        || tree.call_of(id, WRAPPERS).is_some()
        || tree.call_of(id, &[FROM_TYPE, META]).is_some()
}

/// A tensor as its rebuild call describes it.
struct Rebuilt<'t> {
    dtype: Option<DType>,
    shape: Vec<u64>,
    strides: Vec<u64>,
    offset: u64,
    storage: Option<Pid<'t>>,
}

/// A storage's persistent id.
struct Pid<'t> {
    key: &'t [u8],
    numel: u64,
    at: u64,
}

/// Lists the tensors (and NumPy arrays) under `root` by key path, reading storages with
/// `storages`.
pub fn list(
    cx: &mut Context<'_>,
    src: &Source<'_>,
    p: &Pickle<'_>,
    root: Id,
    storages: Storages<'_>,
) {
    let is_leaf = |id| is_tensor(p, id) || array(p, id).is_some();
    walk::leaves(p, root, is_leaf, |path, id| {
        let at = match p.value(id) {
            Some(Value::Call(call)) => call.at,
            _ => 0,
        };
        if !cx.spend(1, src.place(at)) {
            return Flow::Stop;
        }
        let name = cx.name(path);
        if let Some(found) = array(p, id) {
            cx.inv.tensors.push(found.tensor(name, src));
            return Flow::Continue;
        }
        let index = cx.inv.tensors.len();
        let item = Item::Tensor { tensor: index };
        let decl = src.place(at).offset.unwrap_or(0);
        let rebuilt = match rebuild(p, id, 0) {
            Ok(rebuilt) => rebuilt,
            Err(problem) => {
                cx.inv
                    .tensors
                    .push(Tensor::declared(name.clone(), None, Vec::new(), decl));
                let message = format!(
                    "tensor \"{}\" rebuilt at {}: {problem}",
                    name.display(),
                    src.at(at)
                );
                cx.report(&TENSOR_INVALID, src.place(at).item(item), message);
                return Flow::Continue;
            }
        };
        let tensor = Tensor::declared(name, rebuilt.dtype, rebuilt.shape.clone(), decl);
        let tensor = place(cx, src, tensor, &rebuilt, item, storages);
        cx.inv.tensors.push(tensor);
        Flow::Continue
    });
}

/// Places `tensor` in its storage and records it as a view, reporting a storage that is
/// missing or too small.
fn place(
    cx: &mut Context<'_>,
    src: &Source<'_>,
    tensor: Tensor,
    rebuilt: &Rebuilt<'_>,
    item: Item,
    storages: Storages<'_>,
) -> Tensor {
    let Some(pid) = &rebuilt.storage else {
        return tensor;
    };
    let shown = tensor.name.display().into_owned();
    let key = excerpt(pid.key, 100);
    let Some(stored) = storages(pid.key) else {
        let message = format!("tensor \"{shown}\"'s storage key '{key}' (persistent id at {}) names no storage in the file", src.at(pid.at));
        cx.report(&STORAGE_MISSING, src.place(pid.at).item(item), message);
        return Tensor {
            storage: Storage::Missing,
            ..tensor
        };
    };
    let view = TensorView {
        tensor: match item {
            Item::Tensor { tensor } => tensor,
            _ => 0,
        },
        storage: cx.name(pid.key),
        storage_offset: rebuilt.offset,
        strides: rebuilt.strides.clone(),
    };
    let element = rebuilt.dtype.and_then(|d| d.byte_size(1));
    let reach = view
        .extent(&rebuilt.shape)
        .zip(element)
        .and_then(|(n, e)| n.checked_mul(e));
    let declared = element.and_then(|e| pid.numel.checked_mul(e));
    let need = reach.max(declared);
    if need.is_none_or(|need| need > stored.len) {
        let at = stored
            .range
            .map_or(src.place(pid.at), |r| Place::at(r.offset));
        let need = need.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string());
        let message = format!(
            "tensor \"{shown}\" ({} {:?}, strides {:?}, offset {}) and its storage's numel {} need {need} bytes of storage {}, which holds {}",
            rebuilt.dtype.map_or("?", DType::name),
            rebuilt.shape,
            rebuilt.strides,
            rebuilt.offset,
            pid.numel,
            stored.label,
            stored.len
        );
        cx.report(&STORAGE_TOO_SMALL, at.item(item), message);
    }
    if cx.spend(1, Place::FILE) {
        cx.inv.views.push(view);
    }
    let storage = if stored.range.is_some() {
        Storage::External
    } else {
        Storage::Inline
    };
    match stored.range {
        Some(range) => tensor.stored(storage, range),
        None => Tensor { storage, ..tensor },
    }
}

/// What the rebuild call `id` says, or what is wrong with it.
fn rebuild<'t, T: Tree>(tree: &'t T, id: Id, depth: usize) -> Result<Rebuilt<'t>, String> {
    let Some(Value::Call(call)) = tree.value(id) else {
        return Err("the value is not a rebuild call".into());
    };
    let path = tree.global(call.func).unwrap_or_default();
    let args = tree
        .items(call.args)
        .ok_or("its arguments are not a tuple")?;
    if WRAPPERS.contains(&path.as_str()) {
        let inner = *args.first().ok_or("its wrapper has no tensor")?;
        if depth >= MAX_WRAPPING {
            return Err(format!("tensors wrapped more than {MAX_WRAPPING} deep"));
        }
        return rebuild(tree, inner, depth + 1);
    }
    if path == FROM_TYPE {
        let [func, _, inner, ..] = args else {
            return Err("_rebuild_from_type_v2 takes 4 arguments".into());
        };
        let func = tree.global(*func).unwrap_or_default();
        let inner = tree
            .items(*inner)
            .ok_or("_rebuild_from_type_v2's arguments are not a tuple")?;
        return strided(tree, &func, inner);
    }
    if path == META {
        let [dtype, size, stride, ..] = args else {
            return Err("_rebuild_meta_tensor_no_storage takes 4 arguments".into());
        };
        let dtype = tree.global(*dtype).and_then(|d| dtypes::of_dtype(&d));
        let (shape, strides) = dims(tree, *size, *stride)?;
        return Ok(Rebuilt {
            dtype,
            shape,
            strides,
            offset: 0,
            storage: None,
        });
    }
    strided(tree, &path, args)
}

/// A call of a strided rebuild function `path` with `args`.
fn strided<'t, T: Tree>(tree: &'t T, path: &str, args: &[Id]) -> Result<Rebuilt<'t>, String> {
    if !STRIDED.contains(&path) {
        return Err(format!("{path} is no tensor rebuild function"));
    }
    let [storage, offset, size, stride, rest @ ..] = args else {
        return Err(format!(
            "{path} takes at least 4 arguments, not {}",
            args.len()
        ));
    };
    let offset = tree
        .int(*offset)
        .and_then(|o| u64::try_from(o).ok())
        .ok_or("the storage offset is not a non-negative integer")?;
    let (shape, strides) = dims(tree, *size, *stride)?;
    let Some(&Value::Persistent { pid, at: pid_at }) = tree.value(*storage) else {
        return Err("the storage is not a persistent id".into());
    };
    let items = tree.items(pid).ok_or("the persistent id is not a tuple")?;
    let [kind, class, key, _, numel, ..] = items else {
        return Err("the persistent id is not ('storage', type, key, location, numel)".into());
    };
    if tree.str(*kind) != Some(b"storage") {
        return Err("the persistent id does not start with 'storage'".into());
    }
    let key = tree.str(*key).ok_or("the storage key is not a string")?;
    let numel = tree
        .int(*numel)
        .and_then(|n| u64::try_from(n).ok())
        .ok_or("the storage's numel is not a non-negative integer")?;
    let class = tree.global(*class).unwrap_or_default();
    // _rebuild_tensor_v3 passes the dtype of an untyped storage as its seventh argument.
    let dtype = match (path, rest) {
        ("torch._utils._rebuild_tensor_v3", [_, _, dtype, ..]) => {
            tree.global(*dtype).and_then(|d| dtypes::of_dtype(&d))
        }
        _ => dtypes::of_storage(&class),
    };
    if dtype.is_none() {
        return Err(format!(
            "the storage type \"{}\" is not one torch defines",
            excerpt(class.as_bytes(), 100)
        ));
    }
    Ok(Rebuilt {
        dtype,
        shape,
        strides,
        offset,
        storage: Some(Pid {
            key,
            numel,
            at: pid_at,
        }),
    })
}

/// The size and stride tuples, non-negative and as long as each other.
fn dims(tree: &impl Tree, size: Id, stride: Id) -> Result<(Vec<u64>, Vec<u64>), String> {
    let to_u64 = |id, what: &str| -> Result<Vec<u64>, String> {
        let values = tree
            .ints(id)
            .ok_or(format!("the {what} is not a tuple of integers"))?;
        values
            .iter()
            .map(|&v| {
                u64::try_from(v).map_err(|_| format!("the {what} {values:?} has a negative value"))
            })
            .collect()
    };
    let shape = to_u64(size, "size")?;
    let strides = to_u64(stride, "stride")?;
    if shape.len() != strides.len() {
        return Err(format!(
            "size {shape:?} and stride {strides:?} differ in length"
        ));
    }
    Ok((shape, strides))
}
