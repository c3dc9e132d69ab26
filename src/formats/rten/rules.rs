//! Rules specific to `.rten` files (codes RT001..).

crate::rules! {
    group = ("RT", "RTen");
    /// The file starts with `RTEN` but is shorter than the 32-byte V2 header.
    ///
    /// ## What it does
    /// A V2 file begins with a 32-byte header: magic `RTEN`, u32 version, then u64 model_offset,
    /// model_len and tensor_data_offset.
    ///
    /// ## Why
    /// A shorter file cannot hold it; rten reports `header is too short`.
    ///
    /// ## How to fix
    /// The file was probably cut off during a copy or download.
    HEADER_TRUNCATED = ("RT001", "header-truncated", Error);
    /// The header's version field is not 2.
    ///
    /// ## What it does
    /// Only version 2 of the RTen container exists.
    ///
    /// ## Why
    /// rten refuses other values with `unsupported file version`.
    ///
    /// ## How to fix
    /// A different number means the file is corrupt or comes from a writer rtenx does not know.
    UNSUPPORTED_VERSION = ("RT002", "unsupported-version", Error);
    /// model_offset is before the end of the header or past the end of the file.
    ///
    /// ## What it does
    /// model_offset must be at least 32 (the header length) and at most the file size.
    ///
    /// ## Why
    /// rten refuses the file with `segment offset is invalid`.
    ///
    /// ## How to fix
    /// The header is corrupt: convert the ONNX model again with upstream rten-convert, or download
    /// the file again.
    MODEL_OFFSET_INVALID = ("RT003", "model-offset-invalid", Error);
    /// model_offset + model_len runs past the end of the file.
    ///
    /// ## What it does
    /// The FlatBuffer holding the graph must lie wholly inside the file.
    ///
    /// ## Why
    /// rten refuses the file with `segment length is invalid`. rtenx computes the sum without
    /// overflow.
    ///
    /// ## How to fix
    /// The file is truncated or model_len is wrong.
    MODEL_LENGTH_INVALID = ("RT004", "model-length-invalid", Error);
    /// tensor_data_offset is before the end of the header or past the end of the file.
    ///
    /// ## What it does
    /// tensor_data_offset must be at least 32 and at most the file size.
    ///
    /// ## Why
    /// rten refuses the file with `segment offset is invalid`.
    ///
    /// ## How to fix
    /// The header is corrupt: convert the ONNX model again with upstream rten-convert, or download
    /// the file again.
    TENSOR_DATA_OFFSET_INVALID = ("RT005", "tensor-data-offset-invalid", Error);
    /// tensor_data_offset points into the model data.
    ///
    /// ## What it does
    /// The tensor data section must start after the FlatBuffer ends. rten-convert places tensor
    /// data at the first 64-byte boundary after the model data.
    ///
    /// ## Why
    /// rten does not check this: it loads the model and reads weights out of the FlatBuffer bytes,
    /// so the model runs with garbage weights and no error.
    ///
    /// ## How to fix
    /// Do not run the model: its weights would be read from the wrong bytes. Convert the ONNX model
    /// again with upstream rten-convert.
    TENSOR_DATA_INSIDE_MODEL = ("RT006", "tensor-data-inside-model", Error);
    /// The sections are not where rten-convert puts them.
    ///
    /// ## What it does
    /// rten-convert writes the FlatBuffer at offset 32 and the tensor data after it.
    ///
    /// ## How to fix
    /// A different model_offset, or tensor data placed before the model data, still loads but shows
    /// the file was written by another tool or edited. Check it came from a trusted source.
    UNUSUAL_LAYOUT = ("RT007", "unusual-layout", Warning);
    /// The file has the 28-byte header of an incompatible rten fork.
    ///
    /// ## What it does
    /// Some forks of rten (for example npiesco/rten) write a 28-byte header with no version field
    /// and a different root table.
    ///
    /// ## Why
    /// Upstream rten cannot read these files, and rtenx does not guess at their layout: convert the
    /// original ONNX model with upstream rten-convert instead.
    ///
    /// ## How to fix
    /// Convert the original ONNX model with upstream rten-convert, or load the file with the fork
    /// that wrote it.
    FORK_HEADER = ("RT008", "fork-header", Error);
    /// The model data is not a valid FlatBuffer for the RTen schema.
    ///
    /// ## What it does
    /// rtenx verifies the model data with the FlatBuffers verifier before reading it, as rten does.
    /// Offsets out of range, misaligned fields, invalid UTF-8 in strings, missing required fields
    /// and inconsistent unions are reported here with the position the verifier stopped at.
    ///
    /// ## Why
    /// rten refuses such files with `parse error`.
    ///
    /// ## How to fix
    /// The model data is corrupt or was written by something other than rten-convert: convert the
    /// ONNX model again, or download the file again.
    FLATBUFFER_INVALID = ("RT009", "flatbuffer-invalid", Error);
    /// The model is valid but larger or deeper than rten's verifier accepts.
    ///
    /// ## What it does
    /// rten verifies with the FlatBuffers defaults: at most 1,000,000 tables, nesting depth 64 and
    /// an apparent size of 2 GiB.
    ///
    /// ## Why
    /// rtenx verifies with higher limits so that it can still inspect such files, and reports here
    /// that rten 0.27 will refuse to load them.
    ///
    /// ## How to fix
    /// Run the ONNX model with a runtime without these limits, or split it; rten itself cannot load
    /// this file.
    EXCEEDS_RTEN_LIMITS = ("RT010", "exceeds-rten-limits", Warning);
    /// Model.schema_version is not 1.
    ///
    /// ## What it does
    /// Every published rten writes and accepts schema_version 1 only; rten refuses other values
    /// with `unsupported model schema version`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with upstream rten-convert.
    SCHEMA_VERSION = ("RT011", "schema-version", Error);
    /// The FlatBuffer is 2 GiB or larger.
    ///
    /// ## What it does
    /// FlatBuffers use 32-bit offsets and rten verifies at most 2 GiB, so a V1 file or V2 model
    /// data of 2 GiB or more cannot load.
    ///
    /// ## How to fix
    /// Convert with V2 (the rten-convert default), which stores large tensors outside the
    /// FlatBuffer.
    MODEL_TOO_LARGE = ("RT012", "model-too-large", Error);
    /// An operator type is newer than rtenx knows.
    ///
    /// ## What it does
    /// rtenx knows operator types 0..=144, as rten 0.27 does. Since the `.rten` format is
    /// deprecated upstream, a corrupted byte is a likelier cause than a newer writer; use `--warn
    /// RT013` if you target a newer rten.
    ///
    /// ## Why
    /// rtenx still reads the rest of the graph and shows the operator by its number, but rten 0.27
    /// and older refuse the model with `operator not supported`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with the rten-convert of the rten you run, or run it with a
    /// newer rten if it really needs a newer operator.
    UNKNOWN_OPERATOR = ("RT013", "unknown-operator", Error);
    /// An attribute table type is newer than rtenx knows.
    ///
    /// ## What it does
    /// rtenx knows attribute tables 1..=62, as rten 0.27 does. The fields of a larger union tag
    /// cannot be decoded. It may come from a newer writer (use `--warn RT014` then) but is more
    /// often corruption.
    ///
    /// ## Why
    /// rten 0.27 refuses the operator with `attributes are missing` where it needs them, and
    /// silently uses defaults for operators whose attributes are all optional (Pad, CumSum, Shape,
    /// ...), which changes what the model computes.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with the rten-convert of the rten you run.
    UNKNOWN_ATTRIBUTES = ("RT014", "unknown-attributes", Error);
    /// An operator's attributes are missing or of the wrong type.
    ///
    /// ## What it does
    /// Each operator reads one attribute table type.
    ///
    /// ## Why
    /// rten refuses an operator whose table is missing where required, or is a different type, with
    /// `attributes are missing`; an If without both branches or a Loop without a body is refused as
    /// well. Where all of an operator's attributes are optional (Pad, CumSum, Shape, ...), rten
    /// instead ignores a table of the wrong type and uses defaults, so the model loads but computes
    /// something else.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with the rten-convert of the rten you run; the file was edited
    /// or written by another tool.
    ATTRIBUTES_MISMATCH = ("RT015", "attributes-mismatch", Error);
    /// A node is not an operator, constant or value.
    ///
    /// ## What it does
    /// Node.data must be an OperatorNode, ConstantNode or ValueNode.
    ///
    /// ## Why
    /// rten refuses other union types with `unknown node type`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with upstream rten-convert.
    UNKNOWN_NODE_KIND = ("RT016", "unknown-node-kind", Error);
    /// An operator input refers to a node that does not come before it.
    ///
    /// ## What it does
    /// Nodes are stored in execution order, so each input of an operator must be the index of an
    /// earlier node. A negative index marks an omitted optional input and is allowed.
    ///
    /// ## Why
    /// rten refuses other indices with `operator input is invalid`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again; a graph whose nodes are out of order was not written by rten-
    /// convert.
    INVALID_OPERATOR_INPUT = ("RT017", "invalid-operator-input", Error);
    /// An operator output refers to a node that does not come before it.
    ///
    /// ## What it does
    /// Each output of an operator must be the index of an earlier node (the value node it writes).
    /// A negative index marks an unused output.
    ///
    /// ## Why
    /// rten refuses other indices with `operator output is invalid`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again; a graph whose nodes are out of order was not written by rten-
    /// convert.
    INVALID_OPERATOR_OUTPUT = ("RT018", "invalid-operator-output", Error);
    /// A graph input, output or capture index is past the last node.
    ///
    /// ## What it does
    /// Graph.inputs, outputs and captures hold node indices.
    ///
    /// ## Why
    /// rten does not check their range when loading: it fails later in shape inference, or panics
    /// for indices above i32::MAX.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with upstream rten-convert.
    GRAPH_REF_OUT_OF_RANGE = ("RT019", "graph-ref-out-of-range", Error);
    /// A graph input, output or capture refers to an operator node.
    ///
    /// ## What it does
    /// Graph inputs, outputs and captures must be value (or constant) nodes.
    ///
    /// ## Why
    /// rten fails with `is not a value node` when it sees an operator here.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with upstream rten-convert.
    GRAPH_REF_WRONG_KIND = ("RT020", "graph-ref-wrong-kind", Error);
    /// A graph input refers to a constant node.
    ///
    /// ## What it does
    /// rten-convert maps an ONNX graph input that is also an initializer (IR version < 4) to its
    /// constant. Callers cannot feed such an input, so it is not really an input.
    ///
    /// ## How to fix
    /// Remove the initializers from the ONNX graph's inputs (or export with IR version 4 or later)
    /// before converting, if callers should not see them as inputs.
    GRAPH_INPUT_IS_CONSTANT = ("RT021", "graph-input-is-constant", Warning);
    /// A V1 file has a constant that refers to external tensor data.
    ///
    /// ## What it does
    /// V1 files are a bare FlatBuffer with no tensor data section, so ConstantNode.data_offset
    /// cannot be resolved.
    ///
    /// ## Why
    /// rten refuses it with `tensor data section missing`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with a current rten-convert, which writes the V2 format with
    /// its tensor data section.
    V1_EXTERNAL_DATA = ("RT022", "v1-external-data", Error);
    /// An external constant has no dtype, or one rtenx does not know.
    ///
    /// ## What it does
    /// A constant stored in the tensor data section needs ConstantNode.dtype to know its element
    /// size.
    ///
    /// ## Why
    /// rten refuses it with `unsupported data type for external constant`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with upstream rten-convert.
    EXTERNAL_DTYPE_MISSING = ("RT023", "external-dtype-missing", Error);
    /// A constant has neither inline data nor a data offset.
    ///
    /// ## What it does
    /// A ConstantNode must hold its elements inline or point into the tensor data section.
    ///
    /// ## Why
    /// rten refuses one with neither, or with an inline data type it does not know, with
    /// `unsupported data type for inline constant`.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with upstream rten-convert.
    CONSTANT_WITHOUT_DATA = ("RT024", "constant-without-data", Error);
    /// A value node's dtype is not one rten knows.
    ///
    /// ## What it does
    /// ValueNode.dtype must be Int32, Float, Int8 or UInt8.
    ///
    /// ## Why
    /// rten refuses other values.
    ///
    /// ## How to fix
    /// Convert the ONNX model again with upstream rten-convert; cast unsupported types in the ONNX
    /// model first.
    UNKNOWN_VALUE_DTYPE = ("RT025", "unknown-value-dtype", Error);
    /// The model uses an operator that rten builds only with an optional feature.
    ///
    /// ## What it does
    /// Random operators (RandomUniform, RandomNormal, Dropout, Multinomial, ...) need rten's
    /// `random` feature and DFT/STFT its `fft` feature.
    ///
    /// ## Why
    /// A default rten build refuses to load the model.
    ///
    /// ## How to fix
    /// Build rten with the feature the operator needs (`random`, `fft`), or replace the operator
    /// before converting.
    FEATURE_GATED_OPERATOR = ("RT026", "feature-gated-operator", Info);
    /// An attribute holds an enum value outside the schema.
    ///
    /// ## What it does
    /// An enum attribute such as a padding or interpolation mode has a number the schema does not
    /// define.
    ///
    /// ## Why
    /// rten 0.27 refuses some such values with `unknown value` (Gelu approximation, scatter
    /// reductions, dtypes) and silently replaces others with a default (auto_pad, RNN direction,
    /// NMS box order, resize modes), so the model loads but computes something else.
    ///
    /// ## How to fix
    /// Either way the file is corrupt or from a writer newer than rten 0.27.
    UNKNOWN_ENUM_VALUE = ("RT027", "unknown-enum-value", Error);
    /// An operator has more inputs than it accepts.
    ///
    /// ## What it does
    /// rten refuses an operator with more inputs than its maximum (`operator has N inputs but
    /// maximum is M`).
    ///
    /// ## How to fix
    /// Convert the ONNX model again; the operator was edited or written by another tool.
    TOO_MANY_INPUTS = ("RT028", "too-many-inputs", Error);
}

/// The message of [`MODEL_TOO_LARGE`]: `what` (the file's size, or the header's model_len)
/// is past what a FlatBuffer can address, `limit` bytes.
pub(super) fn too_large(what: std::fmt::Arguments<'_>, limit: u64) -> String {
    format!("{what}; a FlatBuffer must be under {limit} bytes (2 GiB)")
}
