//! "Will llama.cpp load it?": a GGUF model's hyperparameters, tensors and vocabulary held to
//! the architecture table generated from llama.cpp's own loader (`table.rs`), so that what
//! `llama_model_load_from_file` refuses, aborts on, or loads but cannot run is found without
//! loading anything. See `../shared/reference/loadable.md`.

mod hparams;
pub mod table;
mod tensors;
mod vocab;

use super::metadata::Pairs;
use super::rules::{
    ARCHITECTURE_NOT_CHECKED, ARCHITECTURE_UNKNOWN, HPARAM_INVALID, HPARAM_MISSING, HPARAM_TYPE,
};
use crate::check::{Place, Rule, Severity};
use crate::escape::{excerpt, EXCERPT, EXCERPT_SHORT};
use crate::formats::shared::context::Context;
use crate::formats::shared::expr::{Expr, Scope, Value};
use crate::formats::shared::tensor_index::TensorIndex;
use crate::inventory::architecture::{Architecture, Size, Verdict};
use hparams::{Env, Refusal};
use table::{table, Arch, Table};

/// The architecture whose vocabulary only llama.cpp's multimodal projector reads: no
/// hyperparameters, no vocabulary.
const CLIP: &str = "clip";

/// Reports as a check does, counting the errors: the problems of the verdict.
pub struct Reporter<'c, 'a> {
    pub cx: &'c mut Context<'a>,
    pub errors: u32,
    /// The llama.cpp release, as messages name it.
    pub version: &'static str,
    pub arch: &'c str,
}

impl Reporter<'_, '_> {
    pub fn report(&mut self, rule: &'static Rule, place: Place, message: String) {
        if rule.severity == Severity::Error {
            self.errors += 1;
        }
        self.cx.report(rule, place, message);
    }
}

/// Checks the model of `pairs` (the first file's metadata; tensors are in the inventory)
/// against llama.cpp's architecture `arch`, and records the verdict in the inventory.
/// `valid_name`: whether the name is one GGUF allows, so that an unknown one is reported
/// here rather than as a malformed name.
pub fn check(cx: &mut Context<'_>, pairs: &Pairs<'_>, arch: &[u8], at: u64, valid_name: bool) {
    let table = table();
    let name = std::str::from_utf8(arch).unwrap_or_default();
    let known = table.known.get(name).copied();
    if known.is_none() && valid_name {
        let message = format!(
            "general.architecture is \"{}\"; {} knows no such architecture and refuses the model (\"unknown model architecture\")",
            excerpt(arch, EXCERPT),
            table.version
        );
        cx.report(
            &ARCHITECTURE_UNKNOWN,
            Place::field("general.architecture", at),
            message,
        );
    }
    let vocabulary_only = cx.inv.tensors.is_empty();
    let Some(checked) = known.filter(|_| name != CLIP) else {
        record(
            cx,
            name,
            table,
            None,
            Vec::new(),
            known.map(|_| 0).unwrap_or(1),
        );
        return;
    };
    let own = table.arch(name);
    let mut env = Env::new(TensorIndex::of(&cx.inv.tensors));
    let mut r = Reporter {
        cx,
        errors: 0,
        version: table.version,
        arch: name,
    };
    if !vocabulary_only {
        for arch in std::iter::once(table.every()).chain(own) {
            read_keys(&mut r, &mut env, arch, pairs);
        }
    }
    vocab::check(&mut r, pairs, !vocabulary_only);
    if vocabulary_only {
        return;
    }
    rope_scaling(&mut r, pairs);
    let own = own.filter(|_| checked);
    let unexpected = match own {
        Some(own) => {
            checks(&mut r, &mut env, table.every());
            checks(&mut r, &mut env, own);
            values(&mut r, &mut env);
            tensors::check(&mut r, &mut env, own)
        }
        None => {
            checks(&mut r, &mut env, table.every());
            let message = format!(
                "architecture \"{name}\" is not checked against {}'s tensors: rtenx's table has no tensors for it",
                table.version
            );
            r.report(
                &ARCHITECTURE_NOT_CHECKED,
                Place::field("general.architecture", at),
                message,
            );
            Vec::new()
        }
    };
    let errors = r.errors;
    let sizes = sizes(&env);
    let verdict = match own {
        Some(_) => errors,
        None => u32::MAX,
    };
    record(cx, name, table, Some(sizes), unexpected, verdict);
}

