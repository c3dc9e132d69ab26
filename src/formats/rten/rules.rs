//! Rules specific to `.rten` files (codes RT001..).

crate::rules! {
    group = ("RT", "RTen");
    HEADER_TRUNCATED = ("RT001", "header-truncated", Error,
        "The file starts with `RTEN` but is shorter than the 32-byte V2 header.",
        "A V2 file begins with a 32-byte header: magic `RTEN`, u32 version, then u64 \
model_offset, model_len and tensor_data_offset. A shorter file cannot hold it; rten reports \
`header is too short`. The file was probably cut off during a copy or download.");
    UNSUPPORTED_VERSION = ("RT002", "unsupported-version", Error,
        "The header's version field is not 2.",
        "Only version 2 of the RTen container exists. rten refuses other values with \
`unsupported file version`. A different number means the file is corrupt or comes from a \
writer rtenx does not know.");
    MODEL_OFFSET_INVALID = ("RT003", "model-offset-invalid", Error,
        "model_offset is before the end of the header or past the end of the file.",
        "model_offset must be at least 32 (the header length) and at most the file size. rten \
refuses the file with `segment offset is invalid`.");
    MODEL_LENGTH_INVALID = ("RT004", "model-length-invalid", Error,
        "model_offset + model_len runs past the end of the file.",
        "The FlatBuffer holding the graph must lie wholly inside the file. rten refuses the \
file with `segment length is invalid`. The file is truncated or model_len is wrong. rtenx \
computes the sum without overflow.");
    TENSOR_DATA_OFFSET_INVALID = ("RT005", "tensor-data-offset-invalid", Error,
        "tensor_data_offset is before the end of the header or past the end of the file.",
        "tensor_data_offset must be at least 32 and at most the file size. rten refuses the \
file with `segment offset is invalid`.");
    TENSOR_DATA_INSIDE_MODEL = ("RT006", "tensor-data-inside-model", Error,
        "tensor_data_offset points into the model data.",
        "The tensor data section must start after the FlatBuffer ends. rten does not check \
this: it loads the model and reads weights out of the FlatBuffer bytes, so the model runs \
with garbage weights and no error. rten-convert places tensor data at the first 64-byte \
boundary after the model data.");
    UNUSUAL_LAYOUT = ("RT007", "unusual-layout", Warning,
        "The sections are not where rten-convert puts them.",
        "rten-convert writes the FlatBuffer at offset 32 and the tensor data after it. A \
different model_offset, or tensor data placed before the model data, still loads but shows \
the file was written by another tool or edited. Check it came from a trusted source.");
    FORK_HEADER = ("RT008", "fork-header", Error,
        "The file has the 28-byte header of an incompatible rten fork.",
        "Some forks of rten (for example npiesco/rten) write a 28-byte header with no version \
field and a different root table. Upstream rten cannot read these files, and rtenx does not \
guess at their layout: convert the original ONNX model with upstream rten-convert instead.");
    FLATBUFFER_INVALID = ("RT009", "flatbuffer-invalid", Error,
        "The model data is not a valid FlatBuffer for the RTen schema.",
        "rtenx verifies the model data with the FlatBuffers verifier before reading it, as \
rten does. Offsets out of range, misaligned fields, invalid UTF-8 in strings, missing \
required fields and inconsistent unions are reported here with the position the verifier \
stopped at. rten refuses such files with `parse error`.");
    EXCEEDS_RTEN_LIMITS = ("RT010", "exceeds-rten-limits", Warning,
        "The model is valid but larger or deeper than rten's verifier accepts.",
        "rten verifies with the FlatBuffers defaults: at most 1,000,000 tables, nesting depth \
64 and an apparent size of 2 GiB. rtenx verifies with higher limits so that it can still \
inspect such files, and reports here that rten 0.27 will refuse to load them.");
    SCHEMA_VERSION = ("RT011", "schema-version", Error,
        "Model.schema_version is not 1.",
        "Every published rten writes and accepts schema_version 1 only; rten refuses other \
values with `unsupported model schema version`.");
    MODEL_TOO_LARGE = ("RT012", "model-too-large", Error,
        "The FlatBuffer is 2 GiB or larger.",
        "FlatBuffers use 32-bit offsets and rten verifies at most 2 GiB, so a V1 file or V2 \
model data of 2 GiB or more cannot load. Convert with V2 (the rten-convert default), which \
stores large tensors outside the FlatBuffer.");
    UNKNOWN_OPERATOR = ("RT013", "unknown-operator", Error,
        "An operator type is newer than rtenx knows.",
        "rtenx knows operator types 0..=144, as rten 0.27 does. rtenx still reads the rest of the \
graph and shows the operator by its number, but rten 0.27 and older refuse the model with \
`operator not supported`. Since the `.rten` format is deprecated upstream, a corrupted byte is a \
likelier cause than a newer writer; use `--warn RT013` if you target a newer rten.");
    UNKNOWN_ATTRIBUTES = ("RT014", "unknown-attributes", Error,
        "An attribute table type is newer than rtenx knows.",
        "rtenx knows attribute tables 1..=62, as rten 0.27 does. The fields of a larger union tag \
cannot be decoded. rten 0.27 refuses the operator with `attributes are missing` where it needs \
them, and silently uses defaults for operators whose attributes are all optional (Pad, CumSum, \
Shape, ...), which changes what the model computes. It may come from a newer writer (use \
`--warn RT014` then) but is more often corruption.");
    ATTRIBUTES_MISMATCH = ("RT015", "attributes-mismatch", Error,
        "An operator's attributes are missing or of the wrong type.",
        "Each operator reads one attribute table type. rten refuses an operator whose table is \
missing where required, or is a different type, with `attributes are missing`; an If without \
both branches or a Loop without a body is refused as well. Where all of an operator's \
attributes are optional (Pad, CumSum, Shape, ...), rten instead ignores a table of the wrong \
type and uses defaults, so the model loads but computes something else.");
    UNKNOWN_NODE_KIND = ("RT016", "unknown-node-kind", Error,
        "A node is not an operator, constant or value.",
        "Node.data must be an OperatorNode, ConstantNode or ValueNode. rten refuses other \
union types with `unknown node type`.");
    INVALID_OPERATOR_INPUT = ("RT017", "invalid-operator-input", Error,
        "An operator input refers to a node that does not come before it.",
        "Nodes are stored in execution order, so each input of an operator must be the index \
of an earlier node. rten refuses other indices with `operator input is invalid`. A negative \
index marks an omitted optional input and is allowed.");
    INVALID_OPERATOR_OUTPUT = ("RT018", "invalid-operator-output", Error,
        "An operator output refers to a node that does not come before it.",
        "Each output of an operator must be the index of an earlier node (the value node it \
writes). rten refuses other indices with `operator output is invalid`. A negative index \
marks an unused output.");
    GRAPH_REF_OUT_OF_RANGE = ("RT019", "graph-ref-out-of-range", Error,
        "A graph input, output or capture index is past the last node.",
        "Graph.inputs, outputs and captures hold node indices. rten does not check their \
range when loading: it fails later in shape inference, or panics for indices above \
i32::MAX.");
    GRAPH_REF_WRONG_KIND = ("RT020", "graph-ref-wrong-kind", Error,
        "A graph input, output or capture refers to an operator node.",
        "Graph inputs, outputs and captures must be value (or constant) nodes. rten fails with \
`is not a value node` when it sees an operator here.");
    GRAPH_INPUT_IS_CONSTANT = ("RT021", "graph-input-is-constant", Warning,
        "A graph input refers to a constant node.",
        "rten-convert maps an ONNX graph input that is also an initializer (IR version < 4) to \
its constant. Callers cannot feed such an input, so it is not really an input.");
    V1_EXTERNAL_DATA = ("RT022", "v1-external-data", Error,
        "A V1 file has a constant that refers to external tensor data.",
        "V1 files are a bare FlatBuffer with no tensor data section, so ConstantNode.data_offset \
cannot be resolved. rten refuses it with `tensor data section missing`.");
    EXTERNAL_DTYPE_MISSING = ("RT023", "external-dtype-missing", Error,
        "An external constant has no dtype, or one rtenx does not know.",
        "A constant stored in the tensor data section needs ConstantNode.dtype to know its \
element size. rten refuses it with `unsupported data type for external constant`.");
    CONSTANT_WITHOUT_DATA = ("RT024", "constant-without-data", Error,
        "A constant has neither inline data nor a data offset.",
        "A ConstantNode must hold its elements inline or point into the tensor data section. \
rten refuses one with neither, or with an inline data type it does not know, with \
`unsupported data type for inline constant`.");
    UNKNOWN_VALUE_DTYPE = ("RT025", "unknown-value-dtype", Error,
        "A value node's dtype is not one rten knows.",
        "ValueNode.dtype must be Int32, Float, Int8 or UInt8. rten refuses other values.");
    FEATURE_GATED_OPERATOR = ("RT026", "feature-gated-operator", Info,
        "The model uses an operator that rten builds only with an optional feature.",
        "Random operators (RandomUniform, RandomNormal, Dropout, Multinomial, ...) need rten's \
`random` feature and DFT/STFT its `fft` feature. A default rten build refuses to load the \
model.");
    UNKNOWN_ENUM_VALUE = ("RT027", "unknown-enum-value", Error,
        "An attribute holds an enum value outside the schema.",
        "An enum attribute such as a padding or interpolation mode has a number the schema \
does not define. rten 0.27 refuses some such values with `unknown value` (Gelu approximation, \
scatter reductions, dtypes) and silently replaces others with a default (auto_pad, RNN \
direction, NMS box order, resize modes), so the model loads but computes something else. \
Either way the file is corrupt or from a writer newer than rten 0.27.");
    TOO_MANY_INPUTS = ("RT028", "too-many-inputs", Error,
        "An operator has more inputs than it accepts.",
        "rten refuses an operator with more inputs than its maximum (`operator has N inputs but \
maximum is M`).");
}
