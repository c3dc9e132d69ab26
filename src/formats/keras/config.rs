//! `config.json`: the model as nested serialized objects (`module`, `class_name`, `config`,
//! `registered_name`), walked without recursion. Every object is judged as Keras 3.15.1's
//! `deserialize_keras_object` and `_retrieve_class_or_fn` would take it (what it imports,
//! what runs), and every layer (an object whose config has a `name` and `trainable`, or an
//! item of a `layers` list) is kept with the layer it is in and the tensors it reads, for
//! the graph ([`super::graph`]).

use super::rules::{
    object_message, CUSTOM_OBJECT, GET_FILE, KERAS2_ARCHIVE, LAMBDA, MODULE_OUTSIDE_KERAS,
    NON_MODELING_API, TORCH_MODULE_WRAPPER, UNSAFE_DESERIALIZATION,
};
use super::tree::{Id, Kind, Tree};
use crate::check::{Place, Rule};
use crate::formats::shared::context::Context;
use crate::formats::shared::json::Str;
use crate::formats::shared::pickle::{effects, resolve};
use crate::inventory::{Import, Trust};
use std::collections::{HashMap, HashSet};

/// Keras' own packages: `_retrieve_class_or_fn` imports modules of these only (since 3.9.0).
const KERAS_PACKAGES: &[&str] = &["keras", "keras_hub", "keras_cv", "keras_nlp"];
/// Keras 2's package, whose loader reads what it saved (and Keras 3 refuses it: KR013).
const TF_KERAS: &str = "tf_keras";
/// The key under which the first `tf_keras` object is remembered, reported once per file.
const TF_KERAS_SEEN: &str = "\0tf_keras";

/// `NON_MODELING_APIS` of Keras 3.15.1 (`serialization_lib.py`), refused since 3.11.
const NON_MODELING_APIS: &[&str] = &[
    "keras.backend.clear_session",
    "keras.config.enable_unsafe_deserialization",
    "keras.models.load_model",
    "keras.models.model_from_json",
    "keras.models.save_model",
    "keras.preprocessing.image.load_img",
    "keras.preprocessing.image.save_img",
    "keras.preprocessing.image_dataset_from_directory",
    "keras.preprocessing.text_dataset_from_directory",
    "keras.saving.deserialize_keras_object",
    "keras.saving.load_model",
    "keras.saving.load_weights",
    "keras.saving.register_keras_serializable",
    "keras.saving.save_model",
    "keras.saving.save_weights",
    "keras.saving.serialize_keras_object",
    "keras.utils.audio_dataset_from_directory",
    "keras.utils.clear_session",
    "keras.utils.deserialize_keras_object",
    "keras.utils.get_file",
    "keras.utils.image_dataset_from_directory",
    "keras.utils.load_img",
    "keras.utils.register_keras_serializable",
    "keras.utils.save_img",
    "keras.utils.serialize_keras_object",
    "keras.utils.text_dataset_from_directory",
];

/// Where a config's bytes are (an archive's `config.json`, or a legacy `.h5`'s `model_config`
/// attribute): offsets in it become the file's where it is stored, and its member's local
/// header (or its attribute) where it is compressed.
#[derive(Debug, Clone, Copy)]
pub struct Located {
    /// What holds it, for messages: `config.json` or `the model_config attribute`.
    pub name: &'static str,
    /// Whether it is a legacy `.h5`'s, which Keras 3.0.0 to 3.11.2 load ignoring `safe_mode`.
    pub legacy_h5: bool,
    /// Offset of its first byte in the file, if stored.
    pub data: Option<u64>,
    /// Offset of its local header.
    pub header: u64,
}

impl Located {
    /// The file offset of `at`, an offset in the document.
    pub fn of(self, at: u64) -> u64 {
        self.data.map_or(self.header, |d| d.saturating_add(at))
    }
}

/// A layer of the model.
#[derive(Debug)]
pub struct Layer<'a> {
    /// Its `config.name`.
    pub name: Str<'a>,
    /// Its `class_name`.
    pub class: Str<'a>,
    /// Its file offset.
    pub at: u64,
    /// The layer (a model) it is in.
    pub parent: Option<usize>,
    /// The tensors its `inbound_nodes` read: `keras_history` (layer, node, tensor) of a
    /// layer in the same model.
    pub reads: Vec<TensorRef<'a>>,
}

/// A tensor a layer makes: the layer's name, its node index and its output index.
pub type TensorRef<'a> = (Str<'a>, u64, u64);

/// What the walk keeps.
#[derive(Debug, Default)]
pub struct Model<'a> {
    /// The layers, each after the layer it is in.
    pub layers: Vec<Layer<'a>>,
    /// The outermost model's `input_layers` and `output_layers`, if it is functional.
    pub inputs: Vec<TensorRef<'a>>,
    /// See [`Model::inputs`].
    pub outputs: Vec<TensorRef<'a>>,
}

