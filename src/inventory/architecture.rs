//! What a model is to the loader that runs it, and whether that loader would take it: the
//! answer to "will it load?" that a format's architecture check gives.

use super::{Name, TensorId};
use serde::Serialize;

/// The architecture a model declares and the verdict of checking it against a loader's
/// table.
#[derive(Debug, Clone, Serialize)]
pub struct Architecture {
    /// The architecture's name, as the model gives it (`llama`, `LlamaForCausalLM`).
    pub name: Name,
    /// The question answered, naming the loader and its version (`loads in llama.cpp
    /// 0c1e57098`, `matches config.json for transformers 5.24.0`).
    pub question: String,
    /// Key sizes, in display order: layers, embedding, heads, vocabulary, context and the like.
    pub sizes: Vec<Size>,
    /// The answer.
    pub verdict: Verdict,
    /// Tensors the architecture does not expect, in file order.
    pub unexpected: Vec<TensorId>,
    /// Files beside the model that its loader reads too (a config, a tokenizer).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub companions: Vec<Companion>,
}

/// A file beside the model that its loader reads too.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Companion {
    /// The file's name in the model's folder, one the loader looks for (`tokenizer.json`).
    pub name: &'static str,
    /// What the loader takes from it (`config`, `tokenizer`).
    pub role: &'static str,
    /// True if rtenx checked the model against it.
    pub checked: bool,
}

/// One key size of an architecture.
#[derive(Debug, Clone, Serialize)]
pub struct Size {
    /// What it counts (`layers`, `embedding`).
    pub label: &'static str,
    /// Its value as the model states it.
    pub value: String,
}

/// Whether the loader would take the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "answer")]
pub enum Verdict {
    /// Checked, and nothing in the table's reach stops it.
    Yes,
    /// Checked: errors stop it or make it run wrong.
    No {
        /// How many.
        problems: u32,
    },
    /// Not checked against a table.
    NotChecked {
        /// Why.
        reason: String,
    },
}

impl Architecture {
    /// The one line that answers the question: `loads in llama.cpp X: yes`.
    pub fn answer(&self) -> String {
        match &self.verdict {
            Verdict::Yes => format!("{}: yes", self.question),
            Verdict::No { problems: 1 } => format!("{}: no (1 problem)", self.question),
            Verdict::No { problems } => format!("{}: no ({problems} problems)", self.question),
            Verdict::NotChecked { reason } => format!("{}: not checked ({reason})", self.question),
        }
    }

    /// Settles the verdict with the `errors` the whole check found: a model the table
    /// passes is still refused (or misread) for an error elsewhere, such as a tensor past
    /// the end of its file.
    pub fn settle(&mut self, errors: usize) {
        let errors = u32::try_from(errors).unwrap_or(u32::MAX);
        match &mut self.verdict {
            Verdict::Yes if errors > 0 => self.verdict = Verdict::No { problems: errors },
            Verdict::No { problems } => *problems = (*problems).max(errors),
            _ => {}
        }
    }

    /// The companion files as one line, the checked ones first:
    /// `config.json checked · tokenizer.json, generation_config.json not checked`.
    pub fn companions_text(&self) -> String {
        let names = |checked: bool| {
            let names = self.companions.iter().filter(|c| c.checked == checked);
            names.map(|c| c.name).collect::<Vec<_>>().join(", ")
        };
        let parts = [(names(true), "checked"), (names(false), "not checked")];
        let parts = parts.iter().filter(|(names, _)| !names.is_empty());
        parts
            .map(|(names, what)| format!("{names} {what}"))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The sizes as one line: `layers 2, embedding 64, ...`.
    pub fn sizes_text(&self) -> String {
        let sizes = self
            .sizes
            .iter()
            .map(|s| format!("{} {}", s.label, s.value));
        sizes.collect::<Vec<_>>().join(", ")
    }
}
