//! Rules specific to ExecuTorch `.pte` programs and `.ptd` data files (codes ET001..).

crate::rules! {
    group = ("ET", "ExecuTorch");
    /// The program or data FlatBuffer fails verification.
    ///
    /// ## What it does
    /// rtenx runs the FlatBuffers verifier over the whole program of a .pte and the whole
    /// FlatBuffer of a .ptd before reading either. Offsets out of range, misaligned fields, invalid
    /// UTF-8, inconsistent unions and vectors past the end are reported with the position the
    /// verifier stopped at.
    ///
    /// ## Why
    /// The ExecuTorch runtime verifies a .pte the same way and refuses it with InvalidProgram; it
    /// does not verify a .ptd at all, so a broken .ptd can make it read out of bounds.
    ///
    /// ## How to fix
    /// Download the file again and compare its size with the source, or export the program again
    /// with `to_executorch()`; a file edited by hand does not verify.
    FLATBUFFER_INVALID = ("ET001", "executorch-flatbuffer-invalid", Error);
    /// The FlatBuffer is valid but larger or deeper than the runtime's verifier accepts.
    ///
    /// ## What it does
    /// The runtime verifies programs with the FlatBuffers defaults: at most 1,000,000 tables,
    /// nesting depth 64 and an apparent size of 2 GiB.
    ///
    /// ## Why
    /// rtenx verifies with higher limits so that it can still show such a file, and reports here
    /// that the runtime will refuse it.
    ///
    /// ## How to fix
    /// Move large constants out of the program (`external_constants=True` writes them to a .ptd),
    /// or split the model into several methods or programs.
    EXCEEDS_RUNTIME_LIMITS = ("ET002", "exceeds-runtime-limits", Warning);
    /// The file identifier names a program or data version the runtime does not read.
    ///
    /// ## What it does
    /// A .pte carries `ET12` at bytes 4..8 and a .ptd `FT01`.
    ///
    /// ## Why
    /// The runtime accepts exactly the identifier it was built with and refuses other `ET..`
    /// programs as IncompatibleVersion.
    ///
    /// ## How to fix
    /// A file with another identifier was written by an older or newer ExecuTorch: export it again
    /// with the release you deploy.
    IDENTIFIER_UNSUPPORTED = ("ET003", "identifier-unsupported", Error);
    /// Bytes 8..16 hold an extended header whose magic is damaged.
    ///
    /// ## What it does
    /// A .pte with segments starts its extended header at byte 8 with the magic `eh00`, then its
    /// length, program_size and segment offsets. The file was corrupted in transit or edited.
    ///
    /// ## Why
    /// When the magic is damaged but the rest of the header is intact, the runtime takes the file
    /// for one without a header: it loads, cannot find its constant segment, and runs with wrong
    /// weights (the real runtime returns NaN). The same holds for `FH01` in a .ptd, which the
    /// runtime refuses.
    ///
    /// ## How to fix
    /// Download or export the program again.
    HEADER_MAGIC_CORRUPT = ("ET004", "header-magic-corrupt", Error);
    /// The extended header is cut off or declares a length below its minimum.
    ///
    /// ## What it does
    /// The `eh00` header of a .pte declares its length at bytes 12..16, at least 24 (32 since
    /// ExecuTorch 1.0); the `FH01` header of a .ptd at least 40.
    ///
    /// ## Why
    /// A shorter length, or a file that ends inside the header, is refused by the runtime
    /// (InvalidProgram or InvalidExternalData).
    ///
    /// ## How to fix
    /// The file is truncated or corrupt: download or export it again.
    HEADER_INVALID = ("ET005", "header-invalid", Error);
    /// The header places the FlatBuffer outside the file.
    ///
    /// ## What it does
    /// A .pte header's program_size, and a .ptd header's flatbuffer_offset + flatbuffer_size, say
    /// where the FlatBuffer ends. It must end inside the file and after the header.
    ///
    /// ## Why
    /// The runtime refuses a program that runs past the file; a .ptd whose FlatBuffer is declared
    /// before its own header is read from the wrong bytes.
    ///
    /// ## How to fix
    /// The file is truncated or corrupt: download or export it again.
    PROGRAM_RANGE_INVALID = ("ET006", "program-range-invalid", Error);
    /// segment_base_offset or segment_data_size puts the segment data inside the FlatBuffer or past the file.
    ///
    /// ## What it does
    /// Segment data starts at segment_base_offset, after the FlatBuffer, and segment_base_offset +
    /// segment_data_size must not overflow or pass the end of the file.
    ///
    /// ## Why
    /// The runtime refuses a .pte or .ptd that fails the second test with InvalidProgram or
    /// InvalidExternalData. A base inside the FlatBuffer makes constants alias program bytes: the
    /// runtime does not check that.
    ///
    /// ## How to fix
    /// The file is truncated or corrupt: download or export it again.
    SEGMENT_BASE_INVALID = ("ET007", "segment-base-invalid", Error);
    /// A data segment ends past the segment data.
    ///
    /// ## What it does
    /// Each DataSegment's offset + size, relative to segment_base_offset, must fit in
    /// segment_data_size.
    ///
    /// ## Why
    /// The .ptd runtime compares the relative end with an absolute one, so it misses segments that
    /// end past the file by less than the base; the .pte loader refuses them when a method loads.
    ///
    /// ## How to fix
    /// The file is truncated or corrupt: download or export it again.
    SEGMENT_OUT_OF_RANGE = ("ET008", "segment-out-of-range", Error);
    /// Two non-empty data segments share bytes.
    ///
    /// ## What it does
    /// Overlapping segments mean one constant or delegate blob is read through another's bytes,
    /// which no writer produces and no runtime checks. Empty segments are ignored: writers put them
    /// at the offset of the next segment.
    ///
    /// ## How to fix
    /// Writers give every buffer its own segment.
    SEGMENTS_OVERLAP = ("ET009", "segments-overlap", Error);
    /// The segment list is not sorted by offset.
    ///
    /// ## What it does
    /// The schema says segments are sorted by offset, and every writer sorts them. Unsorted
    /// segments load, but show the file was edited or written by another tool.
    ///
    /// ## How to fix
    /// Export the program again with ExecuTorch's serializer.
    SEGMENTS_UNSORTED = ("ET010", "segments-unsorted", Warning);
    /// An index in the program points past the list it indexes.
    ///
    /// ## What it does
    /// Programs refer to values, operators, delegates, instructions, segments and constant buffers
    /// by index: instruction arguments, method inputs and outputs, tensor lists, jump destinations,
    /// delegate data references, named-data and constant segment indexes. Each must be inside its
    /// list.
    ///
    /// ## Why
    /// The runtime checks some of these when a method loads and trusts others; an index out of
    /// range is a crash or a read of unrelated memory.
    ///
    /// ## How to fix
    /// Do not run the program: export it again with ExecuTorch; no writer produces an index past
    /// its list.
    INDEX_OUT_OF_RANGE = ("ET011", "index-out-of-range", Error);
    /// A constant or initial state runs past the end of its segment.
    ///
    /// ## What it does
    /// A constant tensor is read from its segment at offsets[data_buffer_idx], for as many bytes as
    /// its shape and element type need; a mutable tensor's initial state likewise from its mutable
    /// data segment. The bytes must lie inside the segment.
    ///
    /// ## Why
    /// The runtime refuses the method with InvalidProgram.
    ///
    /// ## How to fix
    /// The file is truncated or corrupt: download or export it again.
    CONSTANT_OUT_OF_RANGE = ("ET012", "constant-out-of-range", Error);
    /// A tensor has a negative dimension, or its byte size overflows.
    ///
    /// ## What it does
    /// Every size must be zero or more, and the element count times the element size must fit in 64
    /// bits.
    ///
    /// ## Why
    /// The runtime refuses such a program with InvalidProgram.
    ///
    /// ## How to fix
    /// Export the program again; a stored tensor's sizes are its actual sizes.
    TENSOR_SIZE_INVALID = ("ET013", "tensor-size-invalid", Error);
    /// A tensor's scalar type is not one ExecuTorch defines.
    ///
    /// ## What it does
    /// scalar_type is a c10::ScalarType number. The values 8-10 (complex) and 18-21 (bit types) are
    /// reserved, and numbers above 29 do not exist.
    ///
    /// ## Why
    /// The runtime refuses such a program with InvalidProgram.
    ///
    /// ## How to fix
    /// Export the program again with the ExecuTorch release of the runtime you run.
    SCALAR_TYPE_UNKNOWN = ("ET014", "scalar-type-unknown", Error);
    /// A tensor's dim_order is not a permutation of its dimensions.
    ///
    /// ## What it does
    /// dim_order lists every dimension once, outermost first, so its length is the rank and each of
    /// 0..rank appears once.
    ///
    /// ## Why
    /// The runtime checks only that entries are below the rank, and builds the order from the rank,
    /// so a short list makes it read past the end.
    ///
    /// ## How to fix
    /// Export the program again; the dim order was edited or written by another tool.
    DIM_ORDER_INVALID = ("ET015", "dim-order-invalid", Error);
    /// An external tensor's key is in no data file.
    ///
    /// ## What it does
    /// A tensor stored outside the program (ExtraTensorInfo.location EXTERNAL) is loaded by its
    /// fully qualified name from the .ptd files given to the runtime.
    ///
    /// ## Why
    /// The runtime refuses the method (NotFound) when no file holds the key.
    ///
    /// ## How to fix
    /// Pass the right file with `--data`, or keep the .ptd beside the .pte.
    EXTERNAL_KEY_MISSING = ("ET016", "external-key-missing", Error);
    /// A data file's layout for a key differs from the program's tensor.
    ///
    /// ## What it does
    /// The runtime requires the .ptd's tensor_layout to match the program's tensor exactly: scalar
    /// type, rank, every size and every dim_order entry; otherwise it refuses the method with
    /// InvalidExternalData.
    ///
    /// ## Why
    /// An entry without tensor_layout is an opaque blob and cannot back a tensor: the runtime
    /// dereferences the missing layout.
    ///
    /// ## How to fix
    /// Pair the program with the .ptd exported with it (the same `to_executorch()` run), or export
    /// both again.
    EXTERNAL_LAYOUT_MISMATCH = ("ET017", "external-layout-mismatch", Error);
    /// A named data key appears twice, in one file or across files.
    ///
    /// ## What it does
    /// The runtime merges the program's named data with every data file's into one map, and refuses
    /// a key that appears twice (InvalidArgument, "Duplicate key"). Within one file, the first
    /// entry wins and the second is unreachable.
    ///
    /// ## How to fix
    /// Give the runtime each data file once, and export data files whose keys do not overlap.
    DUPLICATE_KEY = ("ET018", "duplicate-key", Error);
    /// A data file holds a tensor that no method of the program uses.
    ///
    /// ## What it does
    /// Every key with a tensor layout in a paired data file is normally the name of an external
    /// tensor of the program. An unused key is dead weight, or the sign of a data file exported
    /// from another model. Keys without a layout are backend blobs, which only the backend names,
    /// so they are not reported.
    ///
    /// ## How to fix
    /// Check that the .ptd was exported with this program; otherwise nothing needs fixing.
    UNUSED_KEY = ("ET019", "unused-key", Info);
    /// The program lists non-empty segments but has no extended header.
    ///
    /// ## What it does
    /// Segment offsets are relative to the header's segment_base_offset.
    ///
    /// ## Why
    /// Without an `eh00` header the runtime cannot find any segment, so constants and delegate
    /// blobs stored in them cannot load.
    ///
    /// ## How to fix
    /// Export the program again with ExecuTorch's serializer, which writes the extended header with
    /// the segments.
    SEGMENTS_WITHOUT_HEADER = ("ET020", "segments-without-header", Error);
    /// A segment does not start at the alignment ExecuTorch writers use.
    ///
    /// ## What it does
    /// The alignment is configurable, so this is a warning: kernels that expect aligned data may
    /// copy or fault. Constants inside a segment are held to 16 bytes (constant_tensor_alignment)
    /// by the format-neutral alignment rule RX011.
    ///
    /// ## How to fix
    /// Writers place segments at multiples of 128 bytes (segment_alignment), so that they can be
    /// memory-mapped and used in place.
    MISALIGNED = ("ET021", "misaligned", Warning);
    /// The program FlatBuffer is 2 GiB or larger.
    ///
    /// ## What it does
    /// FlatBuffers address with 32-bit offsets, so a FlatBuffer is at most 2 GiB. Large weights
    /// belong in segments or in a .ptd file (`external_constants=True`).
    ///
    /// ## How to fix
    /// Move the weights out of the program: export with `external_constants=True`, or let the
    /// serializer put constants in segments.
    PROGRAM_TOO_LARGE = ("ET022", "program-too-large", Error);
    /// A .ptd's FlatTensor.version is not 0.
    ///
    /// ## What it does
    /// Every ExecuTorch release writes version 0, and both the Python deserializer and the runtime
    /// (1.5.1 checked) refuse other values.
    ///
    /// ## How to fix
    /// Export the data file again with the ExecuTorch release of the runtime you run.
    DATA_VERSION_UNKNOWN = ("ET023", "data-version-unknown", Error);
    /// The .ptd uses the first FT01 layout, which current runtimes misread.
    ///
    /// ## What it does
    /// ExecuTorch 0.6 wrote .ptd files with tensor_alignment and a tensor list. rtenx readsboth
    /// layouts.
    ///
    /// ## Why
    /// ExecuTorch 0.7 changed the field ids without changing the identifier or version, so current
    /// runtimes read such a file as garbage (1.5.1 refuses its methods: "Malformed PTD").
    ///
    /// ## How to fix
    /// Export the data again with the ExecuTorch release you deploy.
    LEGACY_DATA_FILE = ("ET024", "legacy-data-file", Error);
    /// A method lacks a field the runtime needs to load it.
    ///
    /// ## What it does
    /// The runtime refuses a program without execution plans or values (InvalidProgram), and a
    /// method without the rest when it loads or describes it.
    ///
    /// ## How to fix
    /// Loading a method needs its name, values, inputs, outputs, chains and non_const_buffer_sizes.
    METHOD_INCOMPLETE = ("ET025", "method-incomplete", Error);
    /// A data file passed with `--data` holds nothing the program uses.
    ///
    /// ## What it does
    /// None of the file's keys names an external tensor of the program, and the program has no
    /// delegate that could use its blobs.
    ///
    /// ## How to fix
    /// The file was probably paired with the wrong program.
    DATA_FILE_UNUSED = ("ET026", "data-file-unused", Warning);
    /// A .ptd beside the program was not paired with it.
    ///
    /// ## What it does
    /// A program does not name its data files, and the runtime uses only those it is given. Without
    /// `--data`, rtenx looks at the .ptd files beside a program that has external tensors or
    /// delegates, and pairs a file only when the program needs something it holds: a key of an
    /// external tensor that no other file there supplies or, for a program with delegates (whose
    /// blobs name the keys they load only inside their own data), the file with the program's name
    /// when it holds blob keys and none that the program holds. A file that holds the program's own
    /// named-data keys belongs to another export, and one whose keys another file supplies already
    /// is left out, so a folder of several exports never turns a valid program into an error. This
    /// note names a file that was left out although it has the program's name, shares keys with it
    /// or has errors of its own. The file is checked with the program that needs it; pass it with
    /// `--data` to check the two together.
    ///
    /// ## How to fix
    /// Name the data file with `--data FILE` if it belongs to the program.
    DATA_FILE_NOT_PAIRED = ("ET027", "data-file-not-paired", Info);
}

/// The message of [`HEADER_INVALID`] for a header that is too short, `length` bytes
/// (`what`, such as `eh00`) where the runtime needs `min`.
pub(super) fn header_too_short(what: &str, length: u32, min: u32) -> String {
    format!("{what} header length is {length}; the runtime needs at least {min}")
}

/// The message of [`INDEX_OUT_OF_RANGE`], in one wording wherever it is raised: `what` refers
/// to `item` number `index`, and `owner` has `count` of them.
pub(super) fn out_of_range(
    what: impl std::fmt::Display,
    item: &str,
    index: impl std::fmt::Display,
    owner: &str,
    count: usize,
) -> String {
    format!("{what} refers to {item} {index}, but {owner} has {count}")
}
