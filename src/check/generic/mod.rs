//! Rules that need only the inventory, so they hold for every format.

mod graph;
mod layout;
mod tensors;

use super::Findings;
use crate::inventory::Inventory;

crate::rules! {
    group = ("RX", "Any format");
    /// The file is not in any format rtenx knows.
    ///
    /// ## What it does
    /// rtenx recognises formats by their content, never by the file name: each format's reader
    /// detects its own files (a magic number, a FlatBuffer identifier, the first protobuf fields or
    /// JSON keys), and formats rtenx names but does not read are recognised from their first bytes
    /// (RX017). A file that matches none of them is reported with its first bytes.
    ///
    /// ## How to fix
    /// Check that the file is a model and was copied completely: an HTML error page or a Git LFS
    /// pointer saved in place of a download are common causes.
    UNKNOWN_FORMAT = ("RX001", "unknown-format", Error);
    /// Two sections of the file claim the same bytes.
    ///
    /// ## What it does
    /// A header states where each section starts.
    ///
    /// ## Why
    /// When two sections overlap, a runtime reads the same bytes as two different things: for
    /// example tensor data read out of the middle of the model structure yields garbage weights
    /// with no error.
    ///
    /// ## How to fix
    /// Rewrite the file with a correct writer.
    SECTION_OVERLAP = ("RX002", "section-overlap", Error);
    /// Bytes between sections or tensors that nothing uses.
    ///
    /// ## What it does
    /// A longer run of bytes that no section or tensor claims wastes space and may hide data, or a
    /// tensor whose offset was written wrongly. The finding gives the range; re-export the model to
    /// drop it.
    ///
    /// ## How to fix
    /// Writers pad sections and tensors only up to the format's alignment.
    UNUSED_BYTES = ("RX003", "unused-bytes", Warning);
    /// Alignment padding holds non-zero bytes.
    ///
    /// ## What it does
    /// Non-zero padding means the file was edited by hand, corrupted, or has data smuggled into it.
    /// It does not change how the model loads.
    ///
    /// ## Why
    /// Padding between tensors is not read, because it shares memory pages with the tensor data
    /// that `check` never touches.
    ///
    /// ## How to fix
    /// Writers fill the padding between sections and tensors with zeros.
    NONZERO_PADDING = ("RX004", "nonzero-padding", Warning);
    /// Bytes after the last section or tensor.
    ///
    /// ## What it does
    /// The file continues past the last byte any section or tensor uses.
    ///
    /// ## Why
    /// Runtimes ignore these bytes, so they are wasted at best; they may also be a second file
    /// appended by mistake or hidden data.
    ///
    /// ## How to fix
    /// Truncate the file to its last section, or save the model again; if the bytes are a second
    /// file appended by mistake, keep that file separately.
    TRAILING_BYTES = ("RX005", "trailing-bytes", Warning);
    /// A tensor's data lies partly or wholly outside its file.
    ///
    /// ## What it does
    /// The tensor's offset plus its byte size (element count times element size) runs past the end
    /// of the file that holds it, or overflows a 64-bit offset.
    ///
    /// ## Why
    /// Runtimes refuse such a model or read past the data.
    ///
    /// ## How to fix
    /// The file is truncated or the offset is wrong.
    TENSOR_OUT_OF_BOUNDS = ("RX006", "tensor-out-of-bounds", Error);
    /// A tensor stores a different number of bytes than its shape and dtype need.
    ///
    /// ## What it does
    /// The bytes stored for a tensor must equal the product of its dimensions times the element
    /// size.
    ///
    /// ## Why
    /// A mismatch makes runtimes fail or crash: rten panics on an inline constant whose length
    /// disagrees with its shape.
    ///
    /// ## How to fix
    /// Export or convert the model again; a file edited by hand or truncated in transfer is the
    /// usual cause, so compare its size and checksum with the source.
    TENSOR_SIZE_MISMATCH = ("RX007", "tensor-size-mismatch", Error);
    /// A tensor's shape describes more bytes than a 64-bit size can hold.
    ///
    /// ## What it does
    /// The product of the dimensions, or that product times the element size, overflows 64 bits.
    /// A shape with a 0 holds no elements whatever its other dimensions, and never overflows here;
    /// a format whose loader multiplies in an order that can overflow first says so with its own
    /// rule (ST010).
    ///
    /// ## Why
    /// No runtime can allocate such a tensor; the shape is corrupt.
    ///
    /// ## How to fix
    /// The shape is corrupt: download or export the model again from its source.
    TENSOR_SIZE_OVERFLOW = ("RX008", "tensor-size-overflow", Error);
    /// Two tensors' data ranges overlap.
    ///
    /// ## What it does
    /// Overlapping ranges mean at least one offset is wrong, or a hand-made file shares data
    /// between tensors; either way the tensors are not independent.
    ///
    /// ## How to fix
    /// Writers give each tensor its own bytes.
    TENSOR_OVERLAP = ("RX009", "tensor-overlap", Warning);
    /// An external tensor's data is not aligned to its element size.
    ///
    /// ## What it does
    /// A tensor stored outside the graph structure whose offset is not a multiple of its element
    /// size cannot be used in place from a memory-mapped file: most runtimes silently copy it,
    /// which costs time and memory, and rten's memory-mapped loader (`load_mmap`) refuses an ONNX
    /// model with such a tensor ("data has incorrect alignment"). onnx's own writer packs small
    /// tensors unaligned when asked to store every tensor externally (`size_threshold=0`).
    ///
    /// ## Why
    /// Inline data is not checked, because formats such as protobuf cannot align it, and neither
    /// are formats that never align (PaddlePaddle parameter streams), whose runtimes always copy.
    ///
    /// ## How to fix
    /// Save the model again with the writer's alignment on (onnx's `convert_model_to_external_data`
    /// with the default `size_threshold`, or `align` where the writer has it).
    TENSOR_MISALIGNED = ("RX010", "tensor-misaligned", Warning);
    /// An external tensor is not aligned to the format's preferred alignment.
    ///
    /// ## What it does
    /// A tensor off that alignment still loads, but may be copied or read more slowly.
    ///
    /// ## How to fix
    /// Writers align each external tensor (rten-convert: 64 bytes) so that it can be used in place
    /// with vector instructions.
    TENSOR_ALIGNMENT = ("RX011", "tensor-alignment", Warning);
    /// The main graph has no operators.
    ///
    /// ## What it does
    /// A model whose graph has no operators computes nothing.
    ///
    /// ## Why
    /// rten-convert 0.21 wrote such files silently for ONNX inputs over 2 GB (rten issue #851).
    ///
    /// ## How to fix
    /// Re-convert the model with a fixed converter.
    EMPTY_GRAPH = ("RX012", "empty-graph", Error);
    /// Two operators, or two values, in one graph share a name.
    ///
    /// ## What it does
    /// Names identify nodes when a runtime binds inputs and outputs and when people debug a model.
    /// Two operators with one name, or two values with one name, make lookups by name ambiguous.
    /// Empty names are ignored.
    ///
    /// ## How to fix
    /// Give each operator and each value a name of its own (onnx's `onnx.utils` or the exporter's
    /// naming options); names that only differ by a suffix are enough.
    DUPLICATE_NAME = ("RX013", "duplicate-name", Warning);
    /// A constant is not used by any operator or graph output.
    ///
    /// ## What it does
    /// No operator reads the constant, it is not a graph output, and no subgraph captures it by
    /// name. Its bytes are dead weight in the file.
    ///
    /// ## How to fix
    /// Remove the constant (onnx-simplifier, `onnxoptimizer`'s `eliminate_unused_initializer`, or
    /// the exporter's dead-code pass) and save the model again.
    UNUSED_CONSTANT = ("RX014", "unused-constant", Warning);
    /// Bytes of an external data file that no tensor uses.
    ///
    /// ## What it does
    /// Unused runs, or bytes after the last tensor, waste space, may belong to tensors removed from
    /// the model, or come from a data file shared with another model. Informational: loading is
    /// unaffected.
    ///
    /// ## How to fix
    /// Writers of separate data files normally pack tensors back to back.
    EXTERNAL_DATA_UNUSED = ("RX015", "external-data-unused", Info);
    /// The model holds more entries than rtenx reads.
    ///
    /// ## What it does
    /// To bound its memory and time on hostile files, rtenx keeps at most 4,194,304 entries per
    /// model: nodes, node inputs and outputs, values, tensors, attributes, dimensions and attribute
    /// list values, with a subgraph counting as 32. Real models stay far below: a 20,000-node
    /// transformer has about 150,000. The model is read up to the limit, so its checks are
    /// incomplete, and that is an error. The names and strings a model copies out of its file are
    /// bounded the same way, to the file's own size plus 64 MiB: a string the file refers to many
    /// times is copied once. This was OX029 for ONNX models.
    ///
    /// ## Why
    /// A hostile file can declare millions of empty entries in two bytes each, or, in a FlatBuffer,
    /// point a million times at one shared table, and each entry would cost rtenx up to a few
    /// hundred bytes.
    ///
    /// ## How to fix
    /// If the model is real and this large, split it; if it is not, treat it as hostile. A model
    /// that needs more than the limit cannot be checked by rtenx.
    TOO_LARGE_TO_READ = ("RX016", "too-large-to-read", Error);
    /// The file is in a format rtenx recognises but does not read: it was not checked.
    ///
    /// ## What it does
    /// rtenx names formats it does not read (HDF5 and legacy Keras `.h5`, Core ML, TensorFlow SavedModels and graphs,
    /// bundled ExecuTorch programs, gzip files, Git LFS pointers and HTML pages saved in place of
    /// a download) from their first bytes, so that a valid file of such a format is never
    /// reported as broken. Nothing in it was checked: `rtenx
    /// check` exits with 2, "could not check", as for a file it cannot open, never 0, so an unread
    /// file cannot pass a CI gate as clean.
    /// A file that is not a model (a Hugging Face `config.json` or tokenizer file, read beside
    /// the weights of its folder) is named the same way, and exits with 0.
    ///
    /// ## How to fix
    /// Check the file with the format's own tools; convert it to a format rtenx reads (ONNX,
    /// safetensors, GGUF, ...) to check it here, or exclude it from the check.
    NOT_CHECKED = ("RX017", "not-checked", Info);
    /// The file is larger than the `--max-size` budget: it was not read.
    ///
    /// ## What it does
    /// `rtenx check --max-size SIZE` (or `max-size` in the configuration file, per folder with
    /// `[[overrides]]`) sets the largest file a run reads. A model or lone data file past it is
    /// reported with its size and the limit, and not read; the other files are still checked,
    /// and the run exits with 2, "could not check", since this file was neither passed nor
    /// failed.
    ///
    /// ## Why
    /// A CI owner bounds what one job may spend: a 70 GB checkpoint committed by mistake should
    /// stop the gate with a clear reason, not fill the runner's page cache.
    ///
    /// ## How to fix
    /// Raise `max-size` for the folder that holds large models, or move the file out of the
    /// checked tree.
    FILE_TOO_LARGE = ("RX018", "file-too-large", Error);
    /// Checking the file took longer than the `--timeout` budget: it was given up on.
    ///
    /// ## What it does
    /// `rtenx check --timeout DURATION` (or `timeout` in the configuration file) bounds the time
    /// one file may take. Each file is read on its own thread; when the time is up, rtenx stops
    /// waiting for it, reports it, checks the other files, and exits with 2 at the end, when the
    /// unfinished reader is dropped with the process.
    ///
    /// ## Why
    /// Every reader is bounded in entries and bytes, but a slow disk, a network mount or a huge
    /// model can still take longer than a CI job allows; a per-file limit turns that into a
    /// finding instead of a killed job with no report.
    ///
    /// ## How to fix
    /// Raise `timeout` for the folder that holds the file, or check it on a faster machine.
    TIMED_OUT = ("RX019", "timed-out", Error);
    /// The file's extension belongs to another format than its content.
    ///
    /// ## What it does
    /// rtenx reads a file by its content. When the extension is one another format claims (an
    /// RTen model named `.onnx`, a pickle named `.safetensors`), the finding names both formats.
    ///
    /// ## Why
    /// People, scanners and loaders trust the name: a loader picked by extension fails on the file,
    /// and a pickle under a safe format's name escapes the review a pickle gets, since loading it
    /// can run code.
    ///
    /// ## How to fix
    /// Rename the file to its format's extension, or re-export it in the format its name says.
    MISNAMED_FILE = ("RX020", "misnamed-file", Warning);
    /// Settings found inside what is checked were not applied.
    ///
    /// ## What it does
    /// `rtenx check` takes its settings from `--config FILE`, or else from the working directory
    /// and its parents (the nearest `rtenx.toml`, or `pyproject.toml` with a `[tool.rtenx]`
    /// table), and never from a folder being checked: a settings file in a checked folder, in
    /// any folder below it that holds a checked file, or beside a checked file outside the
    /// working directory and its parents, is left alone, even when it is the working
    /// directory's own (`rtenx check .`). Each checked path that holds such files gets one
    /// finding, which names the first of them and counts the others. It is attached to the
    /// path's first checked file (the first one rtenx could read, for a folder), so it appears
    /// in every output with that file; a path with no readable file prints it on standard
    /// error instead. It is not raised with `--config` or `--isolated`, which already say where
    /// settings come from.
    ///
    /// ## Why
    /// A downloaded model cannot judge itself. Before, a model folder that shipped an
    /// `rtenx.toml` with `allow = ["PK001"]`, an `exclude` or an `[[overrides]]` table passed its
    /// own malicious pickle with exit code 0, in CI too. A model's settings are worth knowing
    /// about, though: they say what its authors wanted left unsaid.
    ///
    /// ## How to fix
    /// Nothing, for a model from elsewhere. For settings of your own, put them in the folder
    /// rtenx runs in (or a parent) and check the model folders below it, or name them with
    /// `--config FILE`. `--allow RX021` silences this finding.
    SETTINGS_IGNORED = ("RX021", "settings-ignored", Info);
}

/// Runs every format-neutral rule. `bytes` is the content of the model file.
pub fn run(inv: &Inventory, bytes: &[u8], out: &mut Findings) {
    layout::check(inv, bytes, out);
    tensors::check(inv, out);
    graph::check(inv, out);
}
