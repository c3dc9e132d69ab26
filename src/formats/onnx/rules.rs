//! Rules specific to ONNX models and their external data (codes OX001..).

crate::rules! {
    group = ("OX", "ONNX", moved: [
        "OX012" => crate::formats::shared::datafiles::rules::LOCATION_TRAVERSAL,
        "OX014" => crate::formats::shared::datafiles::rules::SYMLINK_ESCAPE,
        "OX015" => crate::formats::shared::datafiles::rules::SYMLINK_INSIDE,
        "OX016" => crate::formats::shared::datafiles::rules::NOT_REGULAR_FILE,
        "OX017" => crate::formats::shared::datafiles::rules::HARD_LINK,
        "OX019" => crate::formats::shared::datafiles::rules::DATA_FILE_MISSING,
        "OX028" => crate::formats::shared::datafiles::rules::LOCATION_NOT_PORTABLE,
        "OX032" => crate::formats::shared::datafiles::rules::LOCATION_IS_MODEL,
        "OX025" => crate::formats::shared::datafiles::rules::CHECKSUM_MISMATCH,
        "OX029" => crate::check::generic::TOO_LARGE_TO_READ,
    ]);
    /// The file is not a well-formed ONNX protobuf.
    ///
    /// ## What it does
    /// The model could not be decoded: a varint runs past the end, a length prefix points past the
    /// end of its message, a known field has the wrong wire type, or messages nest deeper than 100
    /// levels. Truncated downloads are the usual cause. The message names the field path the
    /// decoder was in.
    ///
    /// ## How to fix
    /// Download the file again and compare its size with the source; a model edited by hand is best
    /// exported again from its framework.
    PROTOBUF_INVALID = ("OX001", "protobuf-invalid", Error);
    /// The .onnx file is 2 GiB or larger.
    ///
    /// ## What it does
    /// Protobuf messages are limited to 2^31 - 1 bytes, so onnx, onnxruntime and most other readers
    /// refuse a larger .onnx file.
    ///
    /// ## How to fix
    /// Store the weights as external data instead (`onnx.save_model(...,
    /// save_as_external_data=True)`).
    MODEL_TOO_LARGE = ("OX002", "protobuf-too-large", Error);
    /// The model has no ir_version.
    ///
    /// ## What it does
    /// ModelProto.ir_version is required; onnx.checker refuses a model without it, and runtimes use
    /// it to decide how to read the file.
    ///
    /// ## How to fix
    /// Set `model.ir_version` (onnx's `onnx.IR_VERSION`, or the version the exporter targets) and
    /// save the model again.
    IR_VERSION_MISSING = ("OX003", "ir-version-missing", Error);
    /// The model imports no operator set.
    ///
    /// ## What it does
    /// ModelProto.opset_import must name at least the default domain's opset version; without it no
    /// operator's meaning is defined.
    ///
    /// ## How to fix
    /// Add an `opset_import` for the default domain (`onnx.helper.make_opsetid("", N)`) and save
    /// the model again.
    OPSET_MISSING = ("OX004", "opset-missing", Error);
    /// Two initializers in one graph share a name.
    ///
    /// ## What it does
    /// Initializer names (dense and sparse) must be unique within a graph. With duplicates, which
    /// tensor a node reads depends on the runtime.
    ///
    /// ## How to fix
    /// Rename or remove one of the initializers and update the nodes that read it.
    DUPLICATE_INITIALIZER = ("OX005", "duplicate-initializer", Error);
    /// A metadata_props key appears twice.
    ///
    /// ## What it does
    /// onnx.checker requires metadata keys to be unique; readers that build a map keep only one of
    /// the values.
    ///
    /// ## How to fix
    /// Keep one entry per key in `metadata_props` and save the model again.
    DUPLICATE_METADATA_KEY = ("OX006", "duplicate-metadata-key", Error);
    /// A node input or graph output names no value.
    ///
    /// ## What it does
    /// Every name a node reads must be a graph input, an initializer, the output of an earlier
    /// node, or a value of an enclosing graph. An empty name marks an omitted optional input and is
    /// allowed.
    ///
    /// ## How to fix
    /// Export the model again; a graph edited by hand must define every name it reads (an input, an
    /// initializer or an earlier node's output).
    UNDEFINED_INPUT = ("OX007", "undefined-input", Error);
    /// A node reads a value that only a later node produces.
    ///
    /// ## What it does
    /// ONNX requires nodes in topological order.
    ///
    /// ## Why
    /// onnx.checker and most runtimes refuse a graph whose node reads an output of a node listed
    /// after it.
    ///
    /// ## How to fix
    /// Sort the nodes topologically (onnx-graphsurgeon's `toposort`, or export again) and save the
    /// model again.
    NOT_TOPOLOGICAL = ("OX008", "not-topological", Error);
    /// An inline tensor has several value fields, or none while it has elements.
    ///
    /// ## What it does
    /// A TensorProto stores its elements in exactly one of raw_data, float_data, int32_data,
    /// string_data, int64_data, double_data or uint64_data. Two of them make the value ambiguous;
    /// none leaves a non-empty tensor without data.
    ///
    /// ## How to fix
    /// Store each tensor's elements in one field only (`onnx.numpy_helper.from_array` does) and
    /// save the model again.
    TENSOR_VALUE_FIELDS = ("OX009", "tensor-value-fields", Error);
    /// A STRING tensor uses raw_data.
    ///
    /// ## What it does
    /// Strings have no fixed size, so STRING tensors must use string_data; raw_data cannot hold
    /// them.
    ///
    /// ## How to fix
    /// Store the strings in `string_data` (`onnx.numpy_helper.from_array` of a NumPy array of
    /// objects does).
    STRING_IN_RAW_DATA = ("OX010", "string-in-raw-data", Error);
    /// An external tensor has no location, or an empty one.
    ///
    /// ## What it does
    /// An EXTERNAL tensor must name its data file with a non-empty `location` key.
    ///
    /// ## How to fix
    /// Save the model again with onnx's `save_model(..., save_as_external_data=True)`, which writes
    /// every location.
    LOCATION_MISSING = ("OX011", "location-missing", Error);
    /// An external data location is an in-memory marker.
    ///
    /// ## What it does
    /// `*/_ORT_MEM_ADDR_/*` makes onnxruntime treat the offset as a raw process memory address, and
    /// a leading `#` marks onnx's in-memory initializers.
    ///
    /// ## Why
    /// Neither belongs in a file; a model carrying them is hostile or a leaked internal graph.
    ///
    /// ## How to fix
    /// Do not load the model. A model of your own: save it again with `save_as_external_data=True`
    /// so that tensors name real data files.
    LOCATION_SPECIAL = ("OX013", "location-special", Error);
    /// An external offset or length is not a plain decimal number.
    ///
    /// ## What it does
    /// `offset` and `length` must be ASCII decimal integers of at least 0 that fit in 64 bits.
    ///
    /// ## Why
    /// Signs, spaces, hex and other text are refused (onnxruntime requires the whole string to
    /// parse; Python's int() is more lenient, so readers disagree).
    ///
    /// ## How to fix
    /// Save the model again with onnx's external-data writer, which writes plain decimal numbers.
    OFFSET_LENGTH_INVALID = ("OX018", "offset-length-invalid", Error);
    /// An external_data entry has a key other than location, offset, length or checksum.
    ///
    /// ## What it does
    /// onnxruntime refuses unknown keys with `model format error`, including `basepath`, which
    /// onnx's Python API may add after loading.
    ///
    /// ## Why
    /// Older onnx versions set unknown keys as Python attributes (CVE-2026-34445).
    ///
    /// ## How to fix
    /// Remove the key (or save the model again with onnx's external-data writer, which writes only
    /// location, offset, length and checksum).
    UNKNOWN_EXTERNAL_KEY = ("OX020", "unknown-external-key", Warning);
    /// An external_data key appears twice.
    ///
    /// ## What it does
    /// Readers disagree about which of two values wins (onnx takes the last), so the tensor can be
    /// read from different places by different tools.
    ///
    /// ## How to fix
    /// Keep one entry per key in the tensor's `external_data` and save the model again.
    DUPLICATE_EXTERNAL_KEY = ("OX021", "duplicate-external-key", Error);
    /// An external tensor also carries inline data.
    ///
    /// ## What it does
    /// A tensor with data_location EXTERNAL must not set raw_data or any typed value field;
    /// onnx.checker refuses it.
    ///
    /// ## Why
    /// An empty raw_data is reported too: onnx.checker and onnxruntime ignore it, but rten reads it
    /// instead of the external data and refuses the model, so readers disagree on the tensor's
    /// value.
    ///
    /// ## How to fix
    /// Clear `raw_data` and the typed fields of the external tensor (or keep the data inline and
    /// drop the external location), then save the model again.
    EXTERNAL_WITH_INLINE_DATA = ("OX022", "external-with-inline-data", Error);
    /// An external tensor's offset is not a multiple of 4096.
    ///
    /// ## What it does
    /// The ONNX external-data spec asks for offsets that are multiples of the page size (4096, or
    /// 65536 on Windows), so that a runtime can memory-map each tensor on its own. The writers of
    /// onnx and PyTorch do not align by default, so exported models usually get this note for most
    /// of their tensors; `rtenx check --allow OX023` silences it.
    ///
    /// ## Why
    /// The file still loads: onnxruntime maps from the page boundary below an unaligned offset, and
    /// other readers copy the tensor instead.
    ///
    /// ## How to fix
    /// Save the model again with `convert_model_to_external_data(..., align_offset=True)` or onnx's
    /// `save_model` with alignment, if the runtime memory-maps tensors.
    EXTERNAL_OFFSET_UNALIGNED = ("OX023", "external-offset-unaligned", Info);
    /// Valid ONNX, but rten refuses this external data location.
    ///
    /// ## What it does
    /// Checked only for `rtenx check --target rten`. Compares each external data location the
    /// model uses with rten's rules, which are narrower than the specification: a single file
    /// name in the model's folder (no sub-folder, not even `./`), with an extension starting
    /// `data` or `onnx_data` (such as `model.onnx.data` or `weights.onnx_data_3`), in UTF-8.
    /// A location is reported once, at the first tensor that uses it, with how many do.
    ///
    /// ## Why
    /// rten refuses the whole model when one location breaks these rules; it decodes every
    /// protobuf string as UTF-8, so a location that is not UTF-8 stops the model from loading
    /// too. onnx, onnxruntime and other runtimes load such models, so for them the location is
    /// no problem, and without the target rtenx does not report it.
    ///
    /// ## How to fix
    /// Save the model again with its data in one file beside it whose name ends `.data`, for
    /// example with `onnx.save_model(model, "model.onnx", save_as_external_data=True,
    /// location="model.onnx.data")`, or rename the file and the locations that name it.
    RTEN_REFUSES_LOCATION = ("OX024", "rten-refuses-location", Warning);
    /// An external tensor is of type STRING or UNDEFINED.
    ///
    /// ## What it does
    /// External data holds fixed-size elements only; onnxruntime refuses STRING and UNDEFINED
    /// external tensors.
    ///
    /// ## How to fix
    /// Keep STRING tensors inline, and give every tensor its element type, then save the model
    /// again.
    EXTERNAL_DTYPE_INVALID = ("OX026", "external-dtype-invalid", Error);
    /// A tensor's data_type is missing, UNDEFINED or unknown.
    ///
    /// ## What it does
    /// TensorProto.data_type must be one of the ONNX element types (1..=26); without it the
    /// tensor's size and meaning are unknown.
    ///
    /// ## How to fix
    /// Set the tensor's `data_type` to the type of its elements, or export the model again.
    DTYPE_UNDEFINED = ("OX027", "dtype-undefined", Error);
    /// A value name is assigned twice: the graph is not in SSA form.
    ///
    /// ## What it does
    /// ONNX graphs are in single static assignment form: each value name is defined once, as a
    /// graph input, an initializer or one node output. A node output may not reuse a name already
    /// defined in its graph, or in a graph that encloses it, and a graph may not list one input
    /// name twice.
    ///
    /// ## Why
    /// onnx.checker and onnxruntime refuse such a model; a runtime that accepts it reads whichever
    /// definition it meets last.
    ///
    /// ## How to fix
    /// Exporters produce it when a user-chosen output name collides with an internal value: rename
    /// one of them.
    NOT_SSA = ("OX030", "not-ssa", Error);
    /// A tensor has a negative dimension.
    ///
    /// ## What it does
    /// TensorProto.dims are sizes, so none may be negative (-1 means "unknown" only in shape
    /// inference and Reshape targets, never in a stored tensor).
    ///
    /// ## Why
    /// Runtimes that multiply the dimensions get a negative or wrapped size; a dimension of 0
    /// elsewhere in the shape hides this from a size check, so rtenx reports it on its own.
    ///
    /// ## How to fix
    /// Export the model again; a stored tensor's dimensions are its actual sizes.
    NEGATIVE_DIM = ("OX031", "negative-dim", Error);
    /// Two nodes of one graph share a name, which onnxruntime refuses.
    ///
    /// ## What it does
    /// NodeProto.name is optional, and onnx's checker accepts repeated names, but onnxruntime
    /// refuses to load a graph (the main graph or a subgraph) in which two nodes have the same
    /// non-empty name.
    ///
    /// ## Why
    /// Function bodies are exempt, and so are Constant nodes, which onnxruntime turns into
    /// initializers first.
    ///
    /// ## How to fix
    /// Rename or clear one of them; the generic RX013 also reports the pair.
    DUPLICATE_NODE_NAME = ("OX033", "duplicate-node-name", Error);
    /// Valid ONNX, but onnxruntime refuses it: an input its shape inference reads is external data.
    ///
    /// ## What it does
    /// onnx's shape inference reads the values of some inputs when they are initializers: Reshape's
    /// and Expand's `shape`, Slice's `starts` and `ends`, the `axes` of Squeeze, Unsqueeze and the
    /// Reduce operators, Split's `split`, Resize's `scales` and `sizes`, Tile's `repeats`, Pad's
    /// `pads`, TopK's `K`, ConstantOfShape's input, Range's bounds and a few more.
    /// `onnx.save_model(..., save_as_external_data=True, size_threshold=0)` and
    /// `convert_attribute=True` move these small tensors out. rtenx reports the input the model
    /// names as an initializer of its graph or of a graph enclosing it, for the operators and opset
    /// versions whose inference reads it.
    ///
    /// ## Why
    /// onnxruntime runs shape inference while loading and cannot read such an initializer from
    /// external data, so it refuses the model ("Cannot parse data from external tensors. Please
    /// load external data into raw data"); so does `onnx.shape_inference`, and with it the
    /// checker's `full_check`.
    ///
    /// ## How to fix
    /// Save with the default threshold (1024 bytes), or load the model with its external data and
    /// save these tensors inline.
    SHAPE_INPUT_EXTERNAL = ("OX034", "shape-input-external", Warning);
    /// An initializer is not a graph input, which IR versions 1 to 3 require.
    ///
    /// ## What it does
    /// Before IR version 4, an initializer was only the default value of a graph input, so every
    /// initializer had to be listed in its graph's inputs. Raise `ir_version` to 4 or later if the
    /// model only uses features of that version, or list the initializer as an input.
    ///
    /// ## Why
    /// onnx.checker refuses an IR 1 to 3 model, in its main graph or a subgraph, with an
    /// initializer that is not (`in initializer but not in graph input`); onnxruntime accepts it.
    /// rtenx holds sparse initializers, which IR 3 did not have, to the same rule; the checker does
    /// not.
    ///
    /// ## How to fix
    /// Raise `ir_version` to 4 or later if the model uses nothing older, or list each initializer
    /// in its graph's inputs.
    INITIALIZER_NOT_INPUT = ("OX035", "initializer-not-input", Error);

    /// A node's operator does not exist in the opset version its domain imports.
    ///
    /// ## What it does
    /// The schema an operator follows is its latest version at or below the opset version the model
    /// (or, in a function body, the function) imports for its domain.
    ///
    /// ## Why
    /// A standard-domain operator with no such version, or whose version there is deprecated (such
    /// as Upsample from opset 10), is refused by onnx.checker ("No Op registered for ...") and by
    /// onnxruntime. Nodes that call a model-local function, and domains other than the standard
    /// ones (ai.onnx, ai.onnx.ml, ai.onnx.training) are not checked here: OX044 covers
    /// onnxruntime's contrib domains and ONNX's preview domains.
    ///
    /// ## How to fix
    /// Fix the opset import or replace the operator.
    UNKNOWN_OPERATOR = ("OX036", "operator-not-in-opset", Error);
    /// A node has too few or too many inputs or outputs, or leaves a required one empty.
    ///
    /// ## What it does
    /// Each operator version declares how many inputs and outputs it takes, counting optional and
    /// variadic ones (an empty name marks an omitted optional input or output).
    ///
    /// ## Why
    /// onnx.checker and onnxruntime refuse a node outside those bounds, or one that leaves a
    /// required (single) input or output empty.
    ///
    /// ## How to fix
    /// Check the opset import against the operator version the node was written for, and export the
    /// model again with a matching opset.
    OPERATOR_ARITY = ("OX037", "operator-arity", Error);
    /// A node has an attribute its operator version does not define.
    ///
    /// ## What it does
    /// onnx.checker refuses an attribute the operator's schema does not list ("Unrecognized
    /// attribute"), and so does onnxruntime when it resolves the graph. The attribute may belong to
    /// another version of the operator: check the opset import.
    ///
    /// ## How to fix
    /// Remove the attribute, or import the opset version that defines it, and save the model again.
    UNKNOWN_ATTRIBUTE = ("OX038", "unknown-attribute", Error);
    /// A node's attribute has a different type than its operator declares.
    ///
    /// ## What it does
    /// AttributeProto.type must be the type the schema gives the attribute (an INT for Cast's `to`,
    /// a GRAPH for If's branches, ...); onnx.checker refuses a mismatch ("Mismatched attribute
    /// type"), and onnxruntime reads the wrong field or refuses the model.
    ///
    /// ## How to fix
    /// Give the attribute the type its operator declares (`onnx.helper.make_attribute` picks it
    /// from the Python value) and save the model again.
    ATTRIBUTE_TYPE = ("OX039", "attribute-type", Error);
    /// A node lacks an attribute its operator requires.
    ///
    /// ## What it does
    /// Some attributes have no default, such as Cast's `to` or If's branches; onnx.checker and
    /// onnxruntime refuse a node without them ("Required attribute ... is missing").
    ///
    /// ## How to fix
    /// Add the attribute, or export the model again.
    ATTRIBUTE_MISSING = ("OX040", "attribute-missing", Error);
    /// A node's domain has no opset import.
    ///
    /// ## What it does
    /// Every domain a node uses must appear in the model's opset_import (for a node in a function
    /// body: the function's opset_import), or no version of its operators is selected.
    ///
    /// ## Why
    /// onnx.checker refuses it ("No opset import for domain"), and so does onnxruntime.
    ///
    /// ## How to fix
    /// Add the domain to the model's (or the function's) `opset_import` with the version its
    /// operators need.
    DOMAIN_NOT_IMPORTED = ("OX041", "domain-not-imported", Error);
    /// A value's declared element type differs from the one its node computes.
    ///
    /// ## What it does
    /// rtenx infers element types through each graph, from graph inputs, initializers, Constant
    /// nodes, attributes that name a type (Cast's `to`, `dtype`, `output_dtype`), the operators'
    /// type constraints and, in subgraphs, the outer values they read, and compares them with the
    /// types value_info and graph outputs declare. Where a type cannot be known without shape
    /// inference (or an operator's output type depends on its input values), it is left unknown and
    /// nothing is reported; shapes are not checked.
    ///
    /// ## Why
    /// A mismatch is what `onnx.checker.check_model(full_check=True)` reports as "Inferred elem
    /// type differs from existing elem type", and onnxruntime refuses the model; a float16
    /// conversion that leaves a declared type at float is the usual cause.
    ///
    /// ## How to fix
    /// Correct the value's declared type (or remove its `value_info` and run
    /// `onnx.shape_inference`), or export the model again.
    TYPE_MISMATCH = ("OX042", "type-mismatch", Error);
    /// A node's input has an element type its operator does not accept.
    ///
    /// ## What it does
    /// Each operator version constrains its inputs to sets of types, and inputs that share a type
    /// variable must have one type (Add's two inputs, for instance). Only element types known
    /// without shape inference are checked.
    ///
    /// ## Why
    /// onnx.checker's full check and onnxruntime refuse a node whose input breaks a constraint
    /// ("Type parameter (T) of Optype (Add) bound to different types").
    ///
    /// ## How to fix
    /// Insert a Cast to a type the operator accepts, or export the model again with a matching
    /// opset.
    TYPE_CONSTRAINT = ("OX043", "type-constraint", Error);
    /// A node uses an unknown operator of an onnxruntime contrib domain or an ONNX preview domain.
    ///
    /// ## What it does
    /// The com.microsoft and com.microsoft.nchwc domains are defined by onnxruntime, not by ONNX;
    /// rtenx knows the operators onnxruntime 1.32 registers there.
    ///
    /// ## Why
    /// Another version may add or drop some, so an unknown one is a warning: onnxruntime refuses
    /// the model if it has no kernel for it. onnx.checker does not check the operators of the
    /// preview domains (ai.onnx.preview, ai.onnx.preview.training) either, so an operator onnx 1.23
    /// does not define there is a warning too.
    ///
    /// ## How to fix
    /// Check that the onnxruntime you run registers the operator (a version with it, or the
    /// execution provider that defines it).
    UNKNOWN_CONTRIB_OPERATOR = ("OX044", "unknown-contrib-operator", Warning);
}
