//! Rules that need only the inventory, so they hold for every format.

mod graph;
mod layout;
mod tensors;

use super::Findings;
use crate::inventory::Inventory;

crate::rules! {
    group = ("RX", "Any format");
    UNKNOWN_FORMAT = ("RX001", "unknown-format", Error,
        "The file is not in any format rtenx reads.",
        "rtenx recognises formats by their content, never by the file name: RTen V2 by its \
`RTEN` magic, RTen V1 by a FlatBuffer root inside the file, ONNX by its first protobuf fields, \
a Paddle program by its first block or PIR magic and a Paddle parameter file by its first \
record. A file in a format rtenx knows but does not read (safetensors, GGUF, TFLite, ExecuTorch, \
HDF5 and Keras, Core ML, TensorFlow protobufs, zip \
and gzip archives) is named as what it is, and no reader's errors are \
reported for it. A file that matches nothing is reported with its first bytes. Check that the \
file is a model and was copied completely: an HTML error page or a Git LFS pointer saved in \
place of a download are common causes.");
    SECTION_OVERLAP = ("RX002", "section-overlap", Error,
        "Two sections of the file claim the same bytes.",
        "A header states where each section starts. When two sections overlap, a runtime reads \
the same bytes as two different things: for example tensor data read out of the middle of the \
model structure yields garbage weights with no error. Rewrite the file with a correct writer.");
    UNUSED_BYTES = ("RX003", "unused-bytes", Warning,
        "Bytes between sections or tensors that nothing uses.",
        "Writers pad sections and tensors only up to the format's alignment. A longer run of \
bytes that no section or tensor claims wastes space and may hide data, or a tensor whose \
offset was written wrongly. The finding gives the range; re-export the model to drop it.");
    NONZERO_PADDING = ("RX004", "nonzero-padding", Warning,
        "Alignment padding holds non-zero bytes.",
        "Writers fill the padding between sections and tensors with zeros. Non-zero padding \
means the file was edited by hand, corrupted, or has data smuggled into it. It does not \
change how the model loads. Padding between tensors is not read, because it shares memory \
pages with the tensor data that `check` never touches.");
    TRAILING_BYTES = ("RX005", "trailing-bytes", Warning,
        "Bytes after the last section or tensor.",
        "The file continues past the last byte any section or tensor uses. Runtimes ignore \
these bytes, so they are wasted at best; they may also be a second file appended by mistake \
or hidden data.");
    TENSOR_OUT_OF_BOUNDS = ("RX006", "tensor-out-of-bounds", Error,
        "A tensor's data lies partly or wholly outside its file.",
        "The tensor's offset plus its byte size (element count times element size) runs past \
the end of the file that holds it, or overflows a 64-bit offset. Runtimes refuse such a model \
or read past the data. The file is truncated or the offset is wrong.");
    TENSOR_SIZE_MISMATCH = ("RX007", "tensor-size-mismatch", Error,
        "A tensor stores a different number of bytes than its shape and dtype need.",
        "The bytes stored for a tensor must equal the product of its dimensions times the \
element size. A mismatch makes runtimes fail or crash: rten panics on an inline constant \
whose length disagrees with its shape.");
    TENSOR_SIZE_OVERFLOW = ("RX008", "tensor-size-overflow", Error,
        "A tensor's shape describes more bytes than a 64-bit size can hold.",
        "The product of the dimensions, or that product times the element size, overflows \
64 bits. No runtime can allocate such a tensor; the shape is corrupt.");
    TENSOR_OVERLAP = ("RX009", "tensor-overlap", Warning,
        "Two tensors' data ranges overlap.",
        "Writers give each tensor its own bytes. Overlapping ranges mean at least one offset is \
wrong, or a hand-made file shares data between tensors; either way the tensors are not \
independent.");
    TENSOR_MISALIGNED = ("RX010", "tensor-misaligned", Warning,
        "An external tensor's data is not aligned to its element size.",
        "A tensor stored outside the graph structure whose offset is not a multiple of its \
element size cannot be used in place from a memory-mapped file: most runtimes silently copy \
it, which costs time and memory, and rten's memory-mapped loader (`load_mmap`) refuses an \
ONNX model with such a tensor (\"data has incorrect alignment\"). onnx's own writer packs \
small tensors unaligned when asked to store every tensor externally (`size_threshold=0`). \
Inline data is not checked, because formats such as protobuf cannot align it, and neither are \
formats that never align (PaddlePaddle parameter streams), whose runtimes always copy.");
    TENSOR_ALIGNMENT = ("RX011", "tensor-alignment", Warning,
        "An external tensor is not aligned to the format's preferred alignment.",
        "Writers align each external tensor (rten-convert: 64 bytes) so that it can be used in \
place with vector instructions. A tensor off that alignment still loads, but may be copied or \
read more slowly.");
    EMPTY_GRAPH = ("RX012", "empty-graph", Error,
        "The main graph has no operators.",
        "A model whose graph has no operators computes nothing. rten-convert 0.21 wrote such \
files silently for ONNX inputs over 2 GB (rten issue #851). Re-convert the model with a fixed \
converter.");
    DUPLICATE_NAME = ("RX013", "duplicate-name", Warning,
        "Two operators, or two values, in one graph share a name.",
        "Names identify nodes when a runtime binds inputs and outputs and when people debug a \
model. Two operators with one name, or two values with one name, make lookups by name \
ambiguous. Empty names are ignored.");
    UNUSED_CONSTANT = ("RX014", "unused-constant", Warning,
        "A constant is not used by any operator or graph output.",
        "No operator reads the constant, it is not a graph output, and no subgraph captures \
it by name. Its bytes are dead weight in the file.");
    EXTERNAL_DATA_UNUSED = ("RX015", "external-data-unused", Info,
        "Bytes of an external data file that no tensor uses.",
        "Writers of separate data files normally pack tensors back to back. Unused runs, or \
bytes after the last tensor, waste space, may belong to tensors removed from the model, or \
come from a data file shared with another model. Informational: loading is unaffected.");
    TOO_LARGE_TO_READ = ("RX016", "too-large-to-read", Error,
        "The model holds more entries than rtenx reads.",
        "To bound its memory and time on hostile files, rtenx keeps at most 4,194,304 entries \
per model: nodes, node inputs and outputs, values, tensors, attributes, dimensions and \
attribute list values, with a subgraph counting as 32. A hostile file can declare millions of \
empty entries in two bytes each, or, in a FlatBuffer, point a million times at one shared \
table, and each entry would cost rtenx up to a few hundred bytes. Real models stay far below: \
a 20,000-node transformer has about 150,000. The model is read up to the limit, so its checks \
are incomplete, and that is an error. This was OX029 for ONNX models.");
}

/// Runs every format-neutral rule. `bytes` is the content of the model file.
pub fn run(inv: &Inventory, bytes: &[u8], out: &mut Findings) {
    layout::check(inv, bytes, out);
    tensors::check(inv, out);
    graph::check(inv, out);
}
