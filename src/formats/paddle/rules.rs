//! Rules specific to PaddlePaddle programs and parameter streams (codes PD001..).

crate::rules! {
    group = ("PD", "PaddlePaddle");
    /// A parameter record's version word is not 0.
    ///
    /// ## What it does
    /// Each tensor record in a `.pdiparams` stream starts with a u32 version, and its tensor part
    /// with a second u32 version; Paddle writes 0 for both and refuses anything else ("expected
    /// file format: 0, but N found"). A stream from a big-endian writer or a file of another format
    /// reads this way.
    ///
    /// ## Why
    /// The stream cannot be read past a bad version word, because nothing in it says where the next
    /// record starts.
    ///
    /// ## How to fix
    /// The parameter file is corrupt or not Paddle's: save the parameters again with
    /// `paddle.jit.save` or `paddle.static.save_inference_model`.
    VERSION_WORD = ("PD001", "version-word", Error);
    /// A record's LoD levels cannot be read.
    ///
    /// ## What it does
    /// After the version word a record stores its LoD level count, then each level as a u64 byte
    /// count and that many bytes of u64 offsets. A level that runs past the end of the file is a
    /// truncated file (PD008).
    ///
    /// ## Why
    /// rtenx refuses more than 64 levels (real parameters have 0, sequence data 1 or 2) and a byte
    /// count that is not a multiple of 8. Paddle reads whatever the counts say and fails or
    /// allocates without bound.
    ///
    /// ## How to fix
    /// The parameter file is corrupt or truncated: download or save it again.
    LOD_LEVEL_INVALID = ("PD002", "lod-level-invalid", Error);
    /// A record's LoD offsets do not describe its rows.
    ///
    /// ## What it does
    /// A LoD level is a list of offsets into the tensor's first dimension: it starts at 0, never
    /// decreases, and the last level ends at the first dimension.
    ///
    /// ## Why
    /// Paddle does not check this when loading, so operators that read the LoD later index out of
    /// range or split sequences wrongly.
    ///
    /// ## How to fix
    /// Save the parameters again; Paddle writes LoD offsets that describe the rows.
    LOD_OFFSETS_INVALID = ("PD003", "lod-offsets-invalid", Warning);
    /// A record's TensorDesc length is negative or implausibly large.
    ///
    /// ## What it does
    /// The TensorDesc of a record is preceded by its length as a signed 32-bit integer. A real
    /// descriptor is a data type and a few dimensions, a few bytes long. A plausible length that
    /// runs past the end of the file is a truncated file (PD008).
    ///
    /// ## Why
    /// A negative length, or one over 1 MiB, means the stream is damaged or is not a Paddle
    /// parameter stream at all; Paddle refuses a negative one.
    ///
    /// ## How to fix
    /// The parameter file is corrupt or truncated: download or save it again.
    DESC_LENGTH_INVALID = ("PD004", "desc-length-invalid", Error);
    /// A record's TensorDesc does not decode, or has no data_type.
    ///
    /// ## What it does
    /// The TensorDesc is a protobuf message whose data_type (field 1) is required.
    ///
    /// ## Why
    /// Paddle refuses a record whose descriptor fails to parse ("Cannot parse tensor desc",
    /// "missing required fields: data_type"); the usual cause is a file that is not a parameter
    /// stream.
    ///
    /// ## How to fix
    /// The parameter file is corrupt: download or save it again.
    DESC_INVALID = ("PD005", "desc-invalid", Error);
    /// A record's data_type is not a plain element type.
    ///
    /// ## What it does
    /// Parameters hold elements of a plain type (BOOL, INT8..INT64, UINT8..UINT64, FP16, BF16,
    /// FP32, FP64, COMPLEX64/128, FP8).
    ///
    /// ## Why
    /// A container type (DENSE_TENSOR, SELECTED_ROWS, VOCAB, ...) or an unknown number has no
    /// element size, so the record's length is unknown and Paddle refuses it.
    ///
    /// ## How to fix
    /// Save the parameters again with Paddle; a container type is not a parameter.
    DTYPE_NOT_PLAIN = ("PD006", "dtype-not-plain", Error);
    /// A record's TensorDesc has a negative dimension.
    ///
    /// ## What it does
    /// `-1` means "unknown" in a variable's declared shape, never in stored data: a parameter
    /// record has real sizes. Paddle multiplies the dimensions and gets a negative or wrapped byte
    /// count.
    ///
    /// ## How to fix
    /// Save the parameters again; stored parameters have their real sizes.
    NEGATIVE_DIM = ("PD007", "record-negative-dim", Error);
    /// The parameter file ends inside a record.
    ///
    /// ## What it does
    /// The file stops before the record's header or data is complete. The message names the tensor
    /// and how many bytes are missing.
    ///
    /// ## Why
    /// Paddle does not check that the last tensor's bytes were all read: it loads the model and
    /// runs it with the missing elements as zeros (a `.pdiparams` cut 4 bytes short runs and gives
    /// a wrong output).
    ///
    /// ## How to fix
    /// Copy the file again.
    PARAMS_TRUNCATED = ("PD008", "params-truncated", Error);
    /// The parameter file holds fewer records than the program has parameters.
    ///
    /// ## What it does
    /// Records carry no names: the n-th record belongs to the n-th persistable variable in byte
    /// order of the names.
    ///
    /// ## Why
    /// With fewer records than names Paddle refuses the model ("check whether the model file is
    /// complete or damaged"), and a tool that zips names and records silently assigns weights to
    /// the wrong variables if one was dropped in the middle.
    ///
    /// ## How to fix
    /// Pair the program with the parameter file saved with it (the same `paddle.jit.save` or
    /// `save_inference_model` call), or save both again.
    RECORD_COUNT_MISMATCH = ("PD009", "record-count-mismatch", Error);
    /// The parameter file continues after the last parameter's record.
    ///
    /// ## What it does
    /// Paddle's loader requires the stream to end exactly after the record of the last persistable
    /// variable ("Not allowed to load partial data via load_combine_op"). Extra bytes usually mean
    /// the parameters belong to a different program, one with more variables.
    ///
    /// ## How to fix
    /// Pair the program with the parameter file saved with it, or save both again.
    PARAMS_TRAILING_DATA = ("PD010", "params-trailing-data", Error);
    /// A record's dtype or dimensions differ from its variable's declaration.
    ///
    /// ## What it does
    /// The program declares each persistable variable's element type and shape; the record stored
    /// for it states its own. `-1` in a declared dimension matches any size.
    ///
    /// ## Why
    /// Paddle does not compare them when loading: it loads the stored tensor, and the first
    /// operator that expects the declared shape refuses to run (a Linear whose weight was stored
    /// transposed fails with "The last dimension of input Bias is expected be equal to the actual
    /// width of input Weight") or computes garbage.
    ///
    /// ## How to fix
    /// Do not run the model: pair the program with the parameter file saved with it, or save both
    /// again.
    RECORD_TYPE_MISMATCH = ("PD011", "record-type-mismatch", Error);
    /// The parameter file is another format, such as a pickle `.pdparams`.
    ///
    /// ## What it does
    /// A file in the place of a `.pdiparams` starts with something that is not a tensor record:
    /// most often the pickled state dict that `paddle.save` writes as `.pdparams`, which is a
    /// training checkpoint, not inference parameters. rtenx names what the file is.
    ///
    /// ## Why
    /// Paddle refuses it with "expected file format: 0, but N found", where N is the file's first
    /// four bytes.
    ///
    /// ## How to fix
    /// Export the model with `paddle.jit.save` or `paddle.static.save_inference_model` instead.
    PARAMS_NOT_PADDLE = ("PD012", "params-not-paddle", Error);
    /// The program file is 2 GiB or larger.
    ///
    /// ## What it does
    /// A `.pdmodel` is one protobuf message, and protobuf refuses messages of 2 GiB or more (older
    /// Paddle builds refused 64 MiB). rtenx reads it anyway and reports its size.
    ///
    /// ## How to fix
    /// Keep parameters out of the program, in the `.pdiparams` file.
    PROGRAM_TOO_LARGE = ("PD013", "pdmodel-too-large", Error);
    /// The program does not decode.
    ///
    /// ## What it does
    /// A `.pdmodel` must be a well-formed ProgramDesc protobuf whose required fields are present (a
    /// block's idx and parent_idx, a variable's name and type, an operator's type), and a PIR
    /// `.json` program must be JSON with `base_code.magic` "pir" and a `program` of regions, blocks
    /// and operations. The message names the field and the byte where decoding failed.
    ///
    /// ## How to fix
    /// Download or save the model again with `paddle.jit.save` or
    /// `paddle.static.save_inference_model`.
    PROGRAM_INVALID = ("PD014", "program-invalid", Error);
    /// An operator reads or writes a variable its block does not declare.
    ///
    /// ## What it does
    /// Every argument of a legacy operator names a variable declared in its block or in an
    /// enclosing block.
    ///
    /// ## Why
    /// Paddle fails to create the operator for a name it cannot find; the program was edited by
    /// hand or assembled from parts.
    ///
    /// ## How to fix
    /// Save the program again with Paddle; a program edited by hand must declare every variable it
    /// uses.
    UNDECLARED_VARIABLE = ("PD015", "undeclared-variable", Error);
    /// A PIR operation uses a value that no earlier operation defines.
    ///
    /// ## What it does
    /// In a PIR program each value id is defined by one operation result or block argument and may
    /// be used only after that.
    ///
    /// ## Why
    /// Paddle's deserializer refuses a program that uses a value before its definition, or one that
    /// is never defined.
    ///
    /// ## How to fix
    /// Save the program again with Paddle.
    VALUE_BEFORE_DEFINITION = ("PD016", "value-before-definition", Error);
    /// A `--data` file was not used.
    ///
    /// ## What it does
    /// A Paddle program reads one combined parameter file.
    ///
    /// ## How to fix
    /// When `--data` names several files, rtenx reads the first as the program's parameters and
    /// reports the others, which probably belong to another model.
    DATA_FILE_UNUSED = ("PD017", "params-file-unused", Warning);
    /// A legacy program's parameters mix float16 and bfloat16.
    ///
    /// ## What it does
    /// Paddle Inference decides a ProgramDesc model's precision from its persistable variables and
    /// refuses one that has both FP16 and BF16 weights ("The model's weights already has been set
    /// float16 type, but also has bfloat16 type"). The same weights saved as a PIR `.json` program
    /// load. Cast one group, or save the model with the PIR API.
    ///
    /// ## How to fix
    /// Convert every parameter to one half type (`paddle.amp.decorate` with one dtype, or the
    /// inference converter) and save the model again.
    MIXED_HALF_TYPES = ("PD018", "mixed-half-types", Error);
    /// A `.pdiparams.info` does not decode as Paddle's dict of parameter names.
    ///
    /// ## What it does
    /// Legacy `paddle.jit.save` writes `X.pdiparams.info` beside the parameters: a pickle (protocol
    /// 2) of a dict from each variable name to a dict of its `structured_name` (the state dict key,
    /// such as `fc1.weight`), `stop_gradient` and `trainable`. rtenx reads it with the pickle
    /// machine that runs and imports nothing; what stops that reading, or a pickle that is not
    /// such a dict, is reported here with its offset.
    ///
    /// ## Why
    /// Paddle Inference does not read the file, so damage is a warning; but `paddle.jit.load`
    /// unpickles it and fails there. A file that would import or call something when loaded is
    /// reported as such by the pickle rules (PK001), as an error.
    ///
    /// ## How to fix
    /// Save the model again with `paddle.jit.save`, or remove the `.pdiparams.info` file if it
    /// belongs to another model: Paddle only needs it for state-dict names.
    INFO_INVALID = ("PD019", "info-invalid", Warning);
}