/// Records the architecture: `problems` errors, or `u32::MAX` for one not checked.
fn record(
    cx: &mut Context<'_>,
    name: &str,
    table: &Table,
    sizes: Option<Vec<Size>>,
    unexpected: Vec<crate::inventory::TensorId>,
    problems: u32,
) {
    let verdict = match problems {
        0 => Verdict::Yes,
        u32::MAX => Verdict::NotChecked {
            reason: "no tensor table for this architecture".into(),
        },
        problems => Verdict::No { problems },
    };
    let known = table.known.contains_key(name);
    let verdict = match (known, sizes.is_some()) {
        (false, _) => Verdict::No {
            problems: problems.max(1),
        },
        (true, false) => Verdict::NotChecked {
            reason: "read by llama.cpp's multimodal projector loader".into(),
        },
        _ => verdict,
    };
    cx.inv.architecture = Some(Architecture {
        name: name.into(),
        question: format!("loads in {}", table.version),
        sizes: sizes.unwrap_or_default(),
        verdict,
        unexpected,
        companions: Vec::new(),
    });
}

/// Runs the steps of `arch` in `env`, reporting the keys the loader refuses.
fn read_keys(r: &mut Reporter<'_, '_>, env: &mut Env, arch: &'static Arch, pairs: &Pairs<'_>) {
    let (version, name, bytes) = (r.version, r.arch, r.cx.bytes);
    let mut found = Vec::new();
    env.run(arch, name, pairs, bytes, &mut |key, place, why| {
        found.push((key, place, why))
    });
    for (key, place, why) in found {
        let shown = key.key.replace("%s", name);
        let (rule, message) = match why {
            Refusal::Missing => (&HPARAM_MISSING, format!("the model has no key {shown}, which {version} requires (\"key not found in model\")")),
            Refusal::WrongType(ty) => (&HPARAM_TYPE, format!(
                "{shown} is {ty}; {version} reads it as {} and refuses any other type (\"key has wrong type\")",
                key.types.shown()
            )),
            Refusal::WrongLength(n, want) => (&HPARAM_TYPE, format!("{shown} is an array of {n} values where {version} takes {want}, one per layer, and refuses the model (\"wrong array length\")")),
        };
        r.report(rule, place, message);
    }
}

/// `None` if `holds` holds (or cannot be told); else the layer it fails at (`Some(None)`:
/// it fails for the model as a whole).
fn fails(env: &mut Env, holds: &Expr) -> Option<Option<u64>> {
    env.layer = None;
    if !env.per_layer(holds) {
        return (holds.holds(env) == Some(false)).then_some(None);
    }
    let layers = env.var("n_layer_all").and_then(Value::count).unwrap_or(0);
    let found = (0..layers.min(512)).find(|&layer| {
        env.layer = Some(layer);
        holds.holds(env) == Some(false)
    });
    env.layer = None;
    found.map(Some)
}

/// The values an expression reads, as `name=value` for a message.
fn shown(env: &Env, expr: &Expr) -> String {
    let vars = expr.vars().into_iter().map(|v| {
        let value = env.var(v).map_or("unset".into(), |v| v.to_string());
        format!("{v}={value}")
    });
    vars.collect::<Vec<_>>().join(", ")
}

/// Reports `holds` where the model's values break it, with `what` the consequence.
fn broken(r: &mut Reporter<'_, '_>, env: &mut Env, holds: &Expr, what: &str) {
    let Some(layer) = fails(env, holds) else {
        return;
    };
    env.layer = layer;
    let values = shown(env, holds);
    let place = env.place(holds);
    env.layer = None;
    let at_layer = layer.map(|l| format!(" in layer {l}")).unwrap_or_default();
    let message = match values.is_empty() {
        true => format!("architecture {}: {what}", r.arch),
        false => format!("{values}{at_layer}: {what}"),
    };
    r.report(&HPARAM_INVALID, place, message);
}

/// Reports the conditions `arch`'s loader asserts that the model's values break.
fn checks(r: &mut Reporter<'_, '_>, env: &mut Env, arch: &Arch) {
    for check in &arch.checks {
        let does = if check.aborts {
            "aborts the whole process"
        } else {
            "refuses the model"
        };
        let what = format!("{} {does} ({})", r.version, check.source);
        broken(r, env, &check.holds, &what);
    }
}

