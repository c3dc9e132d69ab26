//! The safe set: which globals a pickle may import and still be plain data.
//!
//! It is what `torch.load(weights_only=True)` allows by default (`TORCH`, the 144 globals of
//! torch 2.15.0's `_get_allowed_globals()`, listed in `tests/fixtures/pickle/
//! torch_safe_globals.txt` by `tests/fixtures/gen/torch_safe_globals.py`), plus what plain data
//! needs in any pickle (`DATA`): NumPy's array and scalar reconstruction, joblib's array wrapper
//! and the builtin containers. `INERT` lists standard-library types and builtins that
//! `weights_only` refuses but that run nothing when called with data (each justified in
//! PK011's documentation). Classes under the frameworks' module trees (`FRAMEWORK`) load a
//! whole model object and its module code. Everything else is unsafe: names are judged by the
//! whole path an import resolves to ([`super::names`]), so an attribute walk that passes a
//! Python internal is unsafe whatever its path, and no prefix of a walk is trusted.

use super::names::Resolved;
use crate::inventory::Trust;

/// `torch._weights_only_unpickler._get_allowed_globals()` of torch 2.15.0, sorted.
const TORCH: &[&str] = &[
    "_codecs.encode",
    "builtins.bytearray",
    "builtins.complex",
    "builtins.set",
    "collections.Counter",
    "collections.OrderedDict",
    "torch.BFloat16Storage",
    "torch.BFloat16Tensor",
    "torch.BoolStorage",
    "torch.BoolTensor",
    "torch.ByteStorage",
    "torch.ByteTensor",
    "torch.CharStorage",
    "torch.CharTensor",
    "torch.ComplexDoubleStorage",
    "torch.ComplexFloatStorage",
    "torch.DoubleStorage",
    "torch.DoubleTensor",
    "torch.FloatStorage",
    "torch.FloatTensor",
    "torch.HalfStorage",
    "torch.HalfTensor",
    "torch.IntStorage",
    "torch.IntTensor",
    "torch.LongStorage",
    "torch.LongTensor",
    "torch.QInt32Storage",
    "torch.QInt8Storage",
    "torch.QUInt2x4Storage",
    "torch.QUInt4x2Storage",
    "torch.QUInt8Storage",
    "torch.ShortStorage",
    "torch.ShortTensor",
    "torch.Size",
    "torch.Tensor",
    "torch._tensor._rebuild_from_type_v2",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor",
    "torch._utils._rebuild_device_tensor_from_numpy",
    "torch._utils._rebuild_meta_tensor_no_storage",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch._utils._rebuild_qtensor",
    "torch._utils._rebuild_sparse_tensor",
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_wrapper_subclass",
    "torch.bcomplex32",
    "torch.bfloat16",
    "torch.bits16",
    "torch.bits1x8",
    "torch.bits2x4",
    "torch.bits4x2",
    "torch.bits8",
    "torch.bool",
    "torch.complex128",
    "torch.complex32",
    "torch.complex64",
    "torch.cuda.BFloat16Storage",
    "torch.cuda.BFloat16Tensor",
    "torch.cuda.BoolStorage",
    "torch.cuda.BoolTensor",
    "torch.cuda.ByteStorage",
    "torch.cuda.ByteTensor",
    "torch.cuda.CharStorage",
    "torch.cuda.CharTensor",
    "torch.cuda.ComplexDoubleStorage",
    "torch.cuda.ComplexFloatStorage",
    "torch.cuda.DoubleStorage",
    "torch.cuda.DoubleTensor",
    "torch.cuda.FloatStorage",
    "torch.cuda.FloatTensor",
    "torch.cuda.HalfStorage",
    "torch.cuda.HalfTensor",
    "torch.cuda.IntStorage",
    "torch.cuda.IntTensor",
    "torch.cuda.LongStorage",
    "torch.cuda.LongTensor",
    "torch.cuda.ShortStorage",
    "torch.cuda.ShortTensor",
    "torch.cuda.sparse.BFloat16Tensor",
    "torch.cuda.sparse.ByteTensor",
    "torch.cuda.sparse.CharTensor",
    "torch.cuda.sparse.DoubleTensor",
    "torch.cuda.sparse.FloatTensor",
    "torch.cuda.sparse.HalfTensor",
    "torch.cuda.sparse.IntTensor",
    "torch.cuda.sparse.LongTensor",
    "torch.cuda.sparse.ShortTensor",
    "torch.device",
    "torch.float16",
    "torch.float32",
    "torch.float4_e2m1fn_x2",
    "torch.float64",
    "torch.float8_e4m3fn",
    "torch.float8_e4m3fnuz",
    "torch.float8_e5m2",
    "torch.float8_e5m2fnuz",
    "torch.float8_e8m0fnu",
    "torch.int1",
    "torch.int16",
    "torch.int2",
    "torch.int3",
    "torch.int32",
    "torch.int4",
    "torch.int5",
    "torch.int6",
    "torch.int64",
    "torch.int7",
    "torch.int8",
    "torch.nn.parameter.Parameter",
    "torch.per_channel_affine",
    "torch.per_channel_affine_float_qparams",
    "torch.per_channel_symmetric",
    "torch.per_tensor_affine",
    "torch.per_tensor_symmetric",
    "torch.qint32",
    "torch.qint8",
    "torch.quint2x4",
    "torch.quint4x2",
    "torch.quint8",
    "torch.serialization._get_layout",
    "torch.sparse.BFloat16Tensor",
    "torch.sparse.ByteTensor",
    "torch.sparse.CharTensor",
    "torch.sparse.DoubleTensor",
    "torch.sparse.FloatTensor",
    "torch.sparse.HalfTensor",
    "torch.sparse.IntTensor",
    "torch.sparse.LongTensor",
    "torch.sparse.ShortTensor",
    "torch.storage.TypedStorage",
    "torch.storage.UntypedStorage",
    "torch.uint1",
    "torch.uint16",
    "torch.uint2",
    "torch.uint3",
    "torch.uint32",
    "torch.uint4",
    "torch.uint5",
    "torch.uint6",
    "torch.uint64",
    "torch.uint7",
    "torch.uint8",
];

