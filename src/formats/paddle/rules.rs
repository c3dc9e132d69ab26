//! Rules specific to PaddlePaddle programs and parameter streams (codes PD001..).

crate::rules! {
    group = ("PD", "PaddlePaddle");
    VERSION_WORD = ("PD001", "version-word", Error,
        "A parameter record's version word is not 0.",
        "Each tensor record in a `.pdiparams` stream starts with a u32 version, and its tensor \
part with a second u32 version; Paddle writes 0 for both and refuses anything else (\"expected \
file format: 0, but N found\"). The stream cannot be read past a bad version word, because \
nothing in it says where the next record starts. A stream from a big-endian writer or a file of \
another format reads this way.");
    LOD_LEVEL_INVALID = ("PD002", "lod-level-invalid", Error,
        "A record's LoD levels cannot be read.",
        "After the version word a record stores its LoD level count, then each level as a u64 \
byte count and that many bytes of u64 offsets. rtenx refuses more than 64 levels (real \
parameters have 0, sequence data 1 or 2) and a byte count that is not a multiple of 8. Paddle \
reads whatever the counts say and fails or allocates without bound. A level that runs past the \
end of the file is a truncated file (PD008).");
    LOD_OFFSETS_INVALID = ("PD003", "lod-offsets-invalid", Warning,
        "A record's LoD offsets do not describe its rows.",
        "A LoD level is a list of offsets into the tensor's first dimension: it starts at 0, \
never decreases, and the last level ends at the first dimension. Paddle does not check this \
when loading, so operators that read the LoD later index out of range or split sequences \
wrongly.");
    DESC_LENGTH_INVALID = ("PD004", "desc-length-invalid", Error,
        "A record's TensorDesc length is negative or implausibly large.",
        "The TensorDesc of a record is preceded by its length as a signed 32-bit integer. A real \
descriptor is a data type and a few dimensions, a few bytes long. A negative length, or one \
over 1 MiB, means the stream is damaged or is not a Paddle parameter stream at all; Paddle \
refuses a negative one. A plausible length that runs past the end of the file is a truncated \
file (PD008).");
    DESC_INVALID = ("PD005", "desc-invalid", Error,
        "A record's TensorDesc does not decode, or has no data_type.",
        "The TensorDesc is a protobuf message whose data_type (field 1) is required. Paddle \
refuses a record whose descriptor fails to parse (\"Cannot parse tensor desc\", \"missing \
required fields: data_type\"); the usual cause is a file that is not a parameter stream.");
    DTYPE_NOT_PLAIN = ("PD006", "dtype-not-plain", Error,
        "A record's data_type is not a plain element type.",
        "Parameters hold elements of a plain type (BOOL, INT8..INT64, UINT8..UINT64, FP16, BF16, \
FP32, FP64, COMPLEX64/128, FP8). A container type (DENSE_TENSOR, SELECTED_ROWS, VOCAB, ...) or \
an unknown number has no element size, so the record's length is unknown and Paddle refuses \
it.");
    NEGATIVE_DIM = ("PD007", "record-negative-dim", Error,
        "A record's TensorDesc has a negative dimension.",
        "`-1` means \"unknown\" in a variable's declared shape, never in stored data: a \
parameter record has real sizes. Paddle multiplies the dimensions and gets a negative or \
wrapped byte count.");
    PARAMS_TRUNCATED = ("PD008", "params-truncated", Error,
        "The parameter file ends inside a record.",
        "The file stops before the record's header or data is complete. Paddle does not check \
that the last tensor's bytes were all read: it loads the model and runs it with the missing \
elements as zeros (a `.pdiparams` cut 4 bytes short runs and gives a wrong output). The \
message names the tensor and how many bytes are missing. Copy the file again.");
    RECORD_COUNT_MISMATCH = ("PD009", "record-count-mismatch", Error,
        "The parameter file holds fewer records than the program has parameters.",
        "Records carry no names: the n-th record belongs to the n-th persistable variable in \
byte order of the names. With fewer records than names Paddle refuses the model (\"check \
whether the model file is complete or damaged\"), and a tool that zips names and records \
silently assigns weights to the wrong variables if one was dropped in the middle.");
    PARAMS_TRAILING_DATA = ("PD010", "params-trailing-data", Error,
        "The parameter file continues after the last parameter's record.",
        "Paddle's loader requires the stream to end exactly after the record of the last \
persistable variable (\"Not allowed to load partial data via load_combine_op\"). Extra bytes \
usually mean the parameters belong to a different program, one with more variables.");
    RECORD_TYPE_MISMATCH = ("PD011", "record-type-mismatch", Error,
        "A record's dtype or dimensions differ from its variable's declaration.",
        "The program declares each persistable variable's element type and shape; the record \
stored for it states its own. Paddle does not compare them when loading: it loads the stored \
tensor, and the first operator that expects the declared shape refuses to run (a Linear whose \
weight was stored transposed fails with \"The last dimension of input Bias is expected be equal \
to the actual width of input Weight\") or computes garbage. `-1` in a declared dimension \
matches any size.");
    PARAMS_NOT_PADDLE = ("PD012", "params-not-paddle", Error,
        "The parameter file is another format, such as a pickle `.pdparams`.",
        "A file in the place of a `.pdiparams` starts with something that is not a tensor \
record: most often the pickled state dict that `paddle.save` writes as `.pdparams`, which is a \
training checkpoint, not inference parameters. Paddle refuses it with \"expected file format: 0, \
but N found\", where N is the file's first four bytes. rtenx names what the file is. Export \
the model with `paddle.jit.save` or `paddle.static.save_inference_model` instead.");
    PROGRAM_TOO_LARGE = ("PD013", "pdmodel-too-large", Error,
        "The program file is 2 GiB or larger.",
        "A `.pdmodel` is one protobuf message, and protobuf refuses messages of 2 GiB or more \
(older Paddle builds refused 64 MiB). rtenx reads it anyway and reports its size. Keep \
parameters out of the program, in the `.pdiparams` file.");
    PROGRAM_INVALID = ("PD014", "program-invalid", Error,
        "The program does not decode.",
        "A `.pdmodel` must be a well-formed ProgramDesc protobuf whose required fields are \
present (a block's idx and parent_idx, a variable's name and type, an operator's type), and \
a PIR `.json` program must be JSON with `base_code.magic` \"pir\" and a `program` of regions, \
blocks and operations. The message names the field and the byte where decoding failed.");
    UNDECLARED_VARIABLE = ("PD015", "undeclared-variable", Error,
        "An operator reads or writes a variable its block does not declare.",
        "Every argument of a legacy operator names a variable declared in its block or in an \
enclosing block. Paddle fails to create the operator for a name it cannot find; the program \
was edited by hand or assembled from parts.");
    VALUE_BEFORE_DEFINITION = ("PD016", "value-before-definition", Error,
        "A PIR operation uses a value that no earlier operation defines.",
        "In a PIR program each value id is defined by one operation result or block argument \
and may be used only after that. Paddle's deserializer refuses a program that uses a value \
before its definition, or one that is never defined.");
    DATA_FILE_UNUSED = ("PD017", "params-file-unused", Warning,
        "A `--data` file was not used.",
        "A Paddle program reads one combined parameter file. When `--data` names several \
files, rtenx reads the first as the program's parameters and reports the others, which \
probably belong to another model.");
    MIXED_HALF_TYPES = ("PD018", "mixed-half-types", Error,
        "A legacy program's parameters mix float16 and bfloat16.",
        "Paddle Inference decides a ProgramDesc model's precision from its persistable variables \
and refuses one that has both FP16 and BF16 weights (\"The model's weights already has been set \
float16 type, but also has bfloat16 type\"). The same weights saved as a PIR `.json` program \
load. Cast one group, or save the model with the PIR API.");
    INFO_INVALID = ("PD019", "info-invalid", Warning,
        "A `.pdiparams.info` does not decode as Paddle's dict of parameter names.",
        "Legacy `paddle.jit.save` writes `X.pdiparams.info` beside the parameters: a pickle \
(protocol 2) of a dict from each variable name to a dict of its `structured_name` (the state \
dict key, such as `fc1.weight`), `stop_gradient` and `trainable`. rtenx reads only the opcodes \
such a dict uses, and never runs or imports anything. Paddle Inference does not read the file, \
but `paddle.jit.load` unpickles it, so a damaged one fails there; one holding other opcodes \
(GLOBAL, REDUCE) would run code when loaded. The message names the opcode and its offset.");
}
