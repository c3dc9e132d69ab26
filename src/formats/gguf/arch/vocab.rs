//! The vocabulary as llama.cpp's `llama_vocab::impl::load` reads it (llama-vocab.cpp): what
//! it refuses (an unknown tokenizer, a missing token list, scores or token types shorter
//! than the tokens, BPE without merges), what aborts the process (two tokens with one
//! text), and what it takes without a word but cannot use (token types outside the set,
//! special token ids past the vocabulary, a chat template that is not a string).

use super::table::table;
use super::Reporter;
use crate::check::Place;
use crate::escape::{excerpt, EXCERPT_SHORT};
use crate::formats::gguf::metadata::{Pair, Pairs, Value as Gguf};
use crate::formats::gguf::rules::{VOCAB_REFUSED, VOCAB_VALUE};
use crate::formats::shared::numbers::{low32, signed32};
use crate::formats::shared::tensor_index::HashSet64;
use crate::inventory::hashing::Seeded;
use crate::inventory::{ItemKind, ListValue};
use std::hash::BuildHasher;

/// `tokenizer.ggml.model` values llama.cpp knows, and whether each is BPE (needs merges).
const MODELS: [(&str, bool); 12] = [
    ("no_vocab", false),
    ("none", false),
    ("llama", false),
    ("bert", false),
    ("gpt2", true),
    ("hybriddna", true),
    ("whitespace", true),
    ("t5", false),
    ("rwkv", false),
    ("test", false),
    ("plamo2", false),
    ("gemma4", true),
];

/// The special token ids llama.cpp reads, each as a `u32` (`special_token_types`).
const SPECIAL: [&str; 17] = [
    "bos",
    "eos",
    "eot",
    "eom",
    "unknown",
    "seperator",
    "padding",
    "mask",
    "fim_pre",
    "fim_suf",
    "fim_mid",
    "fim_pad",
    "fim_rep",
    "fim_sep",
    "prefix",
    "suffix",
    "middle",
];

/// Other vocabulary keys llama.cpp reads with `get_key`, each of one GGUF type: any other
/// type is refused ("key has wrong type"), even though the key is optional. The last field:
/// whether the architecture table lists the key too, which then reports its type for a
/// model file.
const TYPED: [(&str, &str, bool); 6] = [
    ("tokenizer.ggml.add_bos_token", "bool", true),
    ("tokenizer.ggml.add_eos_token", "bool", true),
    ("tokenizer.ggml.add_sep_token", "bool", true),
    ("tokenizer.ggml.add_space_prefix", "bool", false),
    ("tokenizer.ggml.remove_extra_whitespaces", "bool", false),
    ("tokenizer.ggml.token_type_count", "u32", true),
];

/// The tokens llama-vocab.cpp looks up with `unordered_map::at` for a model whose
/// `general.name` says Phi-3: one missing, and it refuses the model.
const PHI3_TOKENS: [&str; 4] = ["</s>", "<unk>", "<s>", "<|endoftext|>"];

/// llama.cpp's `LLAMA_TOKEN_TYPE_BYTE`.
const BYTE: i32 = 6;

/// llama.cpp's `LLAMA_TOKEN_TYPE_*`: 0 undefined to 6 byte.
const TOKEN_TYPES: std::ops::RangeInclusive<i32> = 0..=6;

fn list<'p>(pairs: &'p Pairs<'_>, key: &str) -> Option<(&'p Pair<'p>, Option<ListValue>)> {
    let pair = pairs.get(key.as_bytes())?;
    let list = match pair.value {
        Gguf::List(list) => Some(list),
        _ => None,
    };
    Some((pair, list))
}

