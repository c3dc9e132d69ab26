//! llama.cpp's architectures, `schema/llama_arch.tsv` (written by `schema/gen_llama_arch.py`
//! from llama.cpp's own sources): the hyperparameters its loader reads, the values it
//! derives, the conditions it asserts, and the tensors it creates, with their shapes as
//! expressions of the hyperparameters.
//!
//! The table is 115 kB of text compiled in. Its first use indexes its lines by architecture;
//! an architecture's records are parsed when a model first names it, so a model pays for its
//! own architecture and the shared records, not for all 2,000 tensors of 150.

use crate::formats::shared::expr::{Expr, Value};
use crate::formats::shared::sections::Sections;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

const TEXT: &str = include_str!("../../../../schema/llama_arch.tsv");

/// Which records apply to every architecture.
const EVERY: &str = "*";

/// The whole table.
pub struct Table {
    /// The llama.cpp release the table was made from, as findings name it.
    pub version: &'static str,
    /// Every architecture name llama.cpp knows, and whether its tensors are in the table.
    pub known: HashMap<&'static str, bool>,
    /// The BPE pre-tokenizers llama.cpp knows (`tokenizer.ggml.pre`).
    pub pre_tokenizers: HashSet<&'static str>,
    /// Each architecture's records (`*` for those of every architecture).
    archs: Sections<Arch>,
}

impl Table {
    /// What every architecture's loader reads and asserts (`*` records).
    pub fn every(&self) -> &Arch {
        static EMPTY: Arch = Arch::new();
        self.arch(EVERY).unwrap_or(&EMPTY)
    }

    /// What architecture `name` adds, if the table has records for it.
    pub fn arch(&self, name: &str) -> Option<&Arch> {
        self.archs.get(name)
    }
}

/// The records of one architecture (or of all).
#[derive(Default)]
pub struct Arch {
    /// Keys read and values derived, in the loader's order: a later step may set a value
    /// again.
    pub steps: Vec<Step>,
    pub checks: Vec<Check>,
    pub tensors: Vec<Spec>,
}

impl Arch {
    const fn new() -> Self {
        Arch {
            steps: Vec::new(),
            checks: Vec::new(),
            tensors: Vec::new(),
        }
    }
}

