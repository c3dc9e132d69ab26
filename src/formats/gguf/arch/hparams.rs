//! The hyperparameters llama.cpp's loader reads, read as it reads them, step by step in its
//! order: each key with the GGUF type `llama_model_loader::get_key` takes (any other throws
//! "wrong type", also for an optional key), a per-layer array only where `get_key_or_arr`
//! takes one and only as long as the layers, and the values the loader derives.

use super::table::{name_of, one_of, Arch, Key, Need, Step, Types};
use crate::check::Place;
use crate::formats::gguf::metadata::{Pairs, Scalar, Value as Gguf};
use crate::formats::shared::expr::{Expr, Scope, Value};
use crate::formats::shared::numbers::{low32, signed32};
use crate::formats::shared::tensor_index::TensorIndex;
use crate::inventory::hashing::HashMap;
use crate::inventory::{ItemKind, ListValue};

/// llama.cpp's `LLAMA_MAX_LAYERS`: no per-layer array is longer.
const MAX_LAYERS: u64 = 512;

/// A hyperparameter's value: one, or one per layer.
#[derive(Clone)]
enum Var {
    One(Value),
    PerLayer(Vec<Value>),
}

/// Why the loader refuses a key.
pub enum Refusal {
    /// Required and absent.
    Missing,
    /// Of another type than the loader takes; the type it has.
    WrongType(String),
    /// A per-layer array of another length; its length and the one wanted.
    WrongLength(u64, u64),
}

/// A model's hyperparameters, and the tensors it holds, as the table's expressions see them.
pub struct Env {
    vars: HashMap<&'static str, Var>,
    /// The layer being checked; `None` reads a per-layer value at layer 0, as llama.cpp's
    /// accessors without an argument do.
    pub layer: Option<u64>,
    /// The tensors the model holds.
    pub tensors: TensorIndex,
    /// Where each key read was: its field name and value's offset.
    places: HashMap<&'static str, (&'static str, u64)>,
    /// A tensor name being looked up, kept to spare an allocation per lookup.
    scratch: std::cell::RefCell<String>,
}

/// A GGUF scalar as an expression value.
fn value(scalar: Scalar) -> Value {
    match scalar {
        Scalar::Unsigned(n) => i64::try_from(n).map_or(Value::Null, Value::Int),
        Scalar::Signed(n) => Value::Int(n),
        Scalar::Float(f) => Value::Float(f),
        Scalar::Bool(b) => Value::Bool(b != 0),
    }
}

/// Item `i` of a list of 4-byte numbers or bools, as a value.
fn item(list: &ListValue, bytes: &[u8], i: u64) -> Option<Value> {
    let raw = list.raw(bytes, i)?;
    Some(match list.item {
        ItemKind::F32 => Value::Float(f32::from_bits(low32(raw)).into()),
        ItemKind::I32 => Value::Int(signed32(low32(raw)).into()),
        ItemKind::Bool => Value::Int(i64::from(raw != 0)),
        _ => Value::Int(low32(raw).into()),
    })
}

impl Env {
    /// An environment with nothing set.
    pub fn new(tensors: TensorIndex) -> Self {
        Env {
            vars: HashMap::default(),
            layer: None,
            tensors,
            places: HashMap::default(),
            scratch: Default::default(),
        }
    }

