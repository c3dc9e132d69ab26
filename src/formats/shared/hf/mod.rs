//! "Does this Hugging Face checkpoint match its config.json?": the tensors of a checkpoint
//! transformers loads (`model.safetensors`, its sharded index, `pytorch_model.bin`) held to
//! the state dict of the class `config.json` names, from the table generated from
//! transformers itself (`table.rs`). transformers loads a checkpoint that does not match
//! with only a warning and initialises what is missing at random; rtenx says so without
//! loading anything. See `../shared/reference/loadable.md`.

mod config;
pub mod rules;
pub mod table;

use crate::check::{Item, Place};
use crate::escape::{excerpt, EXCERPT, EXCERPT_SHORT};
use crate::formats::shared::context::Context;
use crate::formats::shared::datafiles::Folder;
use crate::formats::shared::expr::{dims_shown, Expr, Scope, Value};
use crate::formats::shared::tensor_index::TensorIndex;
use crate::inventory::architecture::{Architecture, Companion, Size, Verdict};
use crate::inventory::{DType, TensorId};
use config::Config;
use rules::{
    CONFIG_UNREADABLE, DTYPE_DIFFERS, NOT_CHECKED, WEIGHT_MISSING, WEIGHT_SHAPE, WEIGHT_UNEXPECTED,
};
use std::collections::{HashMap, HashSet};
use table::{table, Class};

/// The checkpoint file names `from_pretrained` loads (transformers' `SAFE_WEIGHTS_NAME`,
/// `SAFE_WEIGHTS_INDEX_NAME`, `WEIGHTS_NAME`); other weights in the folder, such as
/// Mistral's `consolidated.safetensors`, are not the config's.
const LOADED: [&str; 3] = [
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
];

/// The most keys a class is expanded to for one checkpoint.
const MAX_KEYS: u64 = 1 << 20;

/// The largest config.json read: real ones are a few kilobytes.
const MAX_CONFIG: u64 = 4 << 20;

/// Checks the checkpoint of `cx`, whose tensors are read, against the config.json beside
/// it, if it is a file transformers loads and there is one.
pub fn check(cx: &mut Context<'_>) {
    let path = cx.file.path();
    let loaded = path.file_name().and_then(|n| n.to_str());
    if !loaded.is_some_and(|n| LOADED.contains(&n)) {
        return;
    }
    // The model's own folder (or repository), resolved once; config.json is opened in it
    // without following a symlink.
    let folder = Folder::of(cx.file);
    let place = Place::field("config.json", None);
    let file = match folder.open_file("config.json") {
        Ok(Some(file)) => file,
        Ok(None) => return,
        Err(e) => {
            let message = format!("config.json beside the checkpoint cannot be read: {e}");
            cx.report(&CONFIG_UNREADABLE, place, message);
            return;
        }
    };
    let bytes = file.bytes();
    if bytes.len() as u64 > MAX_CONFIG {
        let message = format!(
            "config.json is {} bytes; rtenx reads at most {MAX_CONFIG}",
            bytes.len()
        );
        cx.report(&CONFIG_UNREADABLE, place, message);
        return;
    }
    let config = match config::read(bytes) {
        Ok(config) => config,
        Err(e) => {
            let message = format!("config.json is not a JSON object transformers can read: {e}");
            cx.report(&CONFIG_UNREADABLE, place, message);
            return;
        }
    };
    let table = table();
    let question = format!("matches config.json for {}", table.version);
    // Without `architectures`, AutoModelForCausalLM builds the class of `model_type`.
    let class_name =
        (config.architecture.as_deref()).or_else(|| table.causal_lm(config.model_type.as_deref()?));
    let name = class_name.unwrap_or_default().to_owned();
    let not_checked = |cx: &mut Context<'_>, reason: String| {
        cx.report(
            &NOT_CHECKED,
            place,
            format!("the checkpoint is not checked against config.json: {reason}"),
        );
        cx.inv.architecture = Some(Architecture {
            name: name.as_str().into(),
            question: question.clone(),
            sizes: Vec::new(),
            verdict: Verdict::NotChecked { reason },
            unexpected: Vec::new(),
            companions: companions(&folder, false),
        });
    };
    let Some(class_name) = class_name else {
        let reason =
            "config.json names no class in `architectures`, nor a `model_type` rtenx's table has";
        not_checked(cx, reason.into());
        return;
    };
    if let Some(method) = &config.quantization {
        let reason =
            format!("it is quantized ({method}), so its tensors are not the dense model's");
        not_checked(cx, reason);
        return;
    }
    let Some(class) = table.class(class_name) else {
        let reason = format!(
            "{} is not in rtenx's table of {} classes",
            excerpt(class_name.as_bytes(), EXCERPT_SHORT),
            table.version
        );
        not_checked(cx, reason);
        return;
    };
    let mut check = Check {
        class,
        config: &config,
        layer: HashMap::new(),
        errors: 0,
        version: table.version,
        class_name,
    };
    let unexpected = check.tensors(cx);
    check.dtypes(cx);
    let sizes = sizes(&check);
    let verdict = match check.errors {
        0 => Verdict::Yes,
        problems => Verdict::No { problems },
    };
    cx.inv.architecture = Some(Architecture {
        name: class_name.into(),
        question,
        sizes,
        verdict,
        unexpected,
        companions: companions(&folder, true),
    });
}