/// llama-model.cpp's `LLAMA_ROPE_SCALING_TYPES`: `load_hparams` asserts the model's
/// `rope.scaling.type` is one of them.
const ROPE_SCALING_TYPES: [&str; 4] = ["none", "linear", "yarn", "longrope"];

/// Reports a rope scaling type llama.cpp does not know: it aborts the process.
fn rope_scaling(r: &mut Reporter<'_, '_>, pairs: &Pairs<'_>) {
    let key = format!("{}.rope.scaling.type", r.arch);
    let Some(pair) = pairs.get(key.as_bytes()) else {
        return;
    };
    let crate::formats::gguf::metadata::Value::Str(text) = pair.value else {
        return;
    };
    if ROPE_SCALING_TYPES.iter().any(|t| t.as_bytes() == text) {
        return;
    }
    let message = format!(
        "{key} is \"{}\", not one of {}; {} aborts the whole process (GGML_ASSERT(hparams.rope_scaling_type_train != LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED))",
        excerpt(text, EXCERPT_SHORT),
        ROPE_SCALING_TYPES.join(", "),
        r.version
    );
    r.report(
        &HPARAM_INVALID,
        Place::field("rope.scaling.type", pair.value_at),
        message,
    );
}

/// rtenx's own range checks for the attention models of the table: values llama.cpp takes
/// that cannot work, each with why.
const OWN: [(&str, &str); 6] = [
    ("n_embd>0", "the embedding is empty"),
    ("n_head>0", "an attention model without attention heads has heads of size 0, and its tensors cannot match"),
    ("n_head_kv>0", "attention without key-value heads cannot run"),
    ("n_head%n_head_kv==0", "the key-value heads do not divide the attention heads, so grouped-query attention cannot share them out"),
    ("n_rot<=n_embd_head_k", "rotary embedding is applied to more dimensions than a head has"),
    ("n_ctx_train>0", "a context length of 0 leaves no room for a single token"),
];

/// rtenx's own range checks, stricter than llama.cpp, which loads these values and then runs
/// wrong or fails at the first token.
fn values(r: &mut Reporter<'_, '_>, env: &mut Env) {
    let loads = format!("{} loads it, but", r.version);
    for (holds, why) in OWN {
        if let Ok(holds) = Expr::parse(holds) {
            broken(r, env, &holds, &format!("{loads} {why}"));
        }
    }
    if !env.given("n_embd_head_k_full") {
        if let Ok(holds) = Expr::parse("n_embd%n_head==0") {
            let why = "the heads do not divide the embedding and no key_length says the head size, so each head is cut short";
            broken(r, env, &holds, &format!("{loads} {why}"));
        }
    }
    for eps in ["f_norm_rms_eps", "f_norm_eps"] {
        let Some(value) = env.given(eps).then(|| env.var(eps)).flatten() else {
            continue;
        };
        let usable = matches!(value, Value::Float(f) if f.is_finite() && f > 0.0);
        if !usable {
            let why = "normalisation divides by the square root of variance plus this epsilon, so one that is not a positive finite number makes every output NaN or infinite";
            let message = format!("{eps}={value}: {loads} {why}");
            let place = env.place(&Expr::Var(eps.into()));
            r.report(&HPARAM_INVALID, place, message);
        }
    }
}

/// The key sizes, as the model states them.
fn sizes(env: &Env) -> Vec<Size> {
    let size = |label, var: &str| {
        let value = env.var(var)?;
        Some(Size {
            label,
            value: value.to_string(),
        })
    };
    let mut out: Vec<Size> = [
        ("layers", "n_layer"),
        ("embedding", "n_embd"),
        ("feed-forward", "n_ff"),
        ("heads", "n_head"),
        ("kv heads", "n_head_kv"),
    ]
    .into_iter()
    .filter_map(|(label, var)| size(label, var))
    .collect();
    if env
        .var("n_expert")
        .and_then(Value::count)
        .is_some_and(|n| n > 0)
    {
        out.extend(size("experts", "n_expert"));
        out.extend(size("experts used", "n_expert_used"));
    }
    out.extend(size("vocabulary", "n_vocab"));
    out.extend(size("context", "n_ctx_train"));
    out
}
