//! Rules specific to GGUF files (codes GG001..). References: the GGUF specification
//! (ggml `docs/gguf.md`), llama.cpp's loader (`ggml/src/gguf.cpp`) and gguf-py's
//! `GGUFReader`; `tests/fixtures/gguf/verdicts.tsv` records what both loaders say about each
//! fixture.

crate::rules! {
    group = ("GG", "GGUF");
    /// The header's version is not 2 or 3.
    ///
    /// ## What it does
    /// Reads the `u32` version after the `GGUF` magic. Version 3 is current, version 2 used
    /// the same layout with 64-bit counts, and version 1 used 32-bit counts.
    ///
    /// ## Why
    /// llama.cpp refuses version 1 ("GGUFv1 is no longer supported"), version 0 and any
    /// version above the newest it knows. A different number means the file is corrupt or
    /// from a newer writer.
    ///
    /// ## How to fix
    /// Convert the model again with a current `convert_hf_to_gguf.py` or gguf-py.
    UNSUPPORTED_VERSION = ("GG001", "gguf-version", Error);
    /// The file is in big-endian byte order.
    ///
    /// ## What it does
    /// Detects a version whose low 16 bits are zero: its bytes are swapped, so the whole
    /// file is big-endian. rtenx reads it in that order.
    ///
    /// ## Why
    /// llama.cpp reads files in the machine's own byte order and refuses this one on every
    /// little-endian machine ("the file appears to be in the wrong byte order"); gguf-py
    /// reads it. Such files are made for big-endian machines (s390x) only.
    ///
    /// ## How to fix
    /// Convert without `--bigendian` unless the model is meant for a big-endian machine.
    BYTE_ORDER = ("GG002", "byte-order", Error);
    /// The tensor or key-value count cannot fit in the file.
    ///
    /// ## What it does
    /// Compares each count with the smallest size that many entries can take (a key-value
    /// pair at least 12 bytes, a tensor info at least 24, an array item at least its size).
    ///
    /// ## Why
    /// A count larger than the file is how the integer-overflow attacks on GGUF loaders
    /// begin (CVE-2025-53630, CVE-2026-27940): a loader that allocates for the count before
    /// reading runs out of memory or overflows the allocation size.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile; do not load it.
    COUNT_TOO_LARGE = ("GG003", "count-too-large", Error);
    /// A field, string or array runs past the end of the file.
    ///
    /// ## What it does
    /// Reads every header field, key, value and tensor info with its length checked against
    /// the bytes left, and reports the first that does not fit with its declared length.
    ///
    /// ## Why
    /// Loaders that trust a string or array length read past their buffer; current
    /// llama.cpp refuses the file. Usually the file was cut short in a download.
    ///
    /// ## How to fix
    /// Download or copy the file again and compare its size with the source.
    TRUNCATED = ("GG004", "truncated", Error);
    /// A key-value pair has a value type GGUF does not define.
    ///
    /// ## What it does
    /// Checks each value type (and each array's item type) against the 13 types 0 to 12.
    ///
    /// ## Why
    /// The size of an unknown value is unknown, so nothing after it can be read. llama.cpp
    /// refuses the file ("has invalid GGUF type").
    ///
    /// ## How to fix
    /// The file is corrupt or from an incompatible writer.
    UNKNOWN_VALUE_TYPE = ("GG005", "unknown-value-type", Error);
    /// An array holds arrays.
    ///
    /// ## What it does
    /// Reports an array whose item type is array.
    ///
    /// ## Why
    /// llama.cpp refuses nested arrays, and rtenx stops reading the metadata there, as a
    /// nested array's size is only known by reading every inner array.
    ///
    /// ## How to fix
    /// Store the values flat, or as several keys.
    NESTED_ARRAY = ("GG006", "nested-array", Error);
    /// A bool value is neither 0 nor 1.
    ///
    /// ## What it does
    /// Checks every bool value, and every item of a bool array.
    ///
    /// ## Why
    /// The specification says any other byte is invalid and should be rejected by
    /// readers. llama.cpp and gguf-py accept it, and read it as true.
    ///
    /// ## How to fix
    /// Write the file again with a conforming writer.
    BOOL_VALUE = ("GG007", "bool-value", Error);
    /// A metadata key is empty.
    ///
    /// ## What it does
    /// Reports a key of length 0.
    ///
    /// ## Why
    /// Keys name the model's hyperparameters; an empty one can never be looked up and is
    /// not a key the specification allows.
    ///
    /// ## How to fix
    /// Remove the entry or give it its name.
    EMPTY_KEY = ("GG008", "empty-key", Error);
    /// Two metadata entries have the same key.
    ///
    /// ## What it does
    /// Reports every repeat of a key, naming the first.
    ///
    /// ## Why
    /// llama.cpp refuses the file ("duplicate key"); a reader that keeps the first or the
    /// last value would see another model than one that keeps the other.
    ///
    /// ## How to fix
    /// Write each key once.
    DUPLICATE_KEY = ("GG009", "duplicate-gguf-key", Error);
    /// A metadata key breaks GGUF's naming convention.
    ///
    /// ## What it does
    /// Keys are ASCII `lower_snake_case` segments separated by `.`, at most 65,535 bytes.
    ///
    /// ## Why
    /// Loaders look keys up by their conventional names: a key in other spelling is never
    /// read, and one with control characters or spaces is likely corrupt.
    ///
    /// ## How to fix
    /// Rename the key to the convention (`llama.context_length`, `general.name`).
    KEY_NAMING = ("GG010", "key-naming", Warning);
    /// Two tensors have the same name.
    ///
    /// ## What it does
    /// Reports every repeat of a tensor name, naming the first.
    ///
    /// ## Why
    /// llama.cpp refuses the file ("duplicate tensor name"): tensors are found by name.
    ///
    /// ## How to fix
    /// Convert the model again.
    DUPLICATE_TENSOR = ("GG011", "duplicate-tensor", Error);
    /// A tensor name is 64 bytes or longer.
    ///
    /// ## What it does
    /// Compares each name's length with `GGML_MAX_NAME` (64, including the terminating zero
    /// ggml stores).
    ///
    /// ## Why
    /// llama.cpp refuses the file ("tensor name is too long"); ggml cannot store the name.
    ///
    /// ## How to fix
    /// Shorten the tensor names in the converter.
    TENSOR_NAME_TOO_LONG = ("GG012", "tensor-name-too-long", Error);
    /// A tensor has more than 4 dimensions.
    ///
    /// ## What it does
    /// Compares each tensor's `n_dims` with `GGML_MAX_DIMS` (4).
    ///
    /// ## Why
    /// ggml tensors have at most 4 dimensions; llama.cpp refuses the file, and a loader that
    /// copies `n_dims` entries into a 4-entry array writes past it (gguf-tools#25).
    ///
    /// ## How to fix
    /// Reshape the tensor to 4 dimensions or fewer before writing.
    TOO_MANY_DIMS = ("GG013", "too-many-dims", Error);
    /// A dimension is negative, or the element count overflows a signed 64-bit integer.
    ///
    /// ## What it does
    /// Reads each dimension as ggml does (a signed 64-bit integer) and multiplies them with
    /// overflow checks.
    ///
    /// ## Why
    /// ggml computes sizes in `int64_t`; an overflowing product makes a loader allocate too
    /// little and read past it (ggml#709). llama.cpp refuses the file.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile; do not load it.
    DIM_INVALID = ("GG014", "dim-invalid", Error);
    /// A tensor's GGML type id is not one ggml defines.
    ///
    /// ## What it does
    /// Looks the type id up in ggml's type table.
    ///
    /// ## Why
    /// Without the type, neither the tensor's size nor the place of the next one is known.
    /// llama.cpp refuses the file ("invalid ggml type").
    ///
    /// ## How to fix
    /// The file is corrupt, or needs a newer ggml than rtenx knows.
    UNKNOWN_TYPE = ("GG015", "unknown-type", Error);
    /// A tensor uses a GGML type that ggml has removed.
    ///
    /// ## What it does
    /// Reports the ids of removed types: Q4_2 and Q4_3 (4, 5), Q4_0_4_4, Q4_0_4_8 and
    /// Q4_0_8_8 (31 to 33) and IQ4_NL_4_4, IQ4_NL_4_8 and IQ4_NL_8_8 (36 to 38).
    ///
    /// ## Why
    /// Current llama.cpp has no size for these types and refuses the file; the repacked
    /// Q4_0 variants are now made at load time instead.
    ///
    /// ## How to fix
    /// Quantize the model again from its original weights.
    REMOVED_TYPE = ("GG016", "removed-type", Error);
    /// A tensor's rows are not a whole number of blocks.
    ///
    /// ## What it does
    /// Checks that the first dimension (the row length) is a multiple of the type's block
    /// size, such as 32 for Q4_0 or 256 for the K-quants.
    ///
    /// ## Why
    /// Quantized rows are stored in whole blocks; llama.cpp refuses the file.
    ///
    /// ## How to fix
    /// Quantize this tensor to a type whose block size divides its rows, or leave it in F16.
    ROW_NOT_WHOLE_BLOCKS = ("GG017", "row-not-whole-blocks", Error);
    /// A tensor's offset is not a multiple of the alignment.
    ///
    /// ## What it does
    /// Checks each tensor's offset in the data section against `general.alignment`
    /// (32 when it is not set).
    ///
    /// ## Why
    /// Tensors are memory-mapped in place; llama.cpp refuses a misaligned one.
    ///
    /// ## How to fix
    /// Write the file with a GGUF writer, which pads each tensor.
    OFFSET_MISALIGNED = ("GG018", "offset-misaligned", Error);
    /// A tensor does not start where the tensors before it end.
    ///
    /// ## What it does
    /// Adds up the tensors' sizes, each padded to the alignment, in the order of their infos,
    /// and compares each offset with that sum, as llama.cpp does.
    ///
    /// ## Why
    /// llama.cpp refuses the file ("tensor has offset X, expected Y"). A different offset
    /// means overlapping tensors, a gap, or tensors stored out of order.
    ///
    /// ## How to fix
    /// Write the file with a GGUF writer.
    OFFSET_UNEXPECTED = ("GG019", "offset-unexpected", Error);
    /// `general.alignment` is zero, not a power of two, or not a `u32`.
    ///
    /// ## What it does
    /// Checks the alignment key's type and value.
    ///
    /// ## Why
    /// llama.cpp refuses an alignment that is not a power of two; one of another type made
    /// older loaders abort.
    ///
    /// ## How to fix
    /// Remove the key (the default is 32) or set it to a power of two as a `u32`.
    ALIGNMENT_INVALID = ("GG020", "alignment-invalid", Error);
    /// `general.alignment` is not a multiple of 8.
    ///
    /// ## What it does
    /// Checks a valid alignment against the specification's rule that it be a multiple of 8.
    ///
    /// ## Why
    /// llama.cpp accepts 1, 2 and 4, but 64-bit values in tensors are then misaligned.
    ///
    /// ## How to fix
    /// Use the default, 32.
    ALIGNMENT_UNUSUAL = ("GG021", "alignment-unusual", Warning);
    /// `general.architecture` is missing.
    ///
    /// ## What it does
    /// Looks for the string key `general.architecture`.
    ///
    /// ## Why
    /// The specification requires it, and llama.cpp's model loader cannot choose a model
    /// without it ("key not found in model: general.architecture").
    ///
    /// ## How to fix
    /// Add the architecture (such as `llama`) when converting.
    ARCHITECTURE_MISSING = ("GG022", "architecture-missing", Error);
    /// The layer count in the metadata disagrees with the layers the tensors hold.
    ///
    /// ## What it does
    /// Compares `<architecture>.block_count` with the layers named by `blk.N.` tensors.
    ///
    /// ## Why
    /// llama.cpp builds one layer per block and looks up its tensors: a count above the
    /// layers present fails with a missing tensor, one below leaves weights unused.
    ///
    /// ## How to fix
    /// Convert the model again; a hand-edited count does not change the tensors.
    LAYER_COUNT = ("GG023", "layer-count", Error);
    /// A chat template reaches for Python internals.
    ///
    /// ## What it does
    /// Looks in every `tokenizer.chat_template` key for the names a Jinja sandbox escape
    /// uses: `__class__`, `__mro__`, `__subclasses__`, `__globals__`, `__builtins__`,
    /// `__import__`, and `import` statements.
    ///
    /// ## Why
    /// Front ends render the template with Jinja; llama-cpp-python rendered it unsandboxed,
    /// which ran code from the model file (CVE-2024-34359). No real chat template needs
    /// these names.
    ///
    /// ## How to fix
    /// Do not run the model with a front end that renders its template; replace the template.
    CHAT_TEMPLATE = ("GG024", "chat-template", Warning);
    /// A quantized model has no `general.quantization_version`.
    ///
    /// ## What it does
    /// Looks for the key when any tensor is of a quantized type.
    ///
    /// ## Why
    /// The specification requires it for quantized models, so that loaders can tell block
    /// layouts of different ggml versions apart.
    ///
    /// ## How to fix
    /// Quantize with a current `llama-quantize`, which writes it.
    QUANTIZATION_VERSION = ("GG025", "quantization-version", Warning);
    /// A part of a split model is missing.
    ///
    /// ## What it does
    /// Looks beside the first part for every `NAME-0000K-of-0000N.gguf`.
    ///
    /// ## Why
    /// llama.cpp loads all parts and fails without one.
    ///
    /// ## How to fix
    /// Download the missing part.
    SPLIT_PART_MISSING = ("GG026", "split-part-missing", Error);
    /// A split model's parts disagree with each other or with their names.
    ///
    /// ## What it does
    /// Checks each part's `split.no`, `split.count` and the first part's
    /// `split.tensors.count` against the file names and the tensors the parts hold, and that
    /// no part is another one under a second name (a hard link), which is read once. A later
    /// part checked on its own is compared with its own name (`-00002-of-00003` wants
    /// `split.no` 1 and `split.count` 3).
    ///
    /// ## Why
    /// llama.cpp refuses a split whose counts disagree; a part renamed or from another model
    /// would load the wrong weights.
    ///
    /// ## How to fix
    /// Split the model again with `llama-gguf-split`.
    SPLIT_MISMATCH = ("GG027", "split-mismatch", Error);
    /// `general.architecture` is not lowercase letters and digits.
    ///
    /// ## What it does
    /// Checks the architecture name against the specification's `[a-z0-9]+`, unless it is a
    /// name llama.cpp knows (`command-r`, `nomic-bert` and others break the rule).
    ///
    /// ## Why
    /// Loaders choose the model by this name and prefix its hyperparameter keys with it;
    /// llama.cpp refuses an architecture it does not know ("unknown model architecture"). gguf-py reads the file.
    ///
    /// ## How to fix
    /// Set the name the converter uses for the architecture, such as `llama`.
    ARCHITECTURE_INVALID = ("GG028", "architecture-invalid", Error);
    /// A key, string value or tensor name is not UTF-8.
    ///
    /// ## What it does
    /// Validates every string of the file as UTF-8: keys, string values, the strings of
    /// arrays (reported once per array, at the first, with how many are not) and tensor names.
    ///
    /// ## Why
    /// The specification defines a GGUF string as UTF-8. llama.cpp copies the bytes without
    /// looking; gguf-py refuses the file when a key or a tensor name is not UTF-8
    /// (`UnicodeDecodeError`), and fails on a string value or vocabulary entry when it is read
    /// (`ReaderField.contents`), so converters, `gguf-dump` and Python loaders break on it.
    ///
    /// ## How to fix
    /// Convert the model again; store bytes that are not text in an array of `u8`.
    STRING_NOT_UTF8 = ("GG029", "string-not-utf8", Error);
    /// A string is longer than llama.cpp reads.
    ///
    /// ## What it does
    /// Compares each string's declared length with llama.cpp's `GGUF_MAX_STRING_LENGTH`,
    /// 1,073,741,824 bytes (1 GiB), before anything else, as llama.cpp does: a longer string is
    /// reported whether or not the file holds that many bytes.
    ///
    /// ## Why
    /// llama.cpp refuses the file ("string length ... exceeds maximum"). No key, value or
    /// name of a real model comes near the limit; a length this large is corrupt or meant to
    /// make a reader allocate it.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile; store large data as a tensor, not as a string.
    STRING_TOO_LONG = ("GG030", "string-too-long", Error);
    /// An array has more items than llama.cpp reads.
    ///
    /// ## What it does
    /// Compares each array's item count with llama.cpp's `GGUF_MAX_ARRAY_ELEMENTS`,
    /// 1,073,741,824 items, before anything else, as llama.cpp does: a longer array is
    /// reported whether or not the file holds that many items.
    ///
    /// ## Why
    /// llama.cpp refuses the file; it checks this limit before the item count times the
    /// item size (which cannot overflow below it) and the bytes left. The largest real
    /// arrays, vocabularies, hold a few hundred thousand items.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile; store large data as a tensor, not as an array.
    ARRAY_TOO_LONG = ("GG031", "array-too-long", Error);
    /// `general.architecture` names no architecture llama.cpp knows.
    ///
    /// ## What it does
    /// Looks the name up in llama.cpp's `LLM_ARCH_NAMES`, from the table generated from its
    /// sources (`schema/llama_arch.tsv`).
    ///
    /// ## Why
    /// llama.cpp chooses the model's code by this name and refuses a name it does not know
    /// ("unknown model architecture"). A typo in a converter, or a model for a newer
    /// llama.cpp than the one that will run it, looks like this.
    ///
    /// ## How to fix
    /// Convert with the `convert_hf_to_gguf.py` of the llama.cpp that will run the model, or
    /// update that llama.cpp.
    ARCHITECTURE_UNKNOWN = ("GG032", "architecture-unknown", Error);
    /// The architecture is not checked against llama.cpp's tensors.
    ///
    /// ## What it does
    /// Reports, once, a model whose architecture llama.cpp knows but whose tensors rtenx's
    /// table does not list; its hyperparameters that every architecture reads are still
    /// checked.
    ///
    /// ## Why
    /// "Will it load?" is answered only for the architectures in the table; for the others
    /// rtenx says so rather than guess.
    ///
    /// ## How to fix
    /// Nothing to fix in the model. Load it with llama.cpp to be sure.
    ARCHITECTURE_NOT_CHECKED = ("GG033", "architecture-not-checked", Info);
    /// A hyperparameter llama.cpp requires is missing.
    ///
    /// ## What it does
    /// Looks up every key llama.cpp's `load_hparams` reads with `get_key(..., required)`
    /// (`<arch>.block_count`, `<arch>.embedding_length`, `<arch>.context_length`, and the
    /// architecture's own), from the generated table.
    ///
    /// ## Why
    /// llama.cpp refuses the model: "key not found in model".
    ///
    /// ## How to fix
    /// Convert the model again with a current converter, or add the key with
    /// `gguf-py`'s `gguf_set_metadata.py` / `gguf_new_metadata.py`.
    HPARAM_MISSING = ("GG034", "hparam-missing", Error);
    /// A hyperparameter has a GGUF type llama.cpp does not take for it.
    ///
    /// ## What it does
    /// Compares each key's GGUF type with the one type `llama_model_loader::get_key` takes
    /// for it (a `u32` for counts, an `f32` for epsilons, a string, a bool), and a per-layer
    /// array with the item types and the length (the layer count) `get_key_or_arr` takes.
    ///
    /// ## Why
    /// llama.cpp refuses the model, even for an optional key: "key has wrong type" or "wrong
    /// array length". `block_count` written as a string or an `i64` is a converter bug.
    ///
    /// ## How to fix
    /// Write the key again with the type the table names.
    HPARAM_TYPE = ("GG035", "hparam-type", Error);
    /// A hyperparameter has a value llama.cpp asserts against, or one that cannot work.
    ///
    /// ## What it does
    /// Evaluates the conditions llama.cpp's loader enforces (`GGML_ASSERT(n_layer > 0)`,
    /// expert counts, `n_rot` for llama) and rtenx's own, stricter checks for the
    /// attention models of the table: no empty embedding, heads and key-value heads above
    /// 0, key-value heads dividing the heads, heads dividing the embedding where no key
    /// length says the head size, rope dimensions within a head, a context above 0, and
    /// normalisation epsilons that are positive finite numbers. The message shows each
    /// value and what llama.cpp does with it.
    ///
    /// ## Why
    /// Some of these make llama.cpp refuse the model or abort the whole process; the others
    /// it loads without a word, and then produces NaN, garbage or a crash at the first
    /// token.
    ///
    /// ## How to fix
    /// Take the value from the original model's `config.json` and convert again.
    HPARAM_INVALID = ("GG036", "hparam-invalid", Error);
    /// A tensor the architecture needs is missing.
    ///
    /// ## What it does
    /// Lists the tensors llama.cpp's `load_tensors` creates for the architecture and these
    /// hyperparameters (per layer, with the conditions the loader tests), from the
    /// generated table, and reports each required one the file lacks.
    ///
    /// ## Why
    /// llama.cpp refuses the model: "check_tensor_dims: tensor 'blk.1.ffn_down.weight' not
    /// found". Optional tensors (an `output.weight` the embedding stands in for, biases)
    /// are not reported.
    ///
    /// ## How to fix
    /// The conversion dropped it, or the file is cut short: convert again.
    TENSOR_MISSING = ("GG037", "tensor-missing", Error);
    /// A tensor's shape is not the one the architecture computes.
    ///
    /// ## What it does
    /// Evaluates each tensor's shape from the hyperparameters as llama.cpp's loader writes
    /// it (`{n_embd, n_ff}`) and compares it dimension by dimension, as `check_tensor_dims`
    /// does; the message shows each expression with its value.
    ///
    /// ## Why
    /// llama.cpp refuses the model: "tensor 'X' has wrong shape; expected [...], got
    /// [...]". A transposed weight or hyperparameters from another model size look like
    /// this.
    ///
    /// ## How to fix
    /// Convert again from the original model, or fix the hyperparameter the message names.
    TENSOR_SHAPE = ("GG038", "tensor-shape", Error);
    /// A tensor is not one the architecture creates.
    ///
    /// ## What it does
    /// Reports each tensor whose name, with its layer number as `%d`, is not among the
    /// architecture's in the generated table.
    ///
    /// ## Why
    /// llama.cpp counts the tensors it creates and refuses a file with tensors left over:
    /// "done_getting_tensors: wrong number of tensors; expected N, got M". In the Tensors tab
    /// such tensors are marked.
    ///
    /// ## How to fix
    /// Convert with a converter that matches the llama.cpp that runs the model, or remove
    /// the extra tensors.
    TENSOR_UNEXPECTED = ("GG039", "tensor-unexpected", Error);
    /// A weight is stored as integers.
    ///
    /// ## What it does
    /// Reports a tensor of the architecture stored as `I8`, `I16`, `I32` or `I64`.
    ///
    /// ## Why
    /// llama.cpp loads it without a word, but the architecture's matrix products, norms and
    /// embedding lookups take float or quantized weights: the model fails or runs wrong at
    /// the first token.
    ///
    /// ## How to fix
    /// Convert again with a float or quantized output type (`--outtype f16`, `q8_0`).
    TENSOR_TYPE = ("GG040", "tensor-type", Error);
    /// The vocabulary is one llama.cpp refuses or aborts on.
    ///
    /// ## What it does
    /// Reads the vocabulary as `llama_vocab::load` does: `tokenizer.ggml.model` present and
    /// known, `tokenizer.ggml.tokens` an array of strings, scores (`f32` or `i32`) and token
    /// types (`i32`) at least as long as the tokens, merges for BPE tokenizers, a
    /// pre-tokenizer llama.cpp knows, special token ids stored as `u32`, and no two tokens
    /// with the same text. In a model file the architecture table reads the vocabulary's keys
    /// with the rest, so a missing or mistyped key is GG034 or GG035 and a short array GG036
    /// there; this rule reports them for a vocabulary-only file.
    ///
    /// ## Why
    /// llama.cpp refuses the model ("unknown tokenizer", "Index out of array bounds for
    /// scores", "cannot find tokenizer merges") or, for a repeated token, aborts the whole
    /// process on `GGML_ASSERT(id_to_token.size() == token_to_id.size())`.
    ///
    /// ## How to fix
    /// Convert the tokenizer again with a current `convert_hf_to_gguf.py`.
    VOCAB_REFUSED = ("GG041", "vocab-refused", Error);
    /// The vocabulary has a value llama.cpp takes but cannot use.
    ///
    /// ## What it does
    /// Reports token types outside 0 to 6, special token ids at or past the vocabulary's
    /// size, a BPE tokenizer without a pre-tokenizer, and a chat template that is not a
    /// string.
    ///
    /// ## Why
    /// llama.cpp loads these without failing: an unknown token type becomes "undefined", a
    /// special id past the vocabulary is ignored (so generation may never stop at the
    /// intended end token), a missing pre-tokenizer degrades generation, and a chat
    /// template stored as a number becomes that number's text.
    ///
    /// ## How to fix
    /// Fix the value in the converter's input (`tokenizer_config.json`) and convert again.
    VOCAB_VALUE = ("GG042", "vocab-value", Warning);
}

/// The message of [`UNKNOWN_VALUE_TYPE`]: `what` (`key "k" has value`, `array "k" has item`)
/// type `ty`.
pub(super) fn unknown_type(what: impl std::fmt::Display, ty: u32) -> String {
    format!("{what} type {ty}; GGUF defines types 0 to 12")
}

/// The message of [`BOOL_VALUE`]: `what`, a bool, is the byte `b`.
pub(super) fn bool_value(what: impl std::fmt::Display, b: u8) -> String {
    format!("{what} is {b}; GGUF allows only 0 and 1")
}

/// The message of [`STRING_NOT_UTF8`]: `what` is not UTF-8 from byte `at` of the file.
pub(super) fn not_utf8(what: impl std::fmt::Display, at: u64) -> String {
    format!("{what} is not UTF-8 from byte {at}; GGUF strings are UTF-8")
}
