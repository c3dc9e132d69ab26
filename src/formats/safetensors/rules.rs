//! Rules specific to safetensors files and sharded checkpoints (codes ST001..). The
//! reference is the `safetensors` crate (0.8.0), which the Python package wraps:
//! `tests/fixtures/safetensors/verdicts.tsv` records what it says about each fixture. Generic
//! rules cover what every format shares: a byte count that disagrees with the shape (RX007),
//! data past the end of the file (RX006), a tensor not aligned to its element size (RX010).

crate::rules! {
    group = ("ST", "safetensors");
    /// The header length is larger than the reference parser allows.
    ///
    /// ## What it does
    /// Compares the `u64` header length in the first 8 bytes with 100,000,000 bytes, the
    /// safetensors parser's `MAX_HEADER_SIZE`.
    ///
    /// ## Why
    /// The parser refuses the file (`HeaderTooLarge`) before reading the header, to bound
    /// the memory a hostile length can ask for. No real model has a header near that size.
    ///
    /// ## How to fix
    /// The file is corrupt, or not safetensors.
    HEADER_TOO_LARGE = ("ST001", "header-too-large", Error);
    /// The header runs past the end of the file.
    ///
    /// ## What it does
    /// Checks that 8 plus the header length is at most the file size.
    ///
    /// ## Why
    /// The parser refuses the file (`InvalidHeaderLength`). The file was cut short, or the
    /// length is corrupt.
    ///
    /// ## How to fix
    /// Download or copy the file again.
    HEADER_PAST_END = ("ST002", "header-past-end", Error);
    /// The header is not valid UTF-8.
    ///
    /// ## What it does
    /// Validates the header bytes as UTF-8.
    ///
    /// ## Why
    /// The format requires a UTF-8 JSON header, and the parser refuses any other
    /// (`InvalidHeader`).
    ///
    /// ## How to fix
    /// Write the file again with the safetensors library.
    HEADER_NOT_UTF8 = ("ST003", "header-not-utf8", Error);
    /// The header is not a JSON object of tensor entries.
    ///
    /// ## What it does
    /// Reads the header as JSON: it must be one object whose values are tensor entries (and
    /// `__metadata__`), with nothing but whitespace after it.
    ///
    /// ## Why
    /// The parser refuses the file (`InvalidHeaderDeserialization`). The finding gives the
    /// byte where the JSON goes wrong.
    ///
    /// ## How to fix
    /// Write the file again with the safetensors library.
    HEADER_NOT_JSON = ("ST004", "header-not-json", Error);
    /// The header does not begin with `{`.
    ///
    /// ## What it does
    /// Checks the first byte of the header.
    ///
    /// ## Why
    /// The format says the header MUST begin with `{`, so that a reader can tell the file
    /// apart from others by its ninth byte. The reference parser (0.8) accepts leading
    /// whitespace, other readers do not.
    ///
    /// ## How to fix
    /// Write the file again with the safetensors library.
    HEADER_START = ("ST005", "header-start", Error);
    /// A key appears twice in the header or in `__metadata__`.
    ///
    /// ## What it does
    /// Reports every repeated tensor name or metadata key, naming the first.
    ///
    /// ## Why
    /// The reference parser keeps the last entry and ignores the first without a word, while
    /// other JSON readers keep the first: two tools read two different models from one file
    /// (a parser differential that the safetensors audit flagged, TOB-SFTN-7).
    ///
    /// ## How to fix
    /// Write each tensor once.
    DUPLICATE_KEY = ("ST006", "duplicate-tensor-key", Error);
    /// `__metadata__` is not a map of strings to strings.
    ///
    /// ## What it does
    /// Checks that `__metadata__` is an object whose values are all strings.
    ///
    /// ## Why
    /// The parser refuses the file (`InvalidHeaderDeserialization`).
    ///
    /// ## How to fix
    /// Store numbers and structures in metadata as strings (for example as JSON text).
    METADATA_INVALID = ("ST007", "metadata-invalid", Error);
    /// A tensor's dtype is not one safetensors defines.
    ///
    /// ## What it does
    /// Checks each `dtype` against the types of safetensors 0.8: `BOOL`, `U8`, `I8`, `I16`,
    /// `U16`, `F16`, `BF16`, `I32`, `U32`, `F32`, `C64`, `F64`, `I64`, `U64`, the F8 types
    /// `F8_E5M2`, `F8_E4M3`, `F8_E8M0`, `F8_E4M3FNUZ`, `F8_E5M2FNUZ`, and the sub-byte `F4`,
    /// `F6_E2M3` and `F6_E3M2`.
    ///
    /// ## Why
    /// The parser refuses the file; the size of the tensor is unknown.
    ///
    /// ## How to fix
    /// The file is corrupt, or needs a newer safetensors than rtenx knows.
    UNKNOWN_DTYPE = ("ST008", "unknown-dtype", Error);
    /// A tensor's shape is not a list of non-negative integers.
    ///
    /// ## What it does
    /// Checks each entry of `shape`.
    ///
    /// ## Why
    /// The parser refuses the file (shapes are `usize`).
    ///
    /// ## How to fix
    /// The file is corrupt.
    SHAPE_INVALID = ("ST009", "shape-invalid", Error);
    /// A tensor's size in bits overflows 64 bits.
    ///
    /// ## What it does
    /// Multiplies the shape's dimensions from the first, then the dtype's bits, with
    /// overflow checks, as the parser does. A shape with a 0 is empty, and passes, unless
    /// the dimensions before the 0 already overflow: the parser refuses `[2^40, 2^40, 0]`
    /// and accepts `[0, 2^40, 2^40]`.
    ///
    /// ## Why
    /// The parser refuses the file (`ValidationOverflow`); a reader without the check
    /// computes a small size and reads the wrong bytes.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile.
    SIZE_OVERFLOW = ("ST010", "size-overflow", Error);
    /// A tensor's `data_offsets` are not two integers with end ≥ begin.
    ///
    /// ## What it does
    /// Checks each `data_offsets` entry.
    ///
    /// ## Why
    /// The parser refuses the file (`InvalidOffset` or a deserialization error).
    ///
    /// ## How to fix
    /// The file is corrupt.
    OFFSETS_INVALID = ("ST011", "offsets-invalid", Error);
    /// Tensors do not fill the data section back to back from 0.
    ///
    /// ## What it does
    /// Sorts the tensors by offset and checks that the first starts at 0 and each starts
    /// where the one before it ends, as the parser does.
    ///
    /// ## Why
    /// The parser refuses a gap or an overlap (`InvalidOffset`): overlapping tensors share
    /// bytes, and a gap may hide data.
    ///
    /// ## How to fix
    /// Write the file again with the safetensors library.
    NOT_CONTIGUOUS = ("ST012", "not-contiguous", Error);
    /// The data section is longer or shorter than the tensors.
    ///
    /// ## What it does
    /// Compares the end of the last tensor with the bytes after the header.
    ///
    /// ## Why
    /// The parser refuses the file (`MetadataIncompleteBuffer`): trailing bytes may hide
    /// data, and missing ones mean the file was cut short.
    ///
    /// ## How to fix
    /// Download the file again, or write it again with the safetensors library.
    DATA_SIZE = ("ST013", "data-size", Error);
    /// A tensor entry is not an object with `dtype`, `shape` and `data_offsets`.
    ///
    /// ## What it does
    /// Checks each entry's fields.
    ///
    /// ## Why
    /// The parser refuses an entry with a field missing.
    ///
    /// ## How to fix
    /// Write the file again with the safetensors library.
    ENTRY_INVALID = ("ST014", "entry-invalid", Error);
    /// A tensor entry has a field safetensors does not define.
    ///
    /// ## What it does
    /// Reports fields other than `dtype`, `shape` and `data_offsets`.
    ///
    /// ## Why
    /// The parser ignores them, so whatever they say is lost; a writer that adds them expects
    /// a reader that does not exist.
    ///
    /// ## How to fix
    /// Move the information into `__metadata__`.
    UNKNOWN_FIELD = ("ST015", "unknown-field", Warning);
    /// A sub-byte tensor does not fill whole bytes.
    ///
    /// ## What it does
    /// Checks that elements × bits is a multiple of 8 for `F4`, `F6_E2M3` and `F6_E3M2`.
    ///
    /// ## Why
    /// The parser refuses the file (`MisalignedSlice`).
    ///
    /// ## How to fix
    /// Pad the tensor to a whole number of bytes before writing.
    PARTIAL_BYTE = ("ST016", "partial-byte", Error);
    /// A sharded checkpoint's index is not a JSON object with a `weight_map` of names to shard files.
    ///
    /// ## What it does
    /// Reads `*.safetensors.index.json`: `weight_map` must map each tensor name to a file
    /// name, and `metadata.total_size`, if present, must be an integer. A folder scan checks
    /// every file so named, and a JSON object that starts with `metadata` and a `total_size`
    /// is read as an index, so an index that lost its `weight_map` is reported, not passed over.
    ///
    /// ## Why
    /// Loaders (`transformers`, `accelerate`, `safetensors`' own helpers) find each tensor's
    /// shard through this map; they refuse an index they cannot read.
    ///
    /// ## How to fix
    /// Save the model again with `save_pretrained`.
    INDEX_INVALID = ("ST017", "index-invalid", Error);
    /// The index names a tensor that its shard does not hold.
    ///
    /// ## What it does
    /// Looks every `weight_map` entry up in the header of the shard it names.
    ///
    /// ## Why
    /// A loader that follows the index fails on the missing tensor, or loads a model with
    /// the weight left at its initial value.
    ///
    /// ## How to fix
    /// Save the model again, or restore the shard.
    TENSOR_NOT_IN_SHARD = ("ST018", "tensor-not-in-shard", Error);
    /// A tensor is stored in two shards.
    ///
    /// ## What it does
    /// Reports a tensor name that the headers of two shards both hold.
    ///
    /// ## Why
    /// The index picks one; a loader that reads the shards without it picks the other, so
    /// two tools load two different models.
    ///
    /// ## How to fix
    /// Save the model again.
    TENSOR_IN_TWO_SHARDS = ("ST019", "tensor-in-two-shards", Error);
    /// A shard holds a tensor that the index does not list.
    ///
    /// ## What it does
    /// Reports every tensor in a shard's header that `weight_map` does not name.
    ///
    /// ## Why
    /// Loaders that follow the index never load it: its bytes are dead weight, or a weight
    /// the model needs is silently dropped.
    ///
    /// ## How to fix
    /// Save the model again; a hand-edited index no longer matches its shards.
    TENSOR_NOT_LISTED = ("ST020", "tensor-not-listed", Warning);
    /// `metadata.total_size` differs from the bytes of the tensors.
    ///
    /// ## What it does
    /// Adds up the byte sizes of the tensors the index lists and compares them with
    /// `metadata.total_size`.
    ///
    /// ## Why
    /// Loaders use it to plan memory and show progress; a wrong value means the index does
    /// not belong to these shards, or was edited.
    ///
    /// ## How to fix
    /// Save the model again.
    TOTAL_SIZE = ("ST021", "total-size", Warning);
}