    /// Runs `arch`'s steps over `pairs` (the file's bytes `bytes`, architecture `name`),
    /// calling `refused` for each key the loader would refuse.
    pub fn run(
        &mut self,
        arch: &'static Arch,
        name: &str,
        pairs: &Pairs<'_>,
        bytes: &[u8],
        refused: &mut dyn FnMut(&'static Key, Place, Refusal),
    ) {
        for step in &arch.steps {
            match step {
                Step::Var(var, expr) => {
                    let value = expr.as_ref().and_then(|e| self.derive(var, e));
                    self.set(var, value);
                }
                Step::Key(key) => {
                    if let Err((place, why)) = self.read(key, name, pairs, bytes) {
                        refused(key, place, why);
                    }
                }
            }
        }
    }

    fn set(&mut self, var: &'static str, value: Option<Var>) {
        match value {
            Some(v) => self.vars.insert(var, v),
            None => self.vars.remove(var),
        };
    }

    /// The layers per-layer values cover: `n_layer_all`, within llama.cpp's maximum.
    fn layers(&self) -> Option<u64> {
        self.var("n_layer_all")?
            .count()
            .filter(|&n| n <= MAX_LAYERS)
    }

    /// Whether `expr` reads a per-layer value.
    pub fn per_layer(&self, expr: &Expr) -> bool {
        let vars = expr.vars();
        vars.contains(&"i")
            || (vars.iter()).any(|v| matches!(self.vars.get(v), Some(Var::PerLayer(_))))
    }

    /// `expr`'s value for `var`: per layer if `var` already has a value per layer (a var
    /// record that redefines one), else one value, reading others at layer 0.
    fn derive(&mut self, var: &str, expr: &Expr) -> Option<Var> {
        if matches!(self.vars.get(var), Some(Var::PerLayer(_))) {
            self.each_layer(expr)
        } else {
            self.layer = None;
            expr.eval(self).map(Var::One)
        }
    }

    /// `expr` at every layer.
    fn each_layer(&mut self, expr: &Expr) -> Option<Var> {
        let values = (0..self.layers()?)
            .map(|layer| {
                self.layer = Some(layer);
                expr.eval(self)
            })
            .collect::<Option<Vec<_>>>();
        self.layer = None;
        values.map(Var::PerLayer)
    }

    /// Reads `key` of architecture `name` as the loader would; the place and reason if it
    /// refuses the key.
    fn read(
        &mut self,
        key: &'static Key,
        name: &str,
        pairs: &Pairs<'_>,
        bytes: &[u8],
    ) -> Result<(), (Place, Refusal)> {
        let shown = key.key.replace("%s", name);
        let field = key.key.strip_prefix("%s.").unwrap_or(key.key);
        let pair = pairs.get(shown.as_bytes());
        let place = Place::field(field, pair.map(|p| p.value_at));
        // A value that is not an array is absent to `get_arr`.
        let pair = pair.filter(|p| {
            !matches!(
                (key.types, p.value),
                (Types::Array(_), Gguf::Scalar(..) | Gguf::Str(_))
            )
        });
        let Some(pair) = pair else {
            let value = match &key.need {
                Need::Required => return Err((place, Refusal::Missing)),
                Need::Optional => return Ok(()),
                Need::Default(e)
                    if matches!(key.types, Types::OrArray(..)) && self.per_layer(e) =>
                {
                    self.each_layer(e)
                }
                Need::Default(e) => {
                    self.layer = None;
                    e.eval(self).map(Var::One)
                }
            };
            self.set(key.var, value);
            return Ok(());
        };
        self.places.insert(key.var, (field, pair.value_at));
        let wrong = |ty: String| Err((Place::field(field, pair.type_at), Refusal::WrongType(ty)));
        let value = match (key.types, pair.value) {
            (
                Types::Scalar(t) | Types::OrArray(t, _) | Types::ScalarOrArray(t, _),
                Gguf::Scalar(ty, s),
            ) if one_of(t, ty) => Some(Var::One(value(s))),
            (Types::Scalar(t) | Types::OrArray(t, _), Gguf::Str(_)) if one_of(t, "str") => None,
            (Types::Len(None), Gguf::List(list)) => count(&list),
            (
                Types::Array(items) | Types::ScalarOrArray(_, items) | Types::Len(Some(items)),
                Gguf::List(list),
            ) => {
                let string = list.item == ItemKind::String && one_of(items, "str");
                if !(string || one_of(items, list.item.name())) {
                    return wrong(format!("an array of {}", list.item.name()));
                }
                count(&list)
            }
            (Types::OrArray(t, n), Gguf::List(list)) => {
                let floats = one_of(t, "f32");
                let item_ok = match list.item {
                    ItemKind::F32 => floats,
                    ItemKind::U32 | ItemKind::I32 | ItemKind::Bool => !floats,
                    _ => false,
                };
                if !item_ok {
                    return wrong(format!("an array of {}", list.item.name()));
                }
                let want = n.or_else(|| self.layers());
                if let Some(want) = want.filter(|&w| w != list.count) {
                    return Err((place, Refusal::WrongLength(list.count, want)));
                }
                let values = (0..list.count.min(MAX_LAYERS)).map(|i| item(&list, bytes, i));
                values.collect::<Option<Vec<_>>>().map(Var::PerLayer)
            }
            (_, Gguf::Scalar(ty, _)) => return wrong(format!("a {ty}")),
            (_, Gguf::Str(_)) => return wrong("a string".into()),
            (_, Gguf::List(list)) => return wrong(format!("an array of {}", list.item.name())),
        };
        self.set(key.var, value);
        Ok(())
    }

    /// Where the first key `expr` reads is, for a finding.
    pub fn place(&self, expr: &Expr) -> Place {
        let first = expr.vars().into_iter().find_map(|v| self.places.get(v));
        match first {
            Some(&(field, at)) => Place::field(field, at),
            None => Place::FILE,
        }
    }

    /// Whether the model sets `var` itself, by a key.
    pub fn given(&self, var: &str) -> bool {
        self.places.contains_key(var)
    }
}

/// A list's length as a value.
fn count(list: &ListValue) -> Option<Var> {
    i64::try_from(list.count)
        .ok()
        .map(|n| Var::One(Value::Int(n)))
}

impl Scope for Env {
    fn var(&self, name: &str) -> Option<Value> {
        if name == "i" {
            return self
                .layer
                .and_then(|l| i64::try_from(l).ok())
                .map(Value::Int);
        }
        match self.vars.get(name)? {
            Var::One(v) => Some(*v),
            Var::PerLayer(values) => {
                let layer = usize::try_from(self.layer.unwrap_or(0)).ok()?;
                values.get(layer).copied()
            }
        }
    }

    fn present(&self, name: &str) -> Option<bool> {
        if !name.contains("%d") {
            return Some(self.tensors.holds(name.as_bytes()));
        }
        let layer = self.layer?;
        let mut scratch = self.scratch.try_borrow_mut().ok()?;
        name_of(&mut scratch, name, Some(layer));
        Some(self.tensors.holds(scratch.as_bytes()))
    }
}
