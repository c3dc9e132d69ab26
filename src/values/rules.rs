//! The rules on what tensors hold, which `check --values` (or `values = true` in the settings)
//! runs after reading every tensor's bytes.

crate::rules! {
    group = ("VX", "Tensor values (check --values)");
    /// A floating-point tensor holds NaN or infinite values.
    ///
    /// ## What it does
    /// With `--values`, every element of every floating-point tensor is read: f64, f32, f16,
    /// bf16, the f8 types (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0) and the parts of complex
    /// numbers. The finding counts the NaN and the infinite elements and points at the first,
    /// by its index (and its place in the shape) and the byte offset where it is stored.
    ///
    /// ## Why is this bad?
    /// A NaN weight makes every output it touches NaN: a model whose training diverged, or
    /// that was converted to f16 from values past f16's range (which become infinite), loads
    /// without complaint and answers with garbage. llama.cpp's `--check-tensors` refuses such a
    /// tensor (its `ggml_validate_row_data`); no other loader looks.
    ///
    /// ## How to fix
    /// Go back to an earlier checkpoint, or convert from the source again with a type whose
    /// range holds the values (bf16 rather than f16).
    NAN_OR_INF = ("VX001", "nan-or-inf", Error);
    /// A quantised block's scale is NaN or infinite.
    ///
    /// ## What it does
    /// A block type (GGML's Q4_0, Q4_K, IQ2_XS, MXFP4, ...) stores each block of elements as
    /// small integers and one or two scales that multiply them. With `--values`, the scales of
    /// every block are read where the block type keeps them, and checked as llama.cpp's
    /// `ggml_validate_row_data` checks them: the half-precision `d` (and `m` or `dmin`) of most
    /// types, Q8_K's single-precision `d`, IQ1_M's scale packed into its sub-block scales, must
    /// not be NaN or infinite, and MXFP4's exponent `e` must not be 0xff (NaN). NVFP4's scales
    /// have no invalid value. No type forbids a zero scale: a zero block is only zero (see
    /// VX003). The finding counts the bad scales and points at the first bad block: its index,
    /// the elements it holds, and the byte offset of the scale.
    ///
    /// ## Why is this bad?
    /// Every element of the block becomes NaN or infinite when it is dequantised. llama.cpp's
    /// `--check-tensors` refuses the model; without it, llama.cpp loads it and computes garbage.
    ///
    /// ## How to fix
    /// Quantise again from the source model, after checking it with `--values`: a NaN scale
    /// usually comes from NaN weights in the source.
    BAD_BLOCK_SCALE = ("VX002", "bad-block-scale", Error);
    /// A weight tensor is all zeros.
    ///
    /// ## What it does
    /// Reports a floating-point or quantised tensor with at least two dimensions larger than 1
    /// (a weight matrix or a convolution kernel, not a bias or a norm's weight, which are often
    /// zero) whose every element is zero (for a block type: whose every block's scales are all
    /// zero).
    ///
    /// ## Why is this bad?
    /// A layer whose weights are all zeros passes nothing on: a merge tool that wrote a tensor
    /// it failed to compute, a LoRA adapter saved before training (its `lora_B` starts at zero),
    /// or a conversion that dropped the data leaves a model that loads and does not work.
    ///
    /// ## How to fix
    /// Export the tensor again from a trained source; if it is meant to be zero (a layer
    /// switched off), the model can leave it out.
    ALL_ZERO_TENSOR = ("VX003", "all-zero-tensor", Warning);
    /// A weight tensor holds one value only.
    ///
    /// ## What it does
    /// Reports a floating-point tensor with at least two dimensions larger than 1 whose every
    /// element has the same bits, other than zero (VX003) and NaN (VX001). Block types are not
    /// judged: their elements are not decoded.
    ///
    /// ## Why is this bad?
    /// A trained weight matrix is never constant: one that is was never trained (left at an
    /// initial value), or was overwritten by a fill value.
    ///
    /// ## How to fix
    /// Export the tensor again from a trained source.
    CONSTANT_TENSOR = ("VX004", "constant-tensor", Warning);
    /// A tensor ends in a long run of zero bytes, as a truncated write leaves.
    ///
    /// ## What it does
    /// Measures the zero bytes at the end of each tensor that is not all zeros; at the end of a
    /// file's tensor data, the run goes on through the tensors after it that are all zero
    /// bytes. A run of at least `zero-tail` bytes (1 MiB unless the settings say otherwise,
    /// such as `zero-tail = "64KiB"` in `rtenx.toml`) that starts inside a tensor is reported,
    /// with the tensor, the element and the byte offset where it starts.
    ///
    /// ## Why is this bad?
    /// A download or copy that stopped early into a file of the right size (preallocated, or
    /// sparse) leaves zeros where the rest of the data should be: the file has the right
    /// structure and loads, and its last layers compute nothing. A weight whose last rows are
    /// genuinely zero can trip this too (a vocabulary padded with zero rows): raise
    /// `zero-tail` above the padding.
    ///
    /// ## How to fix
    /// Download or copy the file again and compare it with its checksum.
    ZERO_TAIL = ("VX005", "zero-tail", Warning);
    /// A floating-point tensor holds subnormal values.
    ///
    /// ## What it does
    /// Counts the non-zero elements smaller in magnitude than the type's smallest normal number
    /// (6.1e-5 in f16, 1.2e-38 in f32 and bf16), and points at the first.
    ///
    /// ## Why is this bad?
    /// Many processors compute with subnormals tens of times slower, and GPUs and many kernels
    /// flush them to zero, so the model's numbers differ between runtimes. In f16 weights they
    /// are common and mostly harmless; in f32 and bf16 they are a sign of values far below any
    /// that matter.
    ///
    /// ## How to fix
    /// Nothing is needed; to be rid of them, flush them to zero when saving.
    SUBNORMAL_VALUES = ("VX006", "subnormal-values", Info);
    /// A floating-point tensor holds values at the largest magnitude its type has.
    ///
    /// ## What it does
    /// Counts the elements equal to plus or minus the largest finite value of their type
    /// (65504 in f16, 448 in f8e4m3fn, about 3.4e38 in f32 and bf16), and points at the first.
    ///
    /// ## Why is this bad?
    /// A converter that clamps what does not fit (f32 to f16) writes the largest value in place
    /// of a larger one: the tensor held values its type cannot, and the clamped ones are wrong.
    /// In f8 tensors, quantisers clamp to the largest value on purpose.
    ///
    /// ## How to fix
    /// Convert to a type with a wider range (bf16), or scale the tensor first.
    SATURATED_VALUES = ("VX007", "saturated-values", Info);
    /// A tensor's values could not be read.
    ///
    /// ## What it does
    /// With `--values`, a floating-point or quantised tensor whose bytes could not be read is
    /// named with the reason: its data file could not be opened again, or it is a view whose
    /// elements do not follow one another row by row (a transposed or sliced PyTorch view).
    /// A tensor whose data lies outside its file is RX006's.
    ///
    /// ## How to fix
    /// Nothing is wrong with the file for this; save a view's tensor contiguous
    /// (`.contiguous()`) to have it read.
    VALUES_NOT_READ = ("VX008", "values-not-read", Info);
}
