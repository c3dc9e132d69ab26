//! transformers' architectures, `schema/hf_arch.tsv` (written by `schema/gen_hf_arch.py`
//! from transformers' own model classes): for each class, the config.json attributes it
//! reads with their defaults, and the checkpoint keys it loads with their shapes as
//! expressions of those attributes. Lines are indexed by class on first use, and a class's
//! records (with its regular expressions) are parsed when a checkpoint first names it.

use crate::formats::shared::expr::{Expr, Value};
use crate::formats::shared::sections::Sections;
use regex::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

const TEXT: &str = include_str!("../../../../schema/hf_arch.tsv");

/// The whole table.
pub struct Table {
    /// The transformers release it was made from, as findings name it.
    pub version: &'static str,
    /// Each class's records.
    classes: Sections<Class>,
    /// The class `AutoModelForCausalLM` builds for each `model_type`.
    causal_lm: HashMap<&'static str, &'static str>,
}

impl Table {
    /// The class `AutoModelForCausalLM` builds for `model_type`, if the table has it.
    pub fn causal_lm(&self, model_type: &str) -> Option<&'static str> {
        self.causal_lm.get(model_type).copied()
    }

    /// Class `name`, if the table has it.
    pub fn class(&self, name: &str) -> Option<&Class> {
        self.classes.get(name)
    }
}

/// One model class (`LlamaForCausalLM`).
#[derive(Default)]
pub struct Class {
    /// The attribute the base model sits under (`model`), which transformers adds to or
    /// strips from a checkpoint's keys that lack or have it.
    pub prefix: &'static str,
    /// Placeholders in key patterns and the attribute that counts them (`%d` over
    /// `num_hidden_layers`).
    pub loops: Vec<(&'static str, &'static str)>,
    /// Attributes and their default when config.json lacks them; `None` when the config
    /// class has none (the attribute is then unknown unless config.json sets it).
    pub attrs: Vec<(&'static str, Option<Expr>)>,
    pub tensors: Vec<Spec>,
    /// Keys transformers does not report when missing, or when unexpected.
    pub ignore_missing: Vec<Regex>,
    pub ignore_unexpected: Vec<Regex>,
    /// config.json keys that name an attribute (`n_embd` for `hidden_size`).
    pub aliases: Vec<(&'static str, &'static str)>,
    /// Checkpoint key renamings transformers applies before matching.
    pub renames: Vec<(Regex, &'static str)>,
    /// MoE experts stored fused, one tensor per layer: a checkpoint holding it stands for its
    /// per-expert keys.
    pub fused: Vec<Fused>,
}

/// A fused tensor and the per-expert key patterns it stands for.
pub struct Fused {
    pub key: &'static str,
    pub when: Option<Expr>,
    pub members: Vec<&'static str>,
}

/// A checkpoint key the class loads.
pub struct Spec {
    /// The key, with the class's placeholders.
    pub key: &'static str,
    /// Dimensions in torch order; `None` where the table cannot say.
    pub dims: Vec<Option<Expr>>,
    pub dims_text: &'static str,
    pub required: bool,
    /// When the class has the key: `Some(expr)`, or `None` when the table cannot say.
    pub when: Option<Expr>,
}

/// The table, parsed on first use.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse(TEXT).unwrap_or_else(|_| empty()))
}

fn expr(text: &str) -> Result<Option<Expr>, String> {
    match text {
        "?" => Ok(None),
        "-" => Ok(Some(Expr::Lit(Value::Bool(true)))),
        _ => Expr::parse(text).map(Some),
    }
}

fn empty() -> Table {
    Table {
        version: "",
        classes: Sections::new(record),
        causal_lm: HashMap::new(),
    }
}

/// Indexes the table's text by class.
pub fn parse(text: &'static str) -> Result<Table, String> {
    let mut table = empty();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        match line.split_once('\t') {
            Some(("version", v)) => table.version = v,
            Some((kind, rest)) => {
                let mut fields = rest.split('\t');
                let owner = fields.next().unwrap_or_default();
                let head = owner.ends_with("ForCausalLM") || owner.ends_with("LMHeadModel");
                if let (true, "class", Some(model_type)) = (head, kind, fields.next()) {
                    table.causal_lm.insert(model_type, owner);
                }
                table.classes.push(owner, line);
            }
            None => return Err(format!("{line:?}")),
        }
    }
    Ok(table)
}

fn record(class: &mut Class, line: &'static str) -> Result<(), String> {
    let fields: Vec<&'static str> = line.split('\t').collect();
    let field = |i: usize| fields.get(i).copied().ok_or(format!("no field {i}"));
    match field(0)? {
        "class" => {
            class.prefix = field(3)?;
            if let Ok(var) = field(4) {
                class.loops.push(("%d", var));
            }
        }
        "loop" => class.loops.push((field(2)?, field(3)?)),
        "attr" => {
            let default = match field(3)? {
                "required" => None,
                text => Some(Expr::parse(text)?),
            };
            class.attrs.push((field(2)?, default));
        }
        "tensor" => {
            let dims_text = field(3)?;
            let dims = match dims_text {
                "" => Vec::new(),
                _ => dims_text.split(',').map(expr).collect::<Result<_, _>>()?,
            };
            class.tensors.push(Spec {
                key: field(2)?,
                dims,
                dims_text,
                required: field(4)? == "required",
                when: expr(field(5)?)?,
            });
        }
        "ignore" => {
            let regex = Regex::new(field(3)?).map_err(|e| e.to_string())?;
            match field(2)? {
                "missing" => class.ignore_missing.push(regex),
                _ => class.ignore_unexpected.push(regex),
            }
        }
        "alias" => class.aliases.push((field(2)?, field(3)?)),
        "rename" => {
            let regex = Regex::new(field(2)?).map_err(|e| e.to_string())?;
            class.renames.push((regex, field(3)?));
        }
        "fused" => class.fused.push(Fused {
            key: field(2)?,
            when: expr(field(4)?)?,
            members: field(5)?.split(',').collect(),
        }),
        // Tying is the `optional` need of the tied key; kept-in-float32 modules do not change
        // what a checkpoint must hold.
        "tied" | "fp32" => {}
        other => return Err(format!("unknown record {other:?}")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_table_parses_whole() {
        let table = parse(TEXT).unwrap();
        assert!(
            table.version.starts_with("transformers "),
            "{}",
            table.version
        );
        for name in [
            "LlamaForCausalLM",
            "Qwen2ForCausalLM",
            "GPT2LMHeadModel",
            "BertModel",
        ] {
            assert!(!table.class(name).unwrap().tensors.is_empty(), "{name}");
        }
        assert_eq!(table.causal_lm("qwen3_moe"), Some("Qwen3MoeForCausalLM"));
        assert_eq!(table.causal_lm("gpt2"), Some("GPT2LMHeadModel"));
        for (name, class) in table.classes.parse_all() {
            class.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
