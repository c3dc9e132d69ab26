//! Rules specific to LiteRT-LM bundles (codes LM001..). The reference is Google's reader,
//! `schema/core/litertlm_read.cc` in LiteRT-LM (what the runtime checks before it maps a
//! section, and what it takes on trust), and the writer litert-lm-builder 0.18.1, which made
//! the fixtures; `tests/fixtures/tflite/litertlm/bad/manifest.tsv` lists the hostile cases.
//! Facts: `../shared/reference/tflite-keras.md`.

crate::rules! {
    group = ("LM", "LiteRT-LM");
    /// The bundle's fixed header is truncated, or its end of header is out of place.
    ///
    /// ## What it does
    /// Reads the 32-byte header: the magic `LITERTLM`, the major, minor and patch versions,
    /// and at byte 24 the end of the header, which must lie between byte 32 and the end of
    /// the file.
    ///
    /// ## Why
    /// The runtime refuses an end before byte 32 ("Invalid header end offset") and one past
    /// the file ("Failed to read header data"), but only after it has allocated a buffer of
    /// that many bytes: a hostile end of header makes it allocate up to 2^64 bytes.
    ///
    /// ## How to fix
    /// The file is truncated or hostile; write the bundle again with the LiteRT-LM builder.
    HEADER = ("LM001", "litertlm-header", Error);
    /// The bundle's major version is not the one the runtime reads.
    ///
    /// ## What it does
    /// Compares the major version at byte 8 with 1, the only one LiteRT-LM reads.
    ///
    /// ## Why
    /// The runtime refuses every other major version ("This reader doesn't support version
    /// N").
    ///
    /// ## How to fix
    /// Use a runtime that reads this version, or write the bundle again with a builder of
    /// major version 1.
    VERSION = ("LM002", "litertlm-version", Error);
    /// The bundle's metadata FlatBuffer cannot be read.
    ///
    /// ## What it does
    /// Reads the `LiteRTLMMetaData` FlatBuffer between byte 32 and the end of the header,
    /// every offset bounds-checked: its system metadata and its section table, which must be
    /// there.
    ///
    /// ## Why
    /// The runtime reads this FlatBuffer without verifying it, so a malformed table makes it
    /// read outside the header; without a section table it has nothing to load.
    ///
    /// ## How to fix
    /// The file is corrupt or hostile; write the bundle again.
    METADATA = ("LM003", "litertlm-metadata", Error);
    /// A section's byte range is empty, reversed, inside the header or past the file.
    ///
    /// ## What it does
    /// Checks each section's `begin_offset` and `end_offset`: begin before end, both after
    /// the header and inside the file.
    ///
    /// ## Why
    /// The runtime refuses an empty section ("Section N has zero size"), computes the size
    /// of a reversed one as `end - begin`, which wraps to nearly 2^64 bytes that it then
    /// allocates or maps, and reads a range past the file as zeros or fails.
    ///
    /// ## How to fix
    /// The file is corrupt, truncated or hostile; write the bundle again.
    SECTION_BOUNDS = ("LM004", "litertlm-section-bounds", Error);
    /// Two sections share bytes.
    ///
    /// ## What it does
    /// Sorts the sections by where they begin and checks that each ends before the next
    /// begins.
    ///
    /// ## Why
    /// The builder writes every section apart, each aligned to 16 KiB. Shared bytes mean
    /// that one part reads as two things, say a tokenizer that is also a model: a file made
    /// by hand to look different to different readers.
    ///
    /// ## How to fix
    /// Write the bundle again with the LiteRT-LM builder.
    SECTION_OVERLAP = ("LM005", "litertlm-section-overlap", Warning);
    /// A section's data type is not one the runtime knows.
    ///
    /// ## What it does
    /// Checks each section's `data_type` against `AnySectionDataType` (0 to 11 in
    /// LiteRT-LM 1.9).
    ///
    /// ## Why
    /// Neither the runtime nor the builder's own tools can name such a section (the builder's
    /// `peek` raises "Unknown AnySectionDataType value"); a newer writer may have added the
    /// type, or the table is corrupt.
    ///
    /// ## How to fix
    /// Check that the runtime is as new as the writer; otherwise the file is corrupt.
    SECTION_TYPE = ("LM006", "litertlm-section-type", Warning);
    /// A compressed tokenizer declares more bytes than its data can hold.
    ///
    /// ## What it does
    /// Reads the uncompressed size (a u64) that starts a zlib-compressed Hugging Face
    /// tokenizer section, and compares it with what zlib can produce from the rest, at most
    /// 1032 bytes per compressed byte.
    ///
    /// ## Why
    /// The runtime allocates the declared size before it decompresses: a declared size no
    /// data can fill makes it allocate up to 2^64 bytes, and a section shorter than the
    /// size field is refused ("Data too short to contain compressed size").
    ///
    /// ## How to fix
    /// The file is corrupt or hostile; write the bundle again.
    TOKENIZER_SIZE = ("LM007", "litertlm-tokenizer-size", Error);
}