/// Globals that rebuild plain data, which `weights_only=True` refuses by default, sorted.
const DATA: &[&str] = &[
    "builtins.bytes",
    "builtins.dict",
    "builtins.frozenset",
    "builtins.list",
    "builtins.slice",
    "builtins.tuple",
    "collections.defaultdict",
    "collections.deque",
    "joblib.numpy_pickle.NumpyArrayWrapper",
    "numpy._core.multiarray._reconstruct",
    "numpy._core.multiarray.scalar",
    "numpy._core.numeric._frombuffer",
    "numpy.core.multiarray._reconstruct",
    "numpy.core.multiarray.scalar",
    "numpy.core.numeric._frombuffer",
    "numpy.dtype",
    "numpy.ndarray",
];

/// Standard-library types and builtins that run nothing but their own data handling when
/// called with the values a pickle can pass, sorted; PK011's documentation justifies each.
const INERT: &[&str] = &[
    "__future__.absolute_import",
    "__future__.annotations",
    "__future__.division",
    "__future__.generator_stop",
    "__future__.generators",
    "__future__.nested_scopes",
    "__future__.print_function",
    "__future__.unicode_literals",
    "__future__.with_statement",
    "argparse.Namespace",
    "builtins.abs",
    "builtins.bin",
    "builtins.bool",
    "builtins.chr",
    "builtins.divmod",
    "builtins.float",
    "builtins.hex",
    "builtins.int",
    "builtins.len",
    "builtins.max",
    "builtins.min",
    "builtins.object",
    "builtins.oct",
    "builtins.ord",
    "builtins.range",
    "builtins.round",
    "builtins.str",
    "collections.UserDict",
    "collections.UserList",
    "collections.UserString",
    "collections.abc.AsyncGenerator",
    "collections.abc.AsyncIterable",
    "collections.abc.AsyncIterator",
    "collections.abc.Awaitable",
    "collections.abc.ByteString",
    "collections.abc.Callable",
    "collections.abc.Collection",
    "collections.abc.Container",
    "collections.abc.Coroutine",
    "collections.abc.Generator",
    "collections.abc.Hashable",
    "collections.abc.ItemsView",
    "collections.abc.Iterable",
    "collections.abc.Iterator",
    "collections.abc.KeysView",
    "collections.abc.Mapping",
    "collections.abc.MappingView",
    "collections.abc.MutableMapping",
    "collections.abc.MutableSequence",
    "collections.abc.MutableSet",
    "collections.abc.Reversible",
    "collections.abc.Sequence",
    "collections.abc.Set",
    "collections.abc.Sized",
    "collections.abc.ValuesView",
    "copyreg.__newobj__",
    "copyreg.__newobj_ex__",
    "copyreg._reconstructor",
    "datetime.date",
    "datetime.datetime",
    "datetime.time",
    "datetime.timedelta",
    "datetime.timezone",
    "decimal.Decimal",
    "fractions.Fraction",
    "pathlib.Path",
    "pathlib.PosixPath",
    "pathlib.PurePath",
    "pathlib.PurePosixPath",
    "pathlib.PureWindowsPath",
    "pathlib.WindowsPath",
    "types.SimpleNamespace",
    "uuid.UUID",
];