/// The files transformers reads beside a checkpoint, each with what it takes from it.
const COMPANIONS: &[(&str, &str)] = &[
    ("config.json", "config"),
    ("tokenizer.json", "tokenizer"),
    ("tokenizer.model", "tokenizer"),
    ("tokenizer_config.json", "tokenizer"),
    ("special_tokens_map.json", "tokenizer"),
    ("added_tokens.json", "tokenizer"),
    ("vocab.json", "tokenizer"),
    ("vocab.txt", "tokenizer"),
    ("merges.txt", "tokenizer"),
    ("chat_template.jinja", "chat template"),
    ("chat_template.json", "chat template"),
    ("generation_config.json", "generation settings"),
    ("preprocessor_config.json", "processor"),
    ("processor_config.json", "processor"),
];

/// Which of [`COMPANIONS`] are regular files in `folder` (a symlink is not followed, so
/// one is not listed); config.json was `checked` against the checkpoint, or not.
fn companions(folder: &Folder, checked: bool) -> Vec<Companion> {
    (COMPANIONS.iter())
        .filter(|(name, _)| folder.is_file(name))
        .map(|&(name, role)| Companion {
            name,
            role,
            checked: checked && name == "config.json",
        })
        .collect()
}

/// One class held to one checkpoint.
struct Check<'c> {
    class: &'c Class,
    config: &'c Config,
    /// The values of the loop placeholders (`%d`) being expanded.
    layer: HashMap<&'static str, u64>,
    errors: u32,
    version: &'static str,
    class_name: &'c str,
}

impl Scope for Check<'_> {
    fn var(&self, name: &str) -> Option<Value> {
        if name == "i" {
            return self
                .layer
                .get("%d")
                .and_then(|&i| i64::try_from(i).ok())
                .map(Value::Int);
        }
        let given = (self.class.aliases.iter())
            .filter(|(_, attr)| *attr == name)
            .find_map(|(key, _)| self.config.values.get(*key))
            .or_else(|| self.config.values.get(name));
        let default = self.class.attrs.iter().find(|(a, _)| *a == name);
        let default = default.and_then(|d| d.1.as_ref());
        match (given, default) {
            // An explicit null takes the default the config class computes (`head_dim`).
            (Some(Value::Null), Some(default)) if !matches!(default, Expr::Lit(Value::Null)) => {
                default.eval(self)
            }
            (Some(v), _) => Some(*v),
            (None, default) => default?.eval(self),
        }
    }

    fn present(&self, _: &str) -> Option<bool> {
        None
    }
}