/// Checks the vocabulary of the model whose first file's metadata is `pairs`. `typed`: the
/// architecture table's keys were read, so that a vocabulary key it lists that is missing
/// or of the wrong type is reported there (GG034, GG035) and not again here.
pub fn check(r: &mut Reporter<'_, '_>, pairs: &Pairs<'_>, typed: bool) {
    let version = r.version;
    let refuse = |r: &mut Reporter<'_, '_>, at: Option<u64>, what: String| {
        let message = format!("{what}; {version} refuses the model");
        r.report(&VOCAB_REFUSED, Place::field("tokenizer", at), message);
    };
    let Some(model) = pairs.get(b"tokenizer.ggml.model") else {
        if !typed {
            let what = "the model has no key tokenizer.ggml.model (\"key not found in model\")";
            refuse(r, None, what.into());
        }
        return;
    };
    let Gguf::Str(name) = model.value else {
        if !typed {
            let what = "tokenizer.ggml.model is not a string (\"key has wrong type\")";
            refuse(r, Some(model.type_at), what.into());
        }
        return;
    };
    let Some(&(_, bpe)) = MODELS.iter().find(|(m, _)| m.as_bytes() == name) else {
        let what = format!(
            "tokenizer.ggml.model is \"{}\", a tokenizer it does not know (\"unknown tokenizer\")",
            excerpt(name, EXCERPT_SHORT)
        );
        refuse(r, Some(model.value_at), what);
        return;
    };
    if matches!(name, b"none" | b"no_vocab") {
        return;
    }
    typed_keys(r, pairs, typed);
    let pre = pairs.get(b"tokenizer.ggml.pre");
    if bpe {
        merges(r, pairs, name, pre.map(|p| p.value));
        // Gemma 4's tokenizer names its own pre-tokenizer, whatever the file says.
        if name != b"gemma4" {
            pre_tokenizer(r, pre);
        }
    }
    let Some((tokens_pair, tokens)) = list(pairs, "tokenizer.ggml.tokens") else {
        refuse(r, None, "the model has no tokenizer.ggml.tokens (\"cannot find tokenizer vocab in model file\")".into());
        return;
    };
    let Some(tokens) = tokens.filter(|l| l.item == ItemKind::String) else {
        if !typed {
            let what = "tokenizer.ggml.tokens is not an array of strings (\"invalid gguf type\")";
            refuse(r, Some(tokens_pair.type_at), what.into());
        }
        return;
    };
    let n = tokens.count;
    for (key, items) in [
        ("tokenizer.ggml.scores", &[ItemKind::F32, ItemKind::I32][..]),
        ("tokenizer.ggml.token_type", &[ItemKind::I32][..]),
    ] {
        let Some((pair, values)) = list(pairs, key) else {
            continue;
        };
        match values {
            // The table checks their types and lengths for a model file.
            _ if typed => {}
            Some(v) if !items.contains(&v.item) => {
                refuse(
                    r,
                    Some(pair.value_at),
                    format!(
                        "{key} is an array of {}, not of {} (\"invalid gguf type\")",
                        v.item.name(),
                        items
                            .iter()
                            .map(|i| i.name())
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                );
            }
            None => refuse(
                r,
                Some(pair.type_at),
                format!("{key} is not an array (\"invalid gguf type\")"),
            ),
            Some(v) if v.count < n => {
                refuse(
                    r,
                    Some(pair.value_at),
                    format!(
                        "{key} has {} values for {n} tokens (\"Index out of array bounds\")",
                        v.count
                    ),
                );
            }
            Some(_) => {}
        }
    }
    let types = match list(pairs, "tokenizer.ggml.token_type") {
        Some((_, Some(t))) if t.item == ItemKind::I32 && t.count >= n => Some(t),
        _ => None,
    };
    self::tokens(
        r,
        pairs,
        name,
        &tokens,
        types.as_ref(),
        tokens_pair.value_at,
    );
    special_ids(r, pairs, n, typed);
    chat_template(r, pairs);
}

/// BPE needs merges, as strings (Kimi-K2's pre-tokenizer aside).
fn merges(r: &mut Reporter<'_, '_>, pairs: &Pairs<'_>, model: &[u8], pre: Option<Gguf<'_>>) {
    let kimi = model != b"gemma4" && matches!(pre, Some(Gguf::Str(b"kimi-k2")));
    let what = match list(pairs, "tokenizer.ggml.merges") {
        None if kimi => return,
        None => "a BPE tokenizer without tokenizer.ggml.merges (\"cannot find tokenizer merges in model file\")",
        Some((_, Some(l))) if l.item == ItemKind::String => return,
        Some(_) => "tokenizer.ggml.merges is not an array of strings (\"invalid gguf type\")",
    };
    let message = format!("{what}; {} refuses the model", r.version);
    r.report(&VOCAB_REFUSED, Place::field("tokenizer", None), message);
}

/// A BPE pre-tokenizer must be one llama.cpp knows; a missing one loads with a warning.
fn pre_tokenizer(r: &mut Reporter<'_, '_>, pre: Option<&Pair<'_>>) {
    let known = &table().pre_tokenizers;
    match pre.map(|p| (p.value, p.value_at)) {
        None => {
            let message = format!("a BPE tokenizer without tokenizer.ggml.pre; {} loads it with the default pre-tokenizer and warns \"GENERATION QUALITY WILL BE DEGRADED\"", r.version);
            r.report(&VOCAB_VALUE, Place::field("tokenizer", None), message);
        }
        Some((Gguf::Str(name), at))
            if !known.is_empty() && !std::str::from_utf8(name).is_ok_and(|n| known.contains(n)) =>
        {
            let message = format!("tokenizer.ggml.pre is \"{}\", a pre-tokenizer {} does not know; it refuses the model (\"unknown pre-tokenizer type\")", excerpt(name, EXCERPT_SHORT), r.version);
            r.report(&VOCAB_REFUSED, Place::field("tokenizer", at), message);
        }
        _ => {}
    }
}

/// What one pass over the tokens (and their types) finds.
#[derive(Default)]
struct Scan {
    /// The first token whose text an earlier token has: both indices and the text.
    repeat: Option<(usize, usize, Vec<u8>)>,
    /// The first token type outside the set: index and type.
    odd_type: Option<(u64, i32)>,
    /// The first byte token llama.cpp cannot read as a byte: index and text.
    bad_byte: Option<(u64, Vec<u8>)>,
    /// Which of [`PHI3_TOKENS`] the vocabulary has.
    phi3: [bool; 4],
}

/// Reads every token once: texts (an empty token is "[EMPTY_<i>]" to llama.cpp) and types;
/// `wordpiece` for a BERT vocabulary.
fn scan(bytes: &[u8], wordpiece: bool, tokens: &ListValue, types: Option<&ListValue>) -> Scan {
    let hasher = Seeded::default();
    let capacity = usize::try_from(tokens.count.min(1 << 22)).unwrap_or(0);
    let mut seen = HashSet64::with_capacity_and_hasher(capacity, Default::default());
    let mut out = Scan::default();
    let mut hash_repeat = None;
    for (i, text) in tokens.strings(bytes).enumerate() {
        let empty;
        let text = if text.is_empty() {
            empty = format!("[EMPTY_{i}]");
            empty.as_bytes()
        } else {
            text
        };
        if hash_repeat.is_none() && !seen.insert(hasher.hash_one(text)) {
            hash_repeat = Some((i, text.to_vec()));
        }
        if let Some(k) = PHI3_TOKENS.iter().position(|t| t.as_bytes() == text) {
            if let Some(found) = out.phi3.get_mut(k) {
                *found = true;
            }
        }
        let index = i as u64;
        let ty = types
            .and_then(|t| t.raw(bytes, index))
            .map(|raw| signed32(low32(raw)));
        match ty {
            Some(t) if !TOKEN_TYPES.contains(&t) && out.odd_type.is_none() => {
                out.odd_type = Some((index, t));
            }
            // llama.cpp reads a byte token's value from the text's bytes 3 and 4 (`<0xXX>`);
            // WordPiece has no byte tokens at all.
            Some(BYTE) if (wordpiece || text.len() < 3) && out.bad_byte.is_none() => {
                out.bad_byte = Some((index, text.to_vec()));
            }
            _ => {}
        }
    }
    // A hash met twice: name the first token with that text, or pass a true collision over.
    if let Some((i, text)) = hash_repeat {
        let first = (tokens.strings(bytes).enumerate().take(i)).position(|(j, t)| {
            t == text.as_slice() || (t.is_empty() && format!("[EMPTY_{j}]").as_bytes() == text)
        });
        out.repeat = first.map(|first| (first, i, text));
    }
    out
}

/// Reports what [`scan`] found.
fn tokens(
    r: &mut Reporter<'_, '_>,
    pairs: &Pairs<'_>,
    model: &[u8],
    tokens: &ListValue,
    types: Option<&ListValue>,
    at: u64,
) {
    let found = scan(r.cx.bytes, model == b"bert", tokens, types);
    let version = r.version;
    if let Some((first, i, text)) = found.repeat {
        let message = format!(
            "tokens {first} and {i} are both \"{}\"; {version} aborts the whole process on a vocabulary with a repeated token (GGML_ASSERT(id_to_token.size() == token_to_id.size()))",
            excerpt(&text, EXCERPT_SHORT)
        );
        r.report(
            &VOCAB_REFUSED,
            Place::field("tokenizer.ggml.tokens", at),
            message,
        );
    }
    let types_at = types.map(|t| t.data.offset);
    if let Some((i, t)) = found.odd_type {
        let message = format!("token {i} has type {t}; token types are 0 to 6 (undefined, normal, unknown, control, user-defined, unused, byte), and {version} treats any other as undefined without a word");
        let place = Place::field(
            "tokenizer.ggml.token_type",
            types_at.map(|o| o.saturating_add(i.saturating_mul(4))),
        );
        r.report(&VOCAB_VALUE, place, message);
    }
    if let Some((i, text)) = found.bad_byte {
        let does = if model == b"bert" {
            "aborts the whole process (a WordPiece vocabulary has no byte tokens: token_to_byte calls GGML_ABORT)".to_owned()
        } else {
            "refuses the model (it reads the byte from the text's characters 3 and 4, as in <0x0A>: \"basic_string::substr\")".to_owned()
        };
        let message = format!(
            "token {i} \"{}\" has type 6 (byte); {version} {does}",
            excerpt(&text, EXCERPT_SHORT)
        );
        let place = Place::field(
            "tokenizer.ggml.token_type",
            types_at.map(|o| o.saturating_add(i.saturating_mul(4))),
        );
        r.report(&VOCAB_REFUSED, place, message);
    }
    phi3(r, pairs, &found.phi3);
}

/// A model whose `general.name` says Phi-3 needs [`PHI3_TOKENS`]: llama-vocab.cpp sets their
/// attributes by name, whatever the architecture, and a missing one fails the lookup.
fn phi3(r: &mut Reporter<'_, '_>, pairs: &Pairs<'_>, found: &[bool; 4]) {
    let text = |key: &[u8]| match pairs.get(key).map(|p| p.value) {
        Some(Gguf::Str(s)) => s.to_ascii_lowercase(),
        _ => Vec::new(),
    };
    let contains =
        |hay: &[u8], needle: &str| hay.windows(needle.len()).any(|w| w == needle.as_bytes());
    let name = text(b"general.name");
    let (pre, arch) = (text(b"tokenizer.ggml.pre"), text(b"general.architecture"));
    // The branches llama.cpp tests before the Phi-3 one.
    let earlier = ["jina-v2-de", "jina-v2-es", "jina-v2-code"]
        .iter()
        .any(|n| contains(&pre, n))
        || ["nomic-bert-moe", "jina-bert-v3"]
            .iter()
            .any(|n| contains(&arch, n));
    if earlier || !(contains(&name, "phi-3") || contains(&name, "phi3")) {
        return;
    }
    let missing: Vec<&str> = (PHI3_TOKENS.iter().zip(found))
        .filter(|(_, found)| !**found)
        .map(|(t, _)| *t)
        .collect();
    if missing.is_empty() {
        return;
    }
    let message = format!(
        "general.name says Phi-3, so {} looks up the tokens {} by name, and the vocabulary lacks {}; it refuses the model (\"unordered_map::at\")",
        r.version,
        PHI3_TOKENS.join(", "),
        missing.join(", ")
    );
    r.report(&VOCAB_REFUSED, Place::field("general.name", None), message);
}

/// The optional vocabulary keys of one GGUF type each.
fn typed_keys(r: &mut Reporter<'_, '_>, pairs: &Pairs<'_>, typed: bool) {
    for (key, ty, in_table) in TYPED {
        let Some(pair) = pairs.get(key.as_bytes()).filter(|_| !(typed && in_table)) else {
            continue;
        };
        let has = match pair.value {
            Gguf::Scalar(t, _) if t == ty => continue,
            Gguf::Scalar(t, _) => t.to_owned(),
            Gguf::Str(_) => "string".to_owned(),
            Gguf::List(l) => format!("array of {}", l.item.name()),
        };
        let message = format!("{key} is a {has}; {} reads it as a {ty} and refuses the model (\"key has wrong type\")", r.version);
        r.report(
            &VOCAB_REFUSED,
            Place::field("tokenizer", pair.type_at),
            message,
        );
    }
}

/// Special token ids: a `u32` each (another type is refused), within the vocabulary (one
/// past it is ignored with a warning, and the default id used).
fn special_ids(r: &mut Reporter<'_, '_>, pairs: &Pairs<'_>, n: u64, typed: bool) {
    for special in SPECIAL {
        let key = format!("tokenizer.ggml.{special}_token_id");
        let Some(pair) = pairs.get(key.as_bytes()) else {
            continue;
        };
        match pair.value {
            Gguf::Scalar("u32", s) => {
                let Some(id) = s.count().filter(|&id| id >= n) else {
                    continue;
                };
                let message = format!("{key} = {id}, but the vocabulary has {n} tokens; {} ignores it (\"bad special token\") and uses its default for the tokenizer", r.version);
                r.report(
                    &VOCAB_VALUE,
                    Place::field("tokenizer", pair.value_at),
                    message,
                );
            }
            _ if typed => {}
            _ => {
                let message = format!(
                    "{key} is not a u32; {} refuses the model (\"key has wrong type\")",
                    r.version
                );
                r.report(
                    &VOCAB_REFUSED,
                    Place::field("tokenizer", pair.type_at),
                    message,
                );
            }
        }
    }
}

/// A chat template that is not a string: llama.cpp keeps non-array values as text, so a
/// number becomes the template, and an array is dropped.
fn chat_template(r: &mut Reporter<'_, '_>, pairs: &Pairs<'_>) {
    let Some(pair) = pairs.get(b"tokenizer.chat_template") else {
        return;
    };
    let what = match pair.value {
        Gguf::Str(_) => return,
        Gguf::List(_) => "an array; llama.cpp leaves arrays out of the model's text values, so the model has no chat template",
        Gguf::Scalar(..) => "not a string; llama.cpp keeps it as text, so its printed value becomes the chat template",
    };
    let message = format!("tokenizer.chat_template is {what}");
    r.report(
        &VOCAB_VALUE,
        Place::field("tokenizer.chat_template", pair.type_at),
        message,
    );
}