/// One value still to visit.
struct Visit {
    id: Id,
    /// The innermost layer it is in.
    layer: Option<usize>,
    /// Whether it is an item of a `layers` list.
    listed: bool,
}

/// Walks the config, reporting and listing what loading it imports and runs.
pub fn walk<'a>(cx: &mut Context<'_>, tree: &Tree<'a>, doc: Located) -> Model<'a> {
    let mut model = Model::default();
    let mut seen = HashSet::new();
    // Each model's last layer so far.
    let mut last: HashMap<usize, usize> = HashMap::new();
    let mut stack: Vec<Visit> = tree
        .root()
        .map(|id| Visit {
            id,
            layer: None,
            listed: true,
        })
        .into_iter()
        .collect();
    while let Some(visit) = stack.pop() {
        let Some(value) = tree.get(visit.id) else {
            continue;
        };
        let mut layer = visit.layer;
        if matches!(value.kind, Kind::Object) {
            if let Some(object) = Object::of(tree, visit.id, doc) {
                judge(cx, tree, &object, visit.layer, &model, &mut seen, doc);
                if object.class.is("__keras_tensor__") {
                    read_tensor(tree, &object, visit.layer, &mut model);
                } else if let Some(name) = object.layer_name(tree, visit.listed) {
                    let id = model.layers.len();
                    // A Sequential model's layers each read the one before.
                    let parent = visit.layer.and_then(|p| Some((p, model.layers.get(p)?)));
                    let reads = match parent {
                        Some((p, parent)) if parent.class.is("Sequential") => {
                            let previous = last.get(&p).and_then(|&l| model.layers.get(l));
                            previous.map(|l| (l.name, 0, 0)).into_iter().collect()
                        }
                        _ => legacy_reads(tree, visit.id),
                    };
                    if let Some(p) = visit.layer {
                        last.insert(p, id);
                    }
                    model.layers.push(Layer {
                        name,
                        class: object.class,
                        at: object.at,
                        parent: visit.layer,
                        reads,
                    });
                    layer = Some(id);
                    if let (0, Some(config)) = (id, object.config) {
                        model.inputs = tensor_refs(tree, config, "input_layers");
                        model.outputs = tensor_refs(tree, config, "output_layers");
                    }
                }
            }
        }
        let listed = matches!(value.kind, Kind::Array) && value.key.is_some_and(|k| k.is("layers"));
        let children: Vec<Id> = tree.children(visit.id).collect();
        stack.extend(
            children
                .into_iter()
                .rev()
                .map(|id| Visit { id, layer, listed }),
        );
    }
    model
}

/// A serialized object: a dict with a `class_name`.
struct Object<'a> {
    class: Str<'a>,
    module: Option<Str<'a>>,
    registered: Option<Str<'a>>,
    config: Option<Id>,
    at: u64,
}

impl<'a> Object<'a> {
    fn of(tree: &Tree<'a>, id: Id, doc: Located) -> Option<Self> {
        let class = tree.string(id, "class_name")?;
        Some(Object {
            class,
            module: tree.string(id, "module"),
            registered: tree.string(id, "registered_name"),
            config: tree.member(id, "config"),
            at: doc.of(tree.get(id)?.at),
        })
    }

    /// Its name, if it is a layer: its config has a `name` and `trainable`, or it is an item
    /// of a `layers` list.
    fn layer_name(&self, tree: &Tree<'a>, listed: bool) -> Option<Str<'a>> {
        let config = self.config?;
        let name = tree.string(config, "name")?;
        let trainable = tree.member(config, "trainable").is_some();
        (trainable || listed).then_some(name)
    }

    /// What it names: a function's name (its config) or the class.
    fn name(&self, tree: &Tree<'a>) -> Str<'a> {
        let function = self.config.and_then(|c| match tree.get(c)?.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        });
        match function {
            Some(f) if self.class.is("function") => f,
            _ => self.class,
        }
    }
}

/// The `keras_history` of a `__keras_tensor__`, as a tensor the layer it is in reads.
fn read_tensor<'a>(
    tree: &Tree<'a>,
    object: &Object<'a>,
    layer: Option<usize>,
    model: &mut Model<'a>,
) {
    let history = object.config.and_then(|c| tree.member(c, "keras_history"));
    let read = history.and_then(|h| tensor_ref(tree, h));
    if let (Some(read), Some(layer)) = (read, layer.and_then(|l| model.layers.get_mut(l))) {
        layer.reads.push(read);
    }
}