impl Check<'_> {
    fn report(
        &mut self,
        cx: &mut Context<'_>,
        rule: &'static crate::check::Rule,
        place: Place,
        message: String,
    ) {
        if rule.severity == crate::check::Severity::Error {
            self.errors += 1;
        }
        cx.report(rule, place, message);
    }

    /// The loop counts of `spec`'s key; `None` when one is unknown.
    fn loops(&self, spec: &table::Spec) -> Option<Vec<(&'static str, u64)>> {
        (self.class.loops.iter())
            .filter(|(ph, _)| spec.key.contains(ph))
            .map(|&(ph, var)| Some((ph, self.var(var)?.count()?)))
            .collect()
    }

    /// How many keys the class's records expand to, at most.
    fn planned(&self) -> u64 {
        let keys = self
            .class
            .tensors
            .iter()
            .filter_map(|spec| self.loops(spec));
        keys.map(|loops| loops.iter().fold(1u64, |n, (_, c)| n.saturating_mul(*c)))
            .fold(0, u64::saturating_add)
    }

    /// The class's keys, expanded over its loops, with each spec; a key whose loop count is
    /// unknown is left out.
    fn expand(&mut self) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        for (n, spec) in self.class.tensors.iter().enumerate() {
            let Some(loops) = self.loops(spec) else {
                continue;
            };
            let mut keys = vec![(spec.key.to_owned(), HashMap::new())];
            for &(ph, count) in &loops {
                keys = keys
                    .into_iter()
                    .flat_map(|(key, at)| {
                        (0..count).map(move |i| {
                            let mut at: HashMap<&'static str, u64> = at.clone();
                            at.insert(ph, i);
                            (key.replacen(ph, &i.to_string(), 1), at)
                        })
                    })
                    .collect();
            }
            for (key, at) in keys {
                self.layer = at;
                let when = spec.when.as_ref().and_then(|w| w.holds(self));
                if when != Some(false) {
                    out.push((key, n));
                }
            }
        }
        self.layer.clear();
        out
    }

    /// Checks the checkpoint's tensors; returns those the class does not load.
    fn tensors(&mut self, cx: &mut Context<'_>) -> Vec<TensorId> {
        // A config.json that implies far more weights than the checkpoint holds is one
        // finding, not one per weight: its sizes come from the folder, so they bound nothing.
        let held = cx.inv.tensors.len() as u64;
        let planned = self.planned();
        if planned > MAX_KEYS.min(held.saturating_mul(16).saturating_add(4096)) {
            let message = format!(
                "config.json makes {} a model of {planned} weights, and the checkpoint holds {held} tensors; {} would initialise the rest at random",
                self.class_name, self.version
            );
            self.report(
                cx,
                &WEIGHT_MISSING,
                Place::field("config.json", None),
                message,
            );
            return Vec::new();
        }
        let prefix = format!("{}.", self.class.prefix);
        let class_has_prefix = !self.class.prefix.is_empty()
            && self
                .class
                .tensors
                .iter()
                .any(|s| s.key.starts_with(&prefix));
        let file_has_prefix =
            (cx.inv.tensors.iter()).any(|t| t.name.as_bytes().starts_with(prefix.as_bytes()));
        // transformers adds the base model's prefix to a base checkpoint loaded into a model
        // with a head, and strips it from a head checkpoint loaded into the base model: a
        // key of the class is looked up as the checkpoint would spell it.
        let (add, strip) = match (class_has_prefix, file_has_prefix) {
            (true, false) => (false, true),
            (false, true) => (true, false),
            _ => (false, false),
        };
        let in_file = |key: &str| -> String {
            match (add, strip) {
                (true, _) => format!("{prefix}{key}"),
                (_, true) => key.strip_prefix(&prefix).unwrap_or(key).to_owned(),
                _ => key.to_owned(),
            }
        };
        let index = TensorIndex::of(&cx.inv.tensors);
        // Keys transformers renames before matching (legacy `LayerNorm.gamma`): only the
        // tensors a renaming applies to are copied, under their new name.
        let renamed: HashMap<String, TensorId> = (cx.inv.tensors.iter().enumerate())
            .filter_map(|(id, t)| {
                let name = std::str::from_utf8(t.name.as_bytes()).ok()?;
                let (regex, to) = self.class.renames.iter().find(|(r, _)| r.is_match(name))?;
                Some((regex.replace_all(name, *to).into_owned(), id))
            })
            .collect();
        let mut renamed_ids: HashSet<TensorId> = HashSet::new();
        let mut expected: HashSet<u64> = HashSet::new();
        for (key, n) in self.expand() {
            let Some(spec) = self.class.tensors.get(n) else {
                continue;
            };
            let name = in_file(&key);
            expected.insert(index.hash(name.as_bytes()));
            let found = index.find(&cx.inv.tensors, name.as_bytes());
            let found = found.or_else(|| renamed.get(&name).copied());
            if let Some(&id) = renamed.get(&name) {
                renamed_ids.insert(id);
            }
            match found {
                None if spec.required
                    && !self.class.ignore_missing.iter().any(|r| r.is_match(&key))
                    && !self.fused_held(spec.key, &key, &index, &in_file) =>
                {
                    let message = format!(
                        "no file of the checkpoint holds {name}, which {} loads into {}; it would initialise it at random (\"Some weights of {} were not initialized from the model checkpoint\")",
                        self.version, self.class_name, self.class_name
                    );
                    self.report(cx, &WEIGHT_MISSING, Place::FILE, message);
                }
                None => {}
                Some(id) => self.shape(cx, spec, &name, id),
            }
        }
        // Fused experts, in the layers whose condition holds (or cannot be told), load too.
        let layers = (self.class.loops.iter())
            .find(|(ph, _)| *ph == "%d")
            .and_then(|(_, var)| self.var(var)?.count())
            .unwrap_or(0);
        for fused in &self.class.fused {
            for layer in 0..layers.min(1 << 16) {
                self.layer = HashMap::from([("%d", layer)]);
                if fused.when.as_ref().and_then(|w| w.holds(self)) == Some(false) {
                    continue;
                }
                let key = in_file(&fused.key.replace("%d", &layer.to_string()));
                expected.insert(index.hash(key.as_bytes()));
            }
        }
        self.layer.clear();
        let ignored = |name: &[u8]| {
            let name = String::from_utf8_lossy(name);
            let key = match (add, strip) {
                (true, _) => name.strip_prefix(&prefix).unwrap_or(&name).to_owned(),
                (_, true) => format!("{prefix}{name}"),
                _ => name.into_owned(),
            };
            self.class
                .ignore_unexpected
                .iter()
                .any(|r| r.is_match(&key))
        };
        let odd: Vec<TensorId> = (cx.inv.tensors.iter().enumerate())
            .filter(|(id, _)| !renamed_ids.contains(id))
            .filter(|(_, t)| !expected.contains(&index.hash(t.name.as_bytes())))
            .filter(|(_, t)| !ignored(t.name.as_bytes()))
            .map(|(id, _)| id)
            .collect();
        for &id in &odd {
            let Some(tensor) = cx.inv.tensors.get(id) else {
                continue;
            };
            let message = format!(
                "{} is not a weight of {} for this config.json; {} drops it with a warning",
                excerpt(tensor.name.as_bytes(), EXCERPT),
                self.class_name,
                self.version
            );
            let place = Place::at(tensor.decl_offset).item(Item::Tensor { tensor: id });
            self.report(cx, &WEIGHT_UNEXPECTED, place, message);
        }
        odd
    }

    /// Whether `key`, of per-expert pattern `pattern`, is stood for by a fused tensor the
    /// checkpoint holds for the same layer.
    fn fused_held(
        &self,
        pattern: &str,
        key: &str,
        index: &TensorIndex,
        in_file: &dyn Fn(&str) -> String,
    ) -> bool {
        let Some(layer) = layer_of(pattern, key) else {
            return false;
        };
        (self.class.fused.iter())
            .filter(|f| f.members.contains(&pattern))
            .any(|f| index.holds(in_file(&f.key.replace("%d", &layer)).as_bytes()))
    }

    fn shape(&mut self, cx: &mut Context<'_>, spec: &table::Spec, key: &str, id: TensorId) {
        let Some(tensor) = cx.inv.tensors.get(id) else {
            return;
        };
        let want: Vec<Option<u64>> = (spec.dims.iter())
            .map(|d| d.as_ref().and_then(|d| d.eval(self)).and_then(Value::count))
            .collect();
        let wrong = want.len() != tensor.shape.len()
            || want
                .iter()
                .zip(&tensor.shape)
                .any(|(w, got)| w.is_some_and(|w| w != *got));
        if !wrong {
            return;
        }
        let shown = dims_shown(spec.dims_text, &want);
        let got: Vec<String> = tensor.shape.iter().map(u64::to_string).collect();
        let message = format!(
            "{key} has shape [{}]; config.json makes it [{}] in {}, and {} refuses the checkpoint (\"size mismatch\")",
            got.join(", "),
            shown,
            self.class_name,
            self.version
        );
        let place = Place::at(tensor.decl_offset).item(Item::Tensor { tensor: id });
        self.report(cx, &WEIGHT_SHAPE, place, message);
    }

    /// Reports, once, tensors stored in another float type than the config's dtype.
    fn dtypes(&mut self, cx: &mut Context<'_>) {
        let want = match self.config.dtype.as_deref() {
            Some("float32") => DType::F32,
            Some("float16") => DType::F16,
            Some("bfloat16") => DType::BF16,
            _ => return,
        };
        let floats = [DType::F32, DType::F16, DType::BF16];
        let differ: Vec<DType> = (cx.inv.tensors.iter())
            .filter_map(|t| t.dtype)
            .filter(|d| floats.contains(d) && *d != want)
            .collect();
        let Some(first) = differ.first() else {
            return;
        };
        let dtype = self.config.dtype.as_deref().unwrap_or_default();
        let message = format!("{} tensors are {first} (or another float type) while config.json says {dtype}; transformers casts them when loading in {dtype}", differ.len());
        self.report(
            cx,
            &DTYPE_DIFFERS,
            Place::field("config.json", None),
            message,
        );
    }
}

/// The layer number `key` has where `pattern` has `%d`.
fn layer_of(pattern: &str, key: &str) -> Option<String> {
    let (head, _) = pattern.split_once("%d")?;
    let rest = key.strip_prefix(head)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some(digits)
}

/// The key sizes config.json gives.
fn sizes(check: &Check<'_>) -> Vec<Size> {
    [
        ("layers", "num_hidden_layers"),
        ("hidden", "hidden_size"),
        ("intermediate", "intermediate_size"),
        ("heads", "num_attention_heads"),
        ("kv heads", "num_key_value_heads"),
        ("experts", "num_experts"),
        ("vocabulary", "vocab_size"),
        ("context", "max_position_embeddings"),
    ]
    .into_iter()
    .filter_map(|(label, attr)| {
        let value = check.var(attr).filter(|v| *v != Value::Null)?;
        Some(Size {
            label,
            value: value.to_string(),
        })
    })
    .collect()
}
