//! Rules of PyTorch files (codes PT001..): zip checkpoints, legacy checkpoints, TorchScript
//! and `torch.export` archives. The pickle rules (PK) and zip rules (ZP) apply too.
//! References: `torch/serialization.py`, `torch/_weights_only_unpickler.py` and
//! `caffe2/serialize/inline_container.cc` (torch 2.15.0); `tests/fixtures/pickle/verdicts.tsv`
//! records what torch and the scanners say about each fixture.

crate::rules! {
    group = ("PT", "PyTorch");
    /// The checkpoint is safe, but `torch.load(weights_only=True)` refuses it.
    ///
    /// ## What it does
    /// For a checkpoint whose imports are all in the safe set, reports the first thing the
    /// weights-only unpickler does not take: a global outside its allowlist (NumPy's
    /// `_reconstruct`, `builtins.tuple`, ...) or an opcode it does not implement (protocol 4
    /// `FRAME`, `SHORT_BINUNICODE`, `STACK_GLOBAL`, `MEMOIZE`, protocol 0 text opcodes,
    /// `LONG4`, `POP`, ...).
    ///
    /// ## Why
    /// `torch.load` defaults to `weights_only=True` since torch 2.6, so users get
    /// "Weights only load failed" and are told to pass `weights_only=False`, which also lets
    /// any malicious global run. A checkpoint saved with `torch.save(obj)` (protocol 2) of
    /// tensors and plain containers loads. picklescan, modelscan and fickling do not say that
    /// the file will not load.
    ///
    /// ## How to fix
    /// Save tensors, not NumPy arrays (`torch.from_numpy`), with torch's default pickle
    /// protocol; or allow the globals with `torch.serialization.add_safe_globals`.
    WEIGHTS_ONLY_REFUSES = ("PT001", "weights-only-refuses", Warning);
    /// A TorchScript archive: loading it compiles and runs its code.
    ///
    /// ## What it does
    /// Recognises `torch.jit.save` archives by their `code/` folder, lists each source file
    /// as code that loading runs, reads `data.pkl` and `constants.pkl` (whose `__torch__`
    /// classes are the archive's own), and reports the archive once.
    ///
    /// ## Why
    /// `torch.jit.load` compiles the TorchScript in `code/` and runs it when the model is
    /// called; the code can call any operator registered in the process. `torch.load`
    /// refuses the archive ("Cannot use weights_only=True with TorchScript archives").
    /// picklescan marks the `__torch__` classes suspicious; modelscan and fickling judge only
    /// the pickles.
    ///
    /// ## How to fix
    /// Load TorchScript only from sources you trust; for weights, save a `state_dict`.
    TORCHSCRIPT_CODE = ("PT002", "torchscript-code", Warning);
    /// A `torch.export` archive (`.pt2`): its program is listed, its weights read.
    ///
    /// ## What it does
    /// Recognises `torch.export.save` archives by `archive_format`, lists each program in
    /// `models/` as what loading runs, lists the weights that `model_weights_config.json`
    /// describes with their byte ranges, and reads the pickles the archive holds (sample
    /// inputs, pickled weights and constants) like any checkpoint.
    ///
    /// ## Why
    /// `torch.load` refuses the archive (no `data.pkl`); `torch.export.load` deserialises the
    /// program, loads the sample inputs with `torch.load(weights_only=True)` and, if that
    /// fails, again with `weights_only=False`, and loads pickled weights with
    /// `weights_only=False`: those pickles are where code can hide.
    ///
    /// ## How to fix
    /// Nothing to fix; informational.
    EXPORT_PROGRAM = ("PT003", "export-program", Info);
    /// A legacy checkpoint's magic number or protocol version is wrong.
    ///
    /// ## What it does
    /// Checks the pickles a legacy `torch.save` writes first: the magic number
    /// `0x1950a86a20f9469cfc6c` and the protocol version 1001. A file named as a PyTorch
    /// checkpoint (`.pt`, `.pth`, `.ckpt`, `pytorch_model.bin`) that is a bare pickle is
    /// reported here too, and its pickle judged.
    ///
    /// ## Why
    /// torch refuses the file ("Invalid magic number; corrupt file?"), but only after it
    /// unpickled the first pickle to read the magic number: with `weights_only=False`, a bare
    /// pickle's imports run before the refusal. picklescan warns and scans it as a plain
    /// pickle, modelscan skips it, and paddle.load reads the first pickle and returns an int.
    ///
    /// ## How to fix
    /// The file is corrupt or not a checkpoint; save it again.
    LEGACY_HEADER = ("PT004", "legacy-header", Error);
    /// A tensor's storage is not in the file.
    ///
    /// ## What it does
    /// Resolves each tensor's persistent id `('storage', type, key, location, numel)` to the
    /// archive member `<archive>/data/<key>`, or to the legacy storage stream, and reports
    /// a key with nothing there, at the `BINPERSID` that names it.
    ///
    /// ## Why
    /// torch refuses the checkpoint ("failed locating file data/0"). picklescan and modelscan
    /// check only imports and call the file safe.
    ///
    /// ## How to fix
    /// The file is incomplete or edited; save it again.
    STORAGE_MISSING = ("PT005", "storage-missing", Error);
    /// A storage holds fewer bytes than its tensor's shape, strides and offset reach, or than its persistent id declares.
    ///
    /// ## What it does
    /// Computes the storage each tensor reaches, `(storage_offset + 1 + Σ (size − 1) × stride)`
    /// elements of its dtype (a packed `quint4x2` or `quint2x4` tensor's bytes rounded up from
    /// its elements), and the bytes its persistent id declares, `numel` times the element size
    /// of the storage's type (an `UntypedStorage`, which `_rebuild_tensor_v3` uses, counts
    /// bytes), and compares both with the bytes the storage holds. Two tensors that view one
    /// storage share its bytes: that is not an overlap.
    ///
    /// ## Why
    /// torch refuses the checkpoint ("Trying to resize storage that is not resizable"; for a
    /// quantized tensor "setStorage: ... out of bounds for storage"); a loader that trusts the
    /// shape reads past the storage. Scanners call it safe.
    ///
    /// ## How to fix
    /// The file is corrupt or edited; save it again.
    STORAGE_TOO_SMALL = ("PT006", "storage-too-small", Error);
    /// A member of a PyTorch archive is outside the archive's folder.
    ///
    /// ## What it does
    /// Takes the archive's folder from its first member, as torch does, and reports every
    /// member not under it (members whose names escape with `..` or are absolute are ZP004).
    ///
    /// ## Why
    /// torch refuses the archive ("file in archive is not in a subdirectory"); a scanner that
    /// scans only the expected members misses what else the archive carries.
    ///
    /// ## How to fix
    /// Keep every member under one folder, as `torch.save` writes them.
    MEMBER_OUTSIDE_FOLDER = ("PT007", "member-outside-folder", Error);
    /// A pickle of a PyTorch archive is compressed.
    ///
    /// ## What it does
    /// Reports a `data.pkl` or `constants.pkl` member that is not stored as is. rtenx
    /// decompresses it (within the budget) and reads it anyway; its findings then point at the
    /// member's local header and give the position in the decompressed pickle.
    ///
    /// ## Why
    /// `torch.save` stores every member uncompressed; torch still loads a deflated pickle, but
    /// scanners that read only stored members, or look for opcodes in the raw bytes, see
    /// nothing. rtenx and picklescan name the import in the deflated fixture.
    ///
    /// ## How to fix
    /// Rewrite the archive with stored members, or save the checkpoint again.
    COMPRESSED_PICKLE = ("PT008", "compressed-pickle", Error);
    /// A PyTorch archive has no `data.pkl` and is no `torch.export` archive.
    ///
    /// ## What it does
    /// Reports an archive whose members are under one folder with PyTorch's record names
    /// (`version`, `byteorder`, `data/`) but without `<archive>/data.pkl`.
    ///
    /// ## Why
    /// torch refuses it ("failed locating file data.pkl"); the checkpoint holds no object.
    ///
    /// ## How to fix
    /// The file is incomplete; save it again.
    DATA_PKL_MISSING = ("PT009", "data-pkl-missing", Error);
    /// A tensor's rebuild arguments are not a usable shape, stride, offset or type.
    ///
    /// ## What it does
    /// Reads the arguments of `_rebuild_tensor_v2` and its relatives: a persistent id for
    /// the storage, an offset, a size tuple and a stride tuple of non-negative integers as
    /// long as each other, and a storage type or dtype torch knows; a sparse tensor's layout,
    /// parts and size; a quantized tensor's scheme, and for a per-channel one an axis inside
    /// the size and as many scales and zero points as the size along it. Then it holds the
    /// tensor to the limits torch checks before it reads a byte: the element count (the sizes
    /// multiplied in order) must not overflow 64 bits nor pass 2^63 − 1, and the storage the
    /// tensor reaches, `(storage_offset + 1 + Σ (size − 1) × stride) × element size`, must
    /// not overflow 64 bits at any step nor pass 2^63 − 1 bytes (a size of 0 reaches none).
    /// The message names the tensor, the field and its value, and the limit.
    ///
    /// ## Why
    /// torch refuses such a tensor ("numel: integer multiplication overflow", "Storage size
    /// calculation overflowed" from `computeStorageNbytes`, "unequal size length") or builds it
    /// wrongly; a reader that trusts a negative size computes a huge one, and one that
    /// computes the storage a stride of 2^62 reaches without overflow checks wraps it around
    /// to a few bytes (4 for a float32 `[4]` with stride 2^62) and reads out of bounds.
    /// picklescan and modelscan judge imports only and call such files safe; fickling rates
    /// them as it rates every checkpoint.
    ///
    /// ## How to fix
    /// The file is corrupt or hand-made; save it again.
    TENSOR_INVALID = ("PT010", "tensor-invalid", Error);
    /// A member of a PyTorch archive is a pickle that `torch.load` never reads.
    ///
    /// ## What it does
    /// Reads every member of the archive other than `data.pkl` (and TorchScript's
    /// `constants.pkl`), outside the storages under `data/`, and reports each that is a
    /// pickle by content, whatever its name. Its imports are judged like any other (PK001 for
    /// an unsafe one).
    ///
    /// ## Why
    /// torch reads only its own records, so a payload in `archive/extra.pkl` does not run on
    /// `torch.load`; but picklescan, modelscan and ModelAudit read every pickle member and
    /// flag it, and a person or script that unpacks the archive and loads the member runs it.
    /// `torch.save` writes no other pickle.
    ///
    /// ## How to fix
    /// Remove the member, or keep extra data outside the checkpoint, in a format that runs
    /// nothing (JSON, safetensors).
    UNREAD_PICKLE = ("PT011", "unread-pickle", Warning);
    /// A `torch.export` archive's weights or constants config is not what `torch.export.load` reads.
    ///
    /// ## What it does
    /// Reads each `data/weights/model_weights_config.json` and
    /// `data/constants/model_constants_config.json` of a `.pt2` archive with the budgeted JSON
    /// reader and reports the first thing wrong, at its byte: text that is not JSON, a document
    /// without a `config` object, an entry that is not an object, a `path_name` that is not a
    /// string, a `use_pickle` that is not a boolean, or a raw entry without `tensor_meta`. The
    /// weights of a config with such a fault are not listed.
    ///
    /// ## Why
    /// `torch.export.load` parses the config with `json.loads` and `_dict_to_dataclass` before it
    /// loads a weight, and refuses the archive on any of these (`JSONDecodeError`,
    /// `TypeError`, "payload_meta.tensor_meta cannot be None"). A reader that skips the config
    /// silently shows an archive that will not load as one without weights.
    ///
    /// ## How to fix
    /// The archive is corrupt or edited; save it again with `torch.export.save`.
    EXPORT_CONFIG_INVALID = ("PT012", "export-config-invalid", Error);
}

/// The message of [`LEGACY_HEADER`] where torch refuses a legacy checkpoint with `error`, for
/// the reason `why`.
pub(super) fn legacy_refused(error: &str, why: impl std::fmt::Display) -> String {
    format!("torch.load refuses the file (\"{error}\"): {why}")
}

/// The message of [`TENSOR_INVALID`]: torch fails on tensor `name`, rebuilt at `at`, for
/// `problem`.
pub(super) fn tensor_invalid(
    name: &crate::inventory::Name,
    at: impl std::fmt::Display,
    problem: impl std::fmt::Display,
) -> String {
    format!(
        "torch.load fails on tensor \"{}\" (rebuilt at {at}): {problem}",
        name.display()
    )
}

/// The message of [`EXPORT_CONFIG_INVALID`]: the config `member` is wrong as `what` says.
pub(super) fn config_invalid(member: &[u8], what: &str) -> String {
    format!(
        "torch.export.load refuses the payload config \"{}\": {what}",
        crate::escape::excerpt(member, crate::escape::EXCERPT)
    )
}