/// Module trees whose classes are framework objects (a whole `nn.Module`, an optimizer):
/// loading one imports the framework's module code and needs `weights_only=False`.
const FRAMEWORK: &[&str] = &["torch.nn.modules.", "torch.nn.parameter.", "torch.optim."];

/// How far a resolved import can be trusted.
pub fn classify(resolved: &Resolved) -> Trust {
    let path = resolved.path.as_str();
    if resolved.dunder.is_some() {
        Trust::Unsafe
    } else if TORCH.binary_search(&path).is_ok() {
        Trust::Safe
    } else if DATA.binary_search(&path).is_ok() {
        Trust::Data
    } else if INERT.binary_search(&path).is_ok() {
        Trust::Inert
    } else if !resolved.walk && is_framework_class(path) {
        Trust::Module
    } else {
        Trust::Unsafe
    }
}

/// A class (a capitalised last component) under a framework's module tree.
fn is_framework_class(path: &str) -> bool {
    FRAMEWORK.iter().any(|tree| {
        path.strip_prefix(tree).is_some_and(|rest| {
            let class = rest.rsplit('.').next().unwrap_or(rest);
            class.starts_with(|c: char| c.is_ascii_uppercase())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::names::resolve;
    use super::*;

    #[test]
    fn the_tables_are_sorted_for_binary_search() {
        for table in [TORCH, DATA, INERT] {
            assert!(table.windows(2).all(|w| w[0] < w[1]), "{table:?}");
        }
    }

    #[test]
    fn the_torch_table_is_what_torch_allows() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pickle/torch_safe_globals.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let listed: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            listed, TORCH,
            "run tests/fixtures/gen/torch_safe_globals.py and copy its list"
        );
    }

    #[test]
    fn globals_are_classified_by_what_they_resolve_to() {
        let trust = |m, n, p| classify(&resolve(m, n, p));
        assert_eq!(trust("__builtin__", "set", 2), Trust::Safe);
        assert_eq!(trust("__builtin__", "eval", 2), Trust::Unsafe);
        assert_eq!(trust("torch._utils", "_rebuild_tensor_v2", 2), Trust::Safe);
        assert_eq!(
            trust("numpy._core.multiarray", "_reconstruct", 2),
            Trust::Data
        );
        assert_eq!(trust("collections.abc", "Iterable", 4), Trust::Inert);
        assert_eq!(trust("__future__", "annotations", 4), Trust::Inert);
        assert_eq!(trust("torch.nn.modules.linear", "Linear", 2), Trust::Module);
        assert_eq!(
            trust("torch.nn.modules.module", "register_module_forward_hook", 2),
            Trust::Unsafe
        );
        assert_eq!(trust("torch.hub", "load", 2), Trust::Unsafe);
        assert_eq!(trust("os", "system", 2), Trust::Unsafe);
        assert_eq!(trust("posix", "system", 2), Trust::Unsafe);
        // A walk is judged by the whole path it names, never by a prefix...
        assert_eq!(
            trust("torch.nn.modules.module", "torch.ctypes.CDLL", 4),
            Trust::Unsafe
        );
        // ...and a walk through a Python internal is unsafe whatever it names.
        assert_eq!(
            trust("torch.jit._pickle", "build_intlist.__class__", 4),
            Trust::Unsafe
        );
        assert_eq!(trust("torch", "_utils._rebuild_tensor_v2", 4), Trust::Safe);
    }
}
