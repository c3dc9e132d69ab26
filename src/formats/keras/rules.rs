//! Rules specific to Keras archives and legacy `.h5` files (codes KR001..). The reference is
//! Keras 3.15.1's loader, `keras/src/saving/saving_lib.py` (the archive),
//! `legacy/saving/legacy_h5_format.py` (`.h5`) and `serialization_lib.py` (what a config may
//! name): `tests/fixtures/keras/verdicts.tsv` records what `keras.saving.load_model` says
//! about each fixture with `safe_mode=True` and `safe_mode=False`. See
//! `../shared/reference/tflite-keras.md`.

use crate::escape::excerpt;

crate::rules! {
    group = ("KR", "Keras");
    /// A Keras archive lacks `config.json` or its weights.
    ///
    /// ## What it does
    /// Looks for the members `load_model` reads: `config.json`, and `model.weights.h5` or
    /// `model.weights.npz`.
    ///
    /// ## Why
    /// `load_model` refuses the archive ("There is no item named 'config.json' in the
    /// archive", "Expected a model.weights.h5 or model.weights.npz file").
    ///
    /// ## How to fix
    /// The file is incomplete; save the model again with `model.save("x.keras")`.
    MEMBER_MISSING = ("KR001", "keras-member-missing", Error);
    /// A Keras config is not a JSON object, or nests deeper than rtenx reads.
    ///
    /// ## What it does
    /// Reads `config.json`, or a legacy `.h5`'s root attribute `model_config` (which must be a
    /// string), as strict JSON (RFC 8259) into a tree of at most 256 levels, paid from the
    /// model's budget, and reports where it goes wrong.
    ///
    /// ## Why
    /// `load_model` refuses a config `json.loads` cannot read; a config rtenx cannot read
    /// whole cannot be judged for what loading it imports.
    ///
    /// ## How to fix
    /// Save the model again.
    CONFIG_INVALID = ("KR002", "keras-config-invalid", Error);
    /// `metadata.json` is missing, not a JSON object, or names no Keras version.
    ///
    /// ## What it does
    /// Reads `metadata.json` and its `keras_version` and `date_saved`; in a legacy `.h5`, the
    /// root attribute `keras_version`.
    ///
    /// ## Why
    /// `model.save` always writes it; `load_model` does not read it, so a loader still
    /// loads the model, but the version that wrote the file (and the CVEs that apply to it,
    /// KR010) is unknown.
    ///
    /// ## How to fix
    /// Save the model again.
    METADATA_INVALID = ("KR003", "keras-metadata-invalid", Warning);
    /// A config holds a Python lambda: loading with `safe_mode=False` runs its bytecode.
    ///
    /// ## What it does
    /// Reports every `__lambda__` object of `config.json` or an `.h5`'s `model_config` (a
    /// `Lambda` layer's function, or one anywhere else) and every Keras 2 `Lambda` layer whose
    /// `function_type` is `lambda`.
    ///
    /// ## Why
    /// The lambda is marshalled Python bytecode, base64-encoded; `python_utils.func_load`
    /// rebuilds and runs it (CVE-2024-3660 for Keras before 2.13, which ran it always).
    /// Keras 3 refuses it with `safe_mode=True`, the default ("Requested the deserialization
    /// of a Python lambda"), and runs it with `safe_mode=False` or after
    /// `keras.config.enable_unsafe_deserialization()`. Keras 3.0.0 to 3.11.2 ignore
    /// `safe_mode` for a legacy `.h5` and run it even with `safe_mode=True` (CVE-2025-9905).
    /// modelscan reports `Lambda` layers too.
    ///
    /// ## How to fix
    /// Replace the lambda by a registered function or layer
    /// (`@keras.saving.register_keras_serializable`), or load only archives you trust with
    /// `safe_mode=False`.
    LAMBDA = ("KR004", "keras-lambda", Error);
    /// A config names a module outside Keras that loading could import.
    ///
    /// ## What it does
    /// Reports every object of `config.json` whose `module` is not in Keras' own packages
    /// (`keras`, `keras_hub`, `keras_cv`, `keras_nlp`) and that is no custom object
    /// registered by name (`registered_name` `Package>Name`), or whose `module.class_name`
    /// runs a command, a process, code, the network or files (`os.system`,
    /// `subprocess.Popen`, `builtins.eval`, ...).
    ///
    /// ## Why
    /// Keras before 3.9.0 imported any module a config names and took the object from it
    /// (CVE-2025-1550), with `safe_mode=True` too. Keras 3.9 and later import only from its
    /// own packages (`_retrieve_class_or_fn`) and refuse the rest ("Could not locate class")
    /// unless an object is registered under the name; older loaders run it.
    ///
    /// ## How to fix
    /// Do not load the file with Keras before 3.9. Save custom classes registered with
    /// `@keras.saving.register_keras_serializable`.
    MODULE_OUTSIDE_KERAS = ("KR005", "keras-module-outside-keras", Error);
    /// A config names a custom object: loading needs its code registered, and runs it.
    ///
    /// ## What it does
    /// Reports each distinct custom object (a `registered_name` of the form `Package>Name`,
    /// with a `module` outside Keras) that `config.json` names.
    ///
    /// ## Why
    /// `load_model` finds it among the objects registered with
    /// `@keras.saving.register_keras_serializable` (or passed as `custom_objects`) and runs
    /// their code; without them it refuses the file ("Could not locate class"). The
    /// archive does not carry that code: the model works only with the right package.
    ///
    /// ## How to fix
    /// Ship the package that registers it beside the model, or use built-in layers.
    CUSTOM_OBJECT = ("KR006", "keras-custom-object", Warning);
    /// A config reaches `keras.utils.get_file`, which downloads files.
    ///
    /// ## What it does
    /// Reports every object of `config.json` whose class or function is `get_file`, in
    /// `keras.utils` or a Keras module.
    ///
    /// ## Why
    /// Keras 3.0 to 3.10 deserialized it even with `safe_mode=True`, so loading downloaded
    /// a file the config names and could overwrite local files (CVE-2025-8747). Keras 3.11 and
    /// later refuse it ("Non-modeling APIs are disallowed during deserialization").
    ///
    /// ## How to fix
    /// The config was edited to attack its loader; do not load it.
    GET_FILE = ("KR007", "keras-get-file", Error);
    /// A config calls `keras.config.enable_unsafe_deserialization`.
    ///
    /// ## What it does
    /// Reports every object of `config.json` that names `enable_unsafe_deserialization`.
    ///
    /// ## Why
    /// Deserializing it turns safe mode off for the rest of the load, so a `Lambda` layer
    /// after it runs its bytecode with `safe_mode=True` (CVE-2025-9906, Keras 3.0 to 3.10).
    /// Keras 3.11 and later refuse it as a non-modeling API.
    ///
    /// ## How to fix
    /// The config was edited to attack its loader; do not load it.
    UNSAFE_DESERIALIZATION = ("KR008", "keras-enable-unsafe-deserialization", Error);
    /// A config holds a `TorchModuleWrapper`, whose state is a pickle.
    ///
    /// ## What it does
    /// Reports every `TorchModuleWrapper` layer of `config.json`.
    ///
    /// ## Why
    /// Its config holds a `torch.save`d module that `from_config` loads with `torch.load`,
    /// which unpickles it: any code runs. Keras 3.11.0 to 3.11.2 did so with
    /// `safe_mode=True` (CVE-2025-49655); later versions refuse it unless
    /// `safe_mode=False`.
    ///
    /// ## How to fix
    /// Load it only from a source you trust, with `safe_mode=False`; prefer Keras layers.
    TORCH_MODULE_WRAPPER = ("KR009", "keras-torch-module-wrapper", Error);
    /// A config names another API Keras calls no part of a model.
    ///
    /// ## What it does
    /// Reports every object of `config.json` whose `module.class_name` is in Keras'
    /// `NON_MODELING_APIS` (loading, saving, registering, datasets), other than `get_file`
    /// (KR007) and `enable_unsafe_deserialization` (KR008).
    ///
    /// ## Why
    /// Keras 3.11 and later refuse them ("Non-modeling APIs are disallowed during
    /// deserialization for security"); earlier versions called them, loading or saving
    /// other files while loading this one.
    ///
    /// ## How to fix
    /// The config was edited to attack its loader; do not load it.
    NON_MODELING_API = ("KR010", "keras-non-modeling-api", Error);
    /// The Keras version that saved the file has known vulnerabilities in loading.
    ///
    /// ## What it does
    /// Compares `metadata.json`'s `keras_version` with the versions the loading CVEs
    /// affect: CVE-2024-3660 (before 2.13), CVE-2025-1550 (before 3.9.0), CVE-2025-8747 and
    /// CVE-2025-9906 (3.0.0 to 3.10.x), CVE-2025-9905 (3.0.0 to 3.11.2, legacy `.h5`) and
    /// CVE-2025-49655 (3.11.0 to 3.11.2).
    ///
    /// ## Why
    /// A file's users often load it with the version that saved it; that version runs what
    /// the rules above report even with `safe_mode=True`.
    ///
    /// ## How to fix
    /// Load the model with a current Keras (3.11.3 or later), and save it again with it.
    VULNERABLE_VERSION = ("KR011", "keras-vulnerable-version", Warning);
    /// A member of a Keras archive is a decompression bomb.
    ///
    /// ## What it does
    /// Reports a member that declares more than 4 GiB once decompressed and more than 100
    /// times its stored size.
    ///
    /// ## Why
    /// Keras refuses it before reading ("refusing to load a potential decompression bomb",
    /// `_reject_zip_bomb`); a loader without that check allocates the declared size.
    ///
    /// ## How to fix
    /// The archive was made by hand; save the model again.
    ZIP_BOMB = ("KR012", "keras-zip-bomb", Error);
    /// A `.keras` archive saved by Keras 2 (tf-keras): Keras 3 refuses it.
    ///
    /// ## What it does
    /// Reports, once per file, an object of `config.json` in `tf_keras`, the Keras 2 package
    /// that TensorFlow's `tf.keras` was before Keras 3. Such objects are judged as Keras' own
    /// (no KR005), since `tf_keras.models.load_model` reads them; its non-modelling APIs are
    /// still KR010.
    ///
    /// ## Why
    /// Keras 3 imports only from its own packages and refuses the file ("Could not locate
    /// class 'Functional'"); tf-keras 2.x loads it (`tests/fixtures/keras/verdicts.tsv`). The
    /// file is not unsafe for it: it needs the loader that wrote it.
    ///
    /// ## How to fix
    /// Load it with `tf_keras.models.load_model` (`pip install tf-keras`), or load it there and
    /// save it again with Keras 3.
    KERAS2_ARCHIVE = ("KR013", "keras-2-archive", Warning);
}

/// The message for an object of the config `document` (`config.json`, or a legacy `.h5`'s
/// `model_config`) that names `shown`, at offset `at`, in the layer `within` (its name and
/// class) if any, reported because of `why`.
pub fn object_message(
    document: &str,
    shown: &str,
    at: u64,
    within: Option<(&str, &str)>,
    why: &str,
) -> String {
    let within = within.map_or_else(String::new, |(name, class)| {
        let (name, class) = (
            excerpt(name.as_bytes(), 100),
            excerpt(class.as_bytes(), 100),
        );
        format!(" in layer \"{name}\" ({class})")
    });
    let shown = excerpt(shown.as_bytes(), 200);
    format!("{document} names {shown} at {at}{within}: {why}")
}