/// A `[layer, node, tensor]` list.
fn tensor_ref<'a>(tree: &Tree<'a>, list: Id) -> Option<TensorRef<'a>> {
    let mut parts = tree
        .children(list)
        .filter_map(|id| Some(tree.get(id)?.kind));
    let number = |k: Option<Kind<'_>>| match k {
        Some(Kind::Number(n)) => n.as_u64(),
        _ => None,
    };
    match (parts.next(), number(parts.next()), number(parts.next())) {
        (Some(Kind::Str(from)), Some(node), Some(index)) => Some((from, node, index)),
        _ => None,
    }
}

/// The tensors a Keras 2 layer reads: its `inbound_nodes` as lists of nodes, each a list of
/// `[layer, node, tensor, kwargs]` (Keras 3 writes `__keras_tensor__` objects instead, read
/// as the walk meets them; its loader reads both, `functional.deserialize_node`).
fn legacy_reads<'a>(tree: &Tree<'a>, layer: Id) -> Vec<TensorRef<'a>> {
    let Some(nodes) = tree.member(layer, "inbound_nodes") else {
        return Vec::new();
    };
    let array = |id: &Id| tree.get(*id).is_some_and(|v| matches!(v.kind, Kind::Array));
    (tree.children(nodes).filter(array))
        .flat_map(|node| tree.children(node))
        .filter_map(|r| tensor_ref(tree, r))
        .collect()
}

/// A functional model's `input_layers` or `output_layers`: one `[layer, node, tensor]` or a
/// list of them.
fn tensor_refs<'a>(tree: &Tree<'a>, config: Id, key: &str) -> Vec<TensorRef<'a>> {
    let Some(list) = tree.member(config, key) else {
        return Vec::new();
    };
    match tensor_ref(tree, list) {
        Some(one) => vec![one],
        None => tree
            .children(list)
            .filter_map(|l| tensor_ref(tree, l))
            .collect(),
    }
}