/// One step of reading the hyperparameters.
pub enum Step {
    Key(Key),
    /// A derived value; `None` when the table cannot say (the value is then unset).
    Var(&'static str, Option<Expr>),
}

/// A hyperparameter the loader reads.
pub struct Key {
    /// llama.cpp's name for it (`n_embd`).
    pub var: &'static str,
    /// The GGUF key, `%s` standing for the architecture.
    pub key: &'static str,
    /// The GGUF types the loader takes for it, and whether a per-layer array is taken.
    pub types: Types,
    pub need: Need,
}

/// The GGUF types a key may have, as the table writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Types {
    /// A scalar of one of these types (`u32`, `u32/i32`, `f32`, `bool`, `str`).
    Scalar(&'static str),
    /// `get_key_or_arr`: such a scalar, or an array of one item per layer (`Some(n)`: of
    /// exactly `n` items), whose items are integers for an integer type, `f32` for `f32`.
    OrArray(&'static str, Option<u64>),
    /// `get_arr`: an array with items of one of these types; its value is its length. A
    /// value that is not an array counts as absent.
    Array(&'static str),
    /// A scalar of the first types, or an array of the second.
    ScalarOrArray(&'static str, &'static str),
    /// An array (of these item types, if named); its value is its length.
    Len(Option<&'static str>),
}

/// Whether `name` is one of the `/`-separated `types`.
pub fn one_of(types: &str, name: &str) -> bool {
    types.split('/').any(|t| t == name)
}

impl Types {
    fn parse(text: &'static str) -> Result<Types, String> {
        let array = |t: &'static str| t.strip_prefix('[').and_then(|t| t.strip_suffix(']'));
        if let Some(rest) = text.strip_prefix("len") {
            return Ok(Types::Len(array(rest)));
        }
        if let Some(items) = array(text) {
            return Ok(Types::Array(items));
        }
        if let Some((scalar, rest)) = text.split_once("|arr") {
            let n = match rest {
                "" => None,
                n => Some(n.parse().map_err(|_| format!("bad array length {n:?}"))?),
            };
            return Ok(Types::OrArray(scalar, n));
        }
        if let Some((scalar, items)) = text.split_once("/[") {
            let items = items
                .strip_suffix(']')
                .ok_or(format!("bad type {text:?}"))?;
            return Ok(Types::ScalarOrArray(scalar, items));
        }
        Ok(Types::Scalar(text))
    }

    /// The types as a message says them.
    pub fn shown(self) -> String {
        let or = |t: &str| t.replace('/', " or ");
        match self {
            Types::Scalar(t) => or(t),
            Types::OrArray(t, _) => format!("{} or an array of one per layer", or(t)),
            Types::Array(t) => format!("an array of {}", or(t)),
            Types::ScalarOrArray(t, items) => format!("{} or an array of {}", or(t), or(items)),
            Types::Len(None) => "an array".into(),
            Types::Len(Some(items)) => format!("an array of {}", or(items)),
        }
    }
}

/// Whether a key or tensor must be there.
pub enum Need {
    Required,
    Optional,
    /// Optional, with this value when absent.
    Default(Expr),
}

/// A condition the loader enforces.
pub struct Check {
    pub holds: Expr,
    /// Whether failing it aborts the process (`GGML_ASSERT`) rather than refusing the file.
    pub aborts: bool,
    /// The source line that enforces it.
    pub source: &'static str,
}

/// A tensor the loader creates.
pub struct Spec {
    /// The GGUF name, with `%d` for the layer.
    pub name: &'static str,
    /// Dimensions in ggml order; `None` where the table cannot say.
    pub dims: Vec<Option<Expr>>,
    /// The expressions as written, for messages.
    pub dims_text: &'static str,
    pub need: TensorNeed,
    /// When it is created: `Some(expr)`, or `None` when the table cannot say (then the
    /// tensor is optional).
    pub when: Option<Expr>,
}

/// How the loader treats a tensor it creates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TensorNeed {
    Required,
    Optional,
    /// A second use of a tensor created before: never one of its own in the file.
    Duplicate,
}

impl Spec {
    /// Whether it is one per layer: its name has `%d`, or its shape or condition reads `i`.
    pub fn per_layer(&self) -> bool {
        let reads_i = |e: &Option<Expr>| e.as_ref().is_some_and(|e| e.vars().contains(&"i"));
        self.name.contains("%d") || reads_i(&self.when) || self.dims.iter().any(reads_i)
    }
}

/// The table, parsed on first use.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse(TEXT).unwrap_or_else(|_| empty()))
}

fn empty() -> Table {
    Table {
        version: "",
        known: HashMap::new(),
        pre_tokenizers: HashSet::new(),
        archs: Sections::new(record),
    }
}

/// Indexes the table's text: names, versions and pre-tokenizers read, the rest by owner.
/// Lines and fields are found with `memchr`: this runs for every GGUF model checked.
pub fn parse(text: &'static str) -> Result<Table, String> {
    let mut table = empty();
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    for end in ends {
        let line = text.get(start..end).unwrap_or_default();
        start = end + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let field = |line: &'static str| match memchr::memchr(b'\t', line.as_bytes()) {
            Some(tab) => (line.get(..tab).unwrap_or_default(), line.get(tab + 1..)),
            None => (line, None),
        };
        let (kind, rest) = field(line);
        let (first, rest) = rest.map(field).unwrap_or_default();
        match (kind, first) {
            ("version", v) => table.version = v,
            ("pre", name) => {
                table.pre_tokenizers.insert(name);
            }
            ("arch", name) => {
                table.known.insert(name, rest == Some("1"));
            }
            ("key" | "var" | "check" | "tensor", owner) => {
                table.archs.push(owner, line);
            }
            _ => return Err(format!("{line:?}")),
        }
    }
    Ok(table)
}

fn expr(text: &str) -> Result<Option<Expr>, String> {
    match text {
        "?" => Ok(None),
        _ => Expr::parse(text).map(Some),
    }
}

fn record(arch: &mut Arch, line: &'static str) -> Result<(), String> {
    let fields: Vec<&'static str> = line.split('\t').collect();
    let field = |i: usize| fields.get(i).copied().ok_or(format!("no field {i}"));
    match field(0)? {
        "key" => {
            let need = match field(5)? {
                "required" => Need::Required,
                "optional" => Need::Optional,
                default => Need::Default(Expr::parse(default)?),
            };
            arch.steps.push(Step::Key(Key {
                var: field(2)?,
                key: field(3)?,
                types: Types::parse(field(4)?)?,
                need,
            }));
        }
        "var" => arch.steps.push(Step::Var(field(2)?, expr(field(3)?)?)),
        "check" => arch.checks.push(Check {
            holds: Expr::parse(field(2)?)?,
            aborts: field(3)? == "abort",
            source: field(4)?,
        }),
        "tensor" => {
            let dims_text = field(3)?;
            let dims = dims_text.split(',').map(expr).collect::<Result<_, _>>()?;
            let need = match field(4)? {
                "required" => TensorNeed::Required,
                "optional" => TensorNeed::Optional,
                "dup" => TensorNeed::Duplicate,
                other => return Err(format!("tensor need {other:?}")),
            };
            let when = match field(5)? {
                "-" => Some(Expr::Lit(Value::Bool(true))),
                cond => expr(cond)?,
            };
            arch.tensors.push(Spec {
                name: field(2)?,
                dims,
                dims_text,
                need,
                when,
            });
        }
        other => return Err(format!("unknown record {other:?}")),
    }
    Ok(())
}

/// Writes the name the table spells `name` (`blk.%d.attn_q.weight`) has for `layer` into
/// `out`.
pub fn name_of(out: &mut String, name: &str, layer: Option<u64>) {
    use std::fmt::Write;
    out.clear();
    match (layer, name.split_once("%d")) {
        (Some(layer), Some((head, tail))) => {
            let _ = write!(out, "{head}{layer}{tail}");
        }
        _ => out.push_str(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_table_parses_whole() {
        let table = parse(TEXT).unwrap();
        assert!(table.version.starts_with("llama.cpp "), "{}", table.version);
        for arch in ["llama", "qwen2", "gemma2", "gpt2", "bert", "deepseek2"] {
            assert_eq!(table.known.get(arch), Some(&true), "{arch}");
            assert!(!table.arch(arch).unwrap().tensors.is_empty(), "{arch}");
        }
        assert!(table.pre_tokenizers.contains("llama3"));
        for (owner, arch) in table.archs.parse_all() {
            let arch = arch.unwrap_or_else(|e| panic!("{owner}: {e}"));
            // Every architecture with tensors in the table is one llama.cpp knows and checks.
            if owner != EVERY {
                assert!(table.known.contains_key(owner), "{owner}");
                assert!(arch.tensors.is_empty() || table.known[owner], "{owner}");
            }
        }
        assert!(!table.every().steps.is_empty());
    }
}
