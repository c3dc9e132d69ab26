//! Rules specific to TensorFlow Lite / LiteRT models (codes TF001..). References: the schema
//! (`tensorflow/compiler/mlir/lite/schema/schema.fbs`), the verifier every interpreter runs
//! before loading (`tensorflow/lite/core/tools/verifier.cc`, `VerifyModel`) and the
//! interpreter's model reader (`InterpreterBuilder`); `tests/fixtures/tflite/verdicts.tsv` and
//! `bad/verdicts.tsv` record what the LiteRT interpreter says about each fixture. Facts:
//! `../shared/reference/tflite-keras.md`.

crate::rules! {
    group = ("TF", "TensorFlow Lite / LiteRT");
    /// The FlatBuffer is malformed.
    ///
    /// ## What it does
    /// Verifies the whole model with the FlatBuffers verifier against the TFLite schema, with
    /// the limits the interpreter uses: every offset, vector and string inside the buffer,
    /// tables aligned, union tags matching their tables.
    ///
    /// ## Why
    /// The interpreter verifies the buffer first and refuses it ("The model is not a valid
    /// Flatbuffer buffer"); a loader that skips verification (`BuildFromBuffer` without a
    /// verifier, or a hand-written parser) reads out of bounds.
    ///
    /// ## How to fix
    /// The file is corrupt, truncated or hostile; convert the model again.
    FLATBUFFER_INVALID = ("TF001", "tflite-flatbuffer-invalid", Error);
    /// The FlatBuffer needs more than the interpreter's verifier limits.
    ///
    /// ## What it does
    /// The buffer verifies only with rtenx's higher limits: over 1,000,000 tables, tables
    /// nested deeper than 64, or an apparent size over 2 GiB.
    ///
    /// ## Why
    /// The interpreter verifies with the FlatBuffers default limits and refuses the file.
    ///
    /// ## How to fix
    /// Split the model, or store large constants in the offset/size form.
    OVER_LIMITS = ("TF002", "tflite-over-limits", Error);
    /// The model's schema version is not 3.
    ///
    /// ## What it does
    /// Reads `Model.version`, which every converter since TensorFlow 1.x writes as 3.
    ///
    /// ## Why
    /// The interpreter refuses any other version ("Model provided has model identifier ...,
    /// should be 3"), and the verifier too ("Invalid model version").
    ///
    /// ## How to fix
    /// Convert the model again with a current `TFLiteConverter`.
    VERSION = ("TF003", "tflite-version", Error);
    /// A section the interpreter needs is missing.
    ///
    /// ## What it does
    /// Checks that `Model.subgraphs` is present and not empty, that each subgraph has an
    /// `operators` vector, and that `Model.buffers` is present.
    ///
    /// ## Why
    /// The verifier refuses such a model ("Missing 'subgraphs' section.", "Missing
    /// 'operators' section in subgraph.").
    ///
    /// ## How to fix
    /// The file was written by a broken tool or edited by hand; convert the model again.
    MISSING_SECTION = ("TF004", "tflite-missing-section", Error);
    /// An operator's `opcode_index` names no operator code.
    ///
    /// ## What it does
    /// Compares each operator's `opcode_index` with the length of `Model.operator_codes`.
    ///
    /// ## Why
    /// The verifier refuses it; loaders that index without checking read past the vector.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile.
    OPCODE_INDEX = ("TF005", "tflite-opcode-index", Error);
    /// An operator code names a builtin operator that does not exist.
    ///
    /// ## What it does
    /// Takes the larger of `deprecated_builtin_code` and `builtin_code`, as the interpreter
    /// does, and checks it against the builtin operators of the schema (0 to 209 in
    /// TensorFlow 2.21).
    ///
    /// ## Why
    /// The verifier refuses it ("Operator with builtin_code out of range"); a newer converter
    /// may have written an operator this runtime does not know.
    ///
    /// ## How to fix
    /// Load the model with a runtime at least as new as the converter, or convert it again
    /// for an older runtime.
    UNKNOWN_BUILTIN = ("TF006", "tflite-unknown-builtin", Error);
    /// A custom operator code has no name.
    ///
    /// ## What it does
    /// An operator code whose builtin is `CUSTOM` must name its operator in `custom_code`.
    ///
    /// ## Why
    /// The verifier refuses it ("Invalid custom op name, cannot be null/empty."): a runtime
    /// finds custom kernels by that name.
    ///
    /// ## How to fix
    /// The file is corrupt or was written by a broken tool.
    CUSTOM_UNNAMED = ("TF007", "tflite-custom-unnamed", Error);
    /// A tensor index is out of range.
    ///
    /// ## What it does
    /// Checks every tensor index the model holds (operator inputs, outputs and
    /// intermediates; subgraph inputs and outputs; signature inputs and outputs) against the
    /// subgraph's tensor count. An operator input of -1 marks an omitted optional input.
    ///
    /// ## Why
    /// Out-of-range tensor indices are the first step of several TFLite CVEs (CVE-2020-15211:
    /// index -1 where no optional input is allowed); the verifier and the interpreter refuse
    /// them.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile.
    TENSOR_INDEX = ("TF008", "tflite-tensor-index", Error);
    /// A buffer index is out of range.
    ///
    /// ## What it does
    /// Checks `Tensor.buffer`, `Metadata.buffer` and `Model.metadata_buffer` against the
    /// length of `Model.buffers`.
    ///
    /// ## Why
    /// The verifier refuses it ("Invalid tensor buffer index").
    ///
    /// ## How to fix
    /// The file is corrupt or hostile.
    BUFFER_INDEX = ("TF009", "tflite-buffer-index", Error);
    /// Buffer 0 is not the empty sentinel.
    ///
    /// ## What it does
    /// `Model.buffers[0]` must hold nothing: tensors without data point at it.
    ///
    /// ## Why
    /// The schema requires it. Every tensor that means "no data" then gets the bytes of
    /// buffer 0: activations and inputs become constants. The interpreter reads such a model
    /// without a word.
    ///
    /// ## How to fix
    /// Move the data to a buffer of its own and leave buffer 0 empty.
    SENTINEL = ("TF010", "tflite-sentinel-buffer", Warning);
    /// An operator reads a tensor that nothing has produced.
    ///
    /// ## What it does
    /// Walks each subgraph's operators in order: every input must be a constant, a variable,
    /// a subgraph input, or an output of an earlier operator.
    ///
    /// ## Why
    /// The verifier refuses the model ("Input tensor %d to op %d is not produced"); the
    /// operators are not in execution order, or the graph is broken.
    ///
    /// ## How to fix
    /// Convert the model again; an edited file must keep operators in execution order.
    NOT_PRODUCED = ("TF011", "tflite-input-not-produced", Error);
    /// An operator writes a tensor it must not write.
    ///
    /// ## What it does
    /// An operator output must not be a constant, a variable or a subgraph input, nor be
    /// written by two operators.
    ///
    /// ## Why
    /// The verifier refuses the model ("Output tensor %d to op %d is a constant", "... is
    /// produced more than once"): a cycle or an overwritten weight.
    ///
    /// ## How to fix
    /// The file is corrupt or edited by hand; convert the model again.
    PRODUCED_TWICE = ("TF012", "tflite-output-conflict", Error);
    /// A tensor's shape has a negative dimension.
    ///
    /// ## What it does
    /// Checks every dimension of `Tensor.shape`; unknown dimensions belong in
    /// `shape_signature` as -1, never in `shape`.
    ///
    /// ## Why
    /// The verifier refuses a constant with such a shape, and the interpreter refuses to
    /// allocate an activation with one.
    ///
    /// ## How to fix
    /// The file is corrupt or edited by hand.
    NEGATIVE_DIMENSION = ("TF013", "tflite-negative-dimension", Error);
    /// A string tensor's buffer is not a valid string table.
    ///
    /// ## What it does
    /// A string tensor's buffer is a count N, N + 1 offsets and the bytes: the first offset
    /// is just past the table, the offsets never decrease and the last is the buffer's
    /// length; N must match the shape's element count.
    ///
    /// ## Why
    /// The verifier refuses a broken table ("String tensor %s buffer ..."); a reader that
    /// trusts the offsets reads outside the buffer.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile.
    STRING_TABLE = ("TF014", "tflite-string-table", Error);
    /// A tensor's sparsity metadata is invalid.
    ///
    /// ## What it does
    /// Checks `Tensor.sparsity` as the verifier does: the traversal order is a permutation
    /// of the dimensions followed by the block dimensions, the block map names dimensions,
    /// there is one dimension metadata per traversed dimension, each sparse dimension's
    /// segments start at 0, never decrease and end at its index count, and every index is
    /// below its dimension's size.
    ///
    /// ## Why
    /// The verifier refuses such a tensor ("Invalid sparse tensor"); kernels that trust the
    /// segments read outside the buffer (CVE-2020-15212 is one of the segment bugs).
    ///
    /// ## How to fix
    /// The file is corrupt or hostile.
    SPARSITY = ("TF015", "tflite-sparsity", Error);
    /// An offset/size buffer lies outside the file.
    ///
    /// ## What it does
    /// Models over 2 GB keep constants after the FlatBuffer, located by `Buffer.offset` and
    /// `Buffer.size` (and `Operator.large_custom_options_offset`/`size`) counted from the
    /// file's start. Each such range must end inside the file.
    ///
    /// ## Why
    /// The verifier skips these buffers altogether; the interpreter reads whatever lies at
    /// the offset, past the end of its mapping.
    ///
    /// ## How to fix
    /// The file is truncated (compare its size with the source) or hostile.
    OFFSET_BOUNDS = ("TF016", "tflite-offset-bounds", Error);
    /// An offset/size buffer overlaps the FlatBuffer or another buffer.
    ///
    /// ## What it does
    /// Sorts the offset/size ranges and reports any that starts inside the FlatBuffer or
    /// inside the range before it. (Whether a constant there is aligned to its element size
    /// is the format-neutral RX010: the converter packs these buffers one after another.)
    ///
    /// ## Why
    /// The verifier skips these buffers, so two constants can share bytes, or a constant
    /// can alias the model's structure, without a word from the runtime.
    ///
    /// ## How to fix
    /// Convert the model again; the converter places each buffer after the FlatBuffer.
    OFFSET_OVERLAP = ("TF017", "tflite-offset-overlap", Error);
    /// A tensor's quantisation parameters do not fit its shape.
    ///
    /// ## What it does
    /// `scale` and `zero_point` must have the same length; more than one scale means
    /// per-axis quantisation, whose `quantized_dimension` must be a dimension of the tensor
    /// with exactly that many elements.
    ///
    /// ## Why
    /// The verifier does not look; the interpreter refuses the model when it reads the
    /// parameters ("QuantizationParam has %d zero_point values and %d scale values").
    /// Kernels that trust the lengths read past the arrays.
    ///
    /// ## How to fix
    /// Quantise the model again.
    QUANTIZATION = ("TF018", "tflite-quantization", Error);
    /// The model uses custom operators.
    ///
    /// ## What it does
    /// Names each custom operator code (`Flex` operators need the TensorFlow Select
    /// delegate).
    ///
    /// ## Why
    /// The interpreter refuses the model unless the application registers a kernel of that
    /// name ("Encountered unresolved custom op"): the file alone does not say what the
    /// operator computes, and the kernel is native code outside the model.
    ///
    /// ## How to fix
    /// Ship and register the kernel with the model, or convert without custom operators
    /// (`allow_custom_ops=False`) so that the converter names what it cannot express.
    CUSTOM_OPERATOR = ("TF019", "tflite-custom-operator", Warning);
    /// A tensor has an element type the schema does not define.
    ///
    /// ## What it does
    /// Checks `Tensor.type` against the 21 types of TensorFlow 2.21 (FLOAT32 to UINT4).
    ///
    /// ## Why
    /// The interpreter refuses the model ("Unsupported data type"); the element size, and
    /// so every size check, is unknown.
    ///
    /// ## How to fix
    /// Load the model with a runtime at least as new as the converter.
    TENSOR_TYPE = ("TF020", "tflite-tensor-type", Error);
    /// A signature names a subgraph that does not exist.
    ///
    /// ## What it does
    /// Checks `SignatureDef.subgraph_index` against the subgraph count.
    ///
    /// ## Why
    /// The signature cannot be run as the file describes it: the LiteRT 2.3 interpreter
    /// loads the model and lists the signature, and a runtime that follows the index reads
    /// past the subgraphs.
    ///
    /// ## How to fix
    /// The file is corrupt or edited by hand; convert the model again.
    SIGNATURE_SUBGRAPH = ("TF021", "tflite-signature-subgraph", Warning);
}

/// The message for a tensor index `index` out of a subgraph's `count` tensors.
pub fn tensor_index_message(what: &str, index: i64, count: usize) -> String {
    format!("{what} is tensor {index}, but the subgraph has {count} tensors")
}