/// What an object makes loading do.
enum Verdict {
    /// Keras' own, or data.
    Keras,
    /// Reported with this rule and reason; listed with this trust.
    Reported(&'static Rule, String, Trust),
}

/// Judges one object: reports what loading it runs, and lists it as an import.
fn judge(
    cx: &mut Context<'_>,
    tree: &Tree<'_>,
    object: &Object<'_>,
    layer: Option<usize>,
    model: &Model<'_>,
    seen: &mut HashSet<String>,
    doc: Located,
) {
    let class = object.class.unescape();
    if class.starts_with("__") && class != "__lambda__" {
        return;
    }
    let name = object.name(tree).unescape();
    let module = object.module.map(|m| m.unescape());
    let registered = object.registered.map(|r| r.unescape());
    let holder = layer.and_then(|l| model.layers.get(l));
    let path = match (&module, &registered) {
        // Each lambda is code of its own: listed by the layer that holds it.
        _ if class == "__lambda__" => match holder {
            Some(l) => format!("__lambda__ of layer {}", l.name.unescape()),
            None => class.to_string(),
        },
        (Some(m), _) => format!("{m}.{name}"),
        (None, Some(r)) if r.contains('>') => r.to_string(),
        (None, _) => name.to_string(),
    };
    let verdict = verdict(
        tree,
        object,
        &class,
        &name,
        module.as_deref(),
        &path,
        doc.legacy_h5,
    );
    // A lambda is shown by its class: the layer that holds it is named once, as its place.
    let shown = match class == "__lambda__" {
        true => &class,
        false => path.as_str(),
    };
    let keras2 = module.as_deref().is_some_and(|m| package(m) == TF_KERAS);
    if keras2 && matches!(verdict, Verdict::Keras) && seen.insert(TF_KERAS_SEEN.to_owned()) {
        let why = "a Keras 2 (tf-keras) object: Keras 3 refuses the file (\"Could not locate class\"); tf_keras.models.load_model reads it";
        let message = object_message(doc.name, &path, object.at, None, why);
        cx.report(&KERAS2_ARCHIVE, Place::at(object.at), message);
    }
    let trust = match verdict {
        Verdict::Keras if module.is_none() => return,
        Verdict::Keras => Trust::Safe,
        Verdict::Reported(rule, why, trust) => {
            // A custom object is reported once, however many layers use it.
            if rule.code != CUSTOM_OBJECT.code || !seen.contains(&path) {
                let within = holder.map(|l| (l.name.unescape(), l.class.unescape()));
                let within = within.as_ref().map(|(n, c)| (n.as_ref(), c.as_ref()));
                let message = object_message(doc.name, shown, object.at, within, &why);
                cx.report(rule, Place::at(object.at), message);
            }
            trust
        }
    };
    if !seen.insert(path.clone()) || !cx.spend(1, Place::at(object.at)) {
        return;
    }
    let Some(name) = cx.names.spelled(
        path.as_bytes(),
        Place::at(object.at),
        &mut cx.budget,
        cx.out,
    ) else {
        return;
    };
    cx.inv.imports.push(Import {
        name,
        kind: "config",
        file: 0,
        offset: object.at,
        call: None,
        trust,
    });
}

/// What loading `object`, naming `module.name`, does.
fn verdict(
    tree: &Tree<'_>,
    object: &Object<'_>,
    class: &str,
    name: &str,
    module: Option<&str>,
    path: &str,
    legacy_h5: bool,
) -> Verdict {
    let package = module.map(package);
    let tf_keras = package == Some(TF_KERAS);
    let keras = tf_keras || package.is_some_and(|p| KERAS_PACKAGES.contains(&p));
    // tf_keras' public APIs are Keras' under another package name.
    let api = path
        .strip_prefix("tf_")
        .filter(|_| tf_keras)
        .unwrap_or(path);
    let keras2_lambda = class == "Lambda"
        && object
            .config
            .and_then(|c| tree.string(c, "function_type"))
            .is_some_and(|t| t.is("lambda"));
    if class == "__lambda__" || keras2_lambda {
        let why = match legacy_h5 {
            true => "a Python lambda whose marshalled bytecode loading runs: Keras 3.0.0 to 3.11.2 ignore safe_mode for a legacy .h5 and run it even with safe_mode=True (CVE-2025-9905), Keras before 2.13 ran it always (CVE-2024-3660); Keras 3.11.3 and later refuse it with safe_mode=True, the default",
            false => "a Python lambda whose marshalled bytecode loading runs with safe_mode=False (safe_mode=True, the default, refuses it; Keras before 2.13 ran it always, CVE-2024-3660)",
        };
        Verdict::Reported(&LAMBDA, why.into(), Trust::Code)
    } else if name == "enable_unsafe_deserialization" {
        let why = "deserializing it turns safe mode off for the rest of the load, so lambdas after it run (CVE-2025-9906, Keras 3.0 to 3.10; 3.11 and later refuse it)";
        Verdict::Reported(&UNSAFE_DESERIALIZATION, why.into(), Trust::Unsafe)
    } else if name == "get_file" {
        let why = "loading downloads the file its config names (CVE-2025-8747, Keras 3.0 to 3.10 with safe_mode=True; 3.11 and later refuse it)";
        Verdict::Reported(&GET_FILE, why.into(), Trust::Unsafe)
    } else if class == "TorchModuleWrapper" {
        let why = "its config holds a torch.save'd module that loading unpickles with torch.load, running any code (CVE-2025-49655, Keras 3.11.0 to 3.11.2 with safe_mode=True; later versions refuse it unless safe_mode=False)";
        Verdict::Reported(&TORCH_MODULE_WRAPPER, why.into(), Trust::Unsafe)
    } else if keras && NON_MODELING_APIS.contains(&api) {
        let why = "not a modeling API: Keras 3.11 and later refuse it, earlier versions call it while loading";
        Verdict::Reported(&NON_MODELING_API, why.into(), Trust::Unsafe)
    } else if keras {
        Verdict::Keras
    } else {
        outside(object, name, module)
    }
}

/// The top-level package of `module`.
fn package(module: &str) -> &str {
    module.split('.').next().unwrap_or(module)
}

/// An object in a module outside Keras' packages, or in none (found by its registered name,
/// or as a Keras 2 built-in by its class name).
fn outside(object: &Object<'_>, name: &str, module: Option<&str>) -> Verdict {
    let effect = module.and_then(|m| effects::of(&resolve(m, name, 4)));
    let builtin_function = module == Some("builtins") && object.class.is("function");
    // Keras 2 writes a registered object's `Package>Name` as its class name.
    let custom = object.registered.is_some_and(|r| r.raw().contains('>'))
        || (module.is_none() && object.class.raw().contains('>'));
    match effect {
        None if builtin_function || (module.is_none() && !custom) => Verdict::Keras,
        None if custom => {
            let why = "a custom object: load_model needs its code registered (@keras.saving.register_keras_serializable or custom_objects) and runs it, and refuses the file without it";
            Verdict::Reported(&CUSTOM_OBJECT, why.into(), Trust::Module)
        }
        _ => {
            let does = effect.map_or_else(
                || "imports the module".to_owned(),
                |e| format!("imports the module, and calling it {e}"),
            );
            let why = format!("Keras before 3.9.0 {does} (CVE-2025-1550, with safe_mode=True too); Keras 3.9 and later refuse it (\"Could not locate\") unless an object is registered under its name");
            Verdict::Reported(&MODULE_OUTSIDE_KERAS, why, Trust::Unsafe)
        }
    }
}
