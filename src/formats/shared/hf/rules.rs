//! Rules for a Hugging Face checkpoint held to its `config.json` (codes HF001..), as
//! transformers' `from_pretrained` loads it; `schema/hf_arch.tsv` is the table, and
//! `tests/fixtures/hf/oracle.tsv` records what transformers says of each fixture.

crate::rules! {
    group = ("HF", "Hugging Face checkpoints");
    /// `config.json` beside the checkpoint cannot be read.
    ///
    /// ## What it does
    /// Reads the `config.json` beside `model.safetensors`, `model.safetensors.index.json`
    /// or `pytorch_model.bin` as strict JSON (at most 4 MiB) and reports one that cannot be
    /// opened, is not JSON, or is not an object.
    ///
    /// ## Why
    /// `from_pretrained` reads the architecture and every size from it; without it the
    /// checkpoint cannot be loaded, and rtenx cannot tell whether the weights fit.
    ///
    /// ## How to fix
    /// Download `config.json` again, or save the model again with `save_pretrained`.
    CONFIG_UNREADABLE = ("HF001", "config-unreadable", Error);
    /// The checkpoint is not checked against an architecture.
    ///
    /// ## What it does
    /// Reports, once, a checkpoint whose `config.json` names no class (in `architectures`, or
    /// through `model_type`, as `AutoModelForCausalLM` finds it), one not in
    /// rtenx's table, or a quantized checkpoint (`quantization_config`: GPTQ, AWQ,
    /// bitsandbytes, compressed-tensors, MLX), whose tensors are not the dense model's.
    ///
    /// ## Why
    /// "Does it match config.json?" is answered only for the architectures in the table;
    /// for the others rtenx says so rather than guess.
    ///
    /// ## How to fix
    /// Nothing to fix in the model. Load it with transformers to be sure.
    NOT_CHECKED = ("HF002", "checkpoint-not-checked", Info);
    /// A weight the architecture needs is in no file of the checkpoint.
    ///
    /// ## What it does
    /// Lists the state-dict keys the class in `config.json` loads, for its sizes (per layer,
    /// with the variants the config switches on), from the table generated from
    /// transformers, and reports each the checkpoint lacks. Tied weights and keys
    /// transformers ignores are not reported.
    ///
    /// ## Why
    /// transformers loads the checkpoint anyway and **initialises the missing weights at
    /// random**, with only a warning ("Some weights of ... were not initialized from the
    /// model checkpoint"): the model runs, on random layers.
    ///
    /// ## How to fix
    /// A shard is missing or the conversion dropped the weight: download or convert again.
    WEIGHT_MISSING = ("HF003", "weight-missing", Error);
    /// The checkpoint holds a weight the architecture does not use.
    ///
    /// ## What it does
    /// Reports each key no key of the class matches, after transformers' own prefix
    /// handling and its list of keys to ignore.
    ///
    /// ## Why
    /// transformers drops it with a warning: it was trained for nothing, or the checkpoint
    /// belongs to another architecture or size than `config.json` says.
    ///
    /// ## How to fix
    /// Check that `config.json` is the checkpoint's own; remove the stray weight.
    WEIGHT_UNEXPECTED = ("HF004", "weight-unexpected", Warning);
    /// A weight's shape is not the one `config.json` implies.
    ///
    /// ## What it does
    /// Evaluates each key's shape from the config's sizes, as the class builds the module,
    /// and compares it dimension by dimension; the message shows each expression's value.
    ///
    /// ## Why
    /// transformers refuses to load it ("size mismatch for ..."), unless told to ignore
    /// mismatches, which initialises the weight at random.
    ///
    /// ## How to fix
    /// `config.json` is from another size of the model, or the weight was saved transposed.
    WEIGHT_SHAPE = ("HF005", "weight-shape", Error);
    /// Weights are stored in another dtype than `config.json` says.
    ///
    /// ## What it does
    /// Compares the tensors' dtypes with `torch_dtype` (or `dtype`) and reports, once, how
    /// many differ.
    ///
    /// ## Why
    /// transformers casts them when asked for that dtype: the checkpoint is larger or less
    /// precise than the config claims.
    ///
    /// ## How to fix
    /// Nothing needs fixing to load it; save again in the stated dtype to keep them in step.
    DTYPE_DIFFERS = ("HF006", "dtype-differs", Info);
    /// A local file is not the one the Hub records at that path.
    ///
    /// ## What it does
    /// With `check --expect-hub hf://ORG/REPO[@REVISION]`, each file the check hashes (each
    /// model and data file) is looked up in the repository's listing at the commit the
    /// revision resolves to, by its path below the folder named on the command line, and
    /// held to what the Hub records: an LFS file's SHA-256, a file stored in git its git
    /// blob id (SHA-1 of `blob SIZE\0` and the content), and the size.
    ///
    /// ## Why
    /// A local copy that differs from the published one was corrupted, truncated, or changed
    /// after download: the findings of the check are about another model than the one on
    /// the Hub. `huggingface_hub` checks the SHA-256 only while it downloads, not later.
    ///
    /// ## How to fix
    /// Download the file again (`hf download ORG/REPO PATH --revision COMMIT`), or check
    /// against the revision the copy was made from.
    HUB_DIGEST_DIFFERS = ("HF007", "hub-digest-differs", Error);
    /// A local file is not in the Hub repository it is held to.
    ///
    /// ## What it does
    /// With `check --expect-hub`, reports each file the check hashes that the repository's
    /// listing lacks at that path.
    ///
    /// ## Why
    /// A file added to the copy, or renamed, is not the publisher's: it is judged on its own.
    ///
    /// ## How to fix
    /// Remove the file from the copy, or check against the repository and revision it came
    /// from.
    NOT_ON_HUB = ("HF008", "not-on-hub", Warning);
}
