//! The operator schema table, `schema/onnx_ops.tsv` (written by `schema/gen_onnx_ops.py`
//! from onnx's and onnxruntime's own schemas), parsed on first use.
//!
//! The table is 60 kB of text compiled in with `include_str!`. Its first use (a model's opset
//! imports) indexes its lines by domain and operator, looking for the line ends and two tabs a
//! line with `memchr`; an operator's versions are parsed when a node first uses it: a model
//! pays for the few dozen operators it has, not for all 800 schemas.

use crate::inventory::hashing::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../../schema/onnx_ops.tsv");

/// The type of a formal input or output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// A type constraint, by its index in [`Schema::types`].
    Var(u8),
    /// A fixed type.
    Fixed(Allowed),
}

/// A set of types: tensor element types as a bitmask (bit n for ONNX data type n), and
/// whether non-tensor types (sequences, maps, optionals, sparse tensors) belong to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowed {
    pub tensors: u32,
    pub others: bool,
}

impl Allowed {
    /// Whether a dense tensor of ONNX data type `code` belongs to the set.
    pub fn has(self, code: i32) -> bool {
        u32::try_from(code)
            .ok()
            .and_then(|c| 1u32.checked_shl(c))
            .is_some_and(|bit| self.tensors & bit != 0)
    }

    /// The one tensor element type of a set that holds nothing else.
    pub fn single(self) -> Option<i32> {
        let one = !self.others && self.tensors.count_ones() == 1;
        one.then(|| i32::try_from(self.tensors.trailing_zeros()).ok())
            .flatten()
    }
}

/// How many values a formal parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    Single,
    Optional,
    /// Any number; `homogeneous` when they all share one type.
    Variadic {
        homogeneous: bool,
    },
}

/// A formal input or output.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub ty: ParamType,
    pub arity: Arity,
}

/// An attribute the operator accepts.
#[derive(Debug)]
pub struct AttrSpec {
    pub name: &'static str,
    /// AttributeProto.AttributeType number.
    pub ty: i32,
    pub required: bool,
}

/// A type constraint.
#[derive(Debug)]
pub struct TypeVar {
    pub name: &'static str,
    pub allowed: Allowed,
}

/// One version of one operator.
#[derive(Debug)]
pub struct Schema {
    pub domain: &'static str,
    pub name: &'static str,
    pub since: i64,
    pub deprecated: bool,
    /// A contrib operator of onnxruntime: only its name and version are known.
    pub contrib: bool,
    pub inputs: (u32, u32),
    pub outputs: (u32, u32),
    pub formal_inputs: Box<[Param]>,
    pub formal_outputs: Box<[Param]>,
    pub attrs: Box<[AttrSpec]>,
    pub types: Box<[TypeVar]>,
}

/// `Cast-13 (ai.onnx)`.
impl std::fmt::Display for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{} ({})", self.name, self.since, self.domain)
    }
}

impl Schema {
    /// The attribute named `name`.
    pub fn attr(&self, name: &[u8]) -> Option<&AttrSpec> {
        self.attrs.iter().find(|a| a.name.as_bytes() == name)
    }

    /// The formal parameter that actual input or output `index` binds to.
    pub fn formal(params: &[Param], index: usize) -> Option<&Param> {
        params.get(index).or_else(|| {
            params
                .last()
                .filter(|p| matches!(p.arity, Arity::Variadic { .. }))
        })
    }
}

/// Every operator, by domain and name. Keyed by bytes, as nodes name them, so that a
/// lookup needs no UTF-8 check.
pub type Table = HashMap<&'static [u8], Ops>;

/// Every operator of one domain, by name.
pub type Ops = HashMap<&'static [u8], Versions>;

/// The lines of one operator's versions, parsed on first use.
#[derive(Debug)]
pub struct Versions {
    lines: &'static str,
    parsed: OnceLock<Box<[Schema]>>,
}

impl Versions {
    /// Every version of the operator, oldest first.
    pub fn all(&self) -> &[Schema] {
        self.parsed
            .get_or_init(|| self.lines.lines().filter_map(parse).collect())
    }
}

/// The table, indexed on first use. An operator's lines are consecutive (the generator
/// sorts them), so each operator's versions are one slice of the text.
pub fn table() -> &'static Table {
    static INDEX: OnceLock<Table> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut table = Table::default();
        let mut run: Option<(&str, &str, usize)> = None;
        for (start, line) in lines() {
            let Some((domain, name)) = key(line) else {
                continue;
            };
            if line.starts_with('#') || run.is_some_and(|(d, n, _)| (d, n) == (domain, name)) {
                continue;
            }
            if let Some((d, n, from)) = run.replace((domain, name, start)) {
                add(&mut table, d, n, &TABLE[from..start]);
            }
        }
        if let Some((d, n, from)) = run {
            add(&mut table, d, n, &TABLE[from..]);
        }
        table
    })
}

/// The table's lines, each with its offset and its line end. The standard library's line and
/// field splitting took 0.4 M instructions, a quarter of checking a small model.
fn lines() -> impl Iterator<Item = (usize, &'static str)> {
    let ends = memchr::memchr_iter(b'\n', TABLE.as_bytes()).map(|at| at + 1);
    let mut start = 0;
    ends.chain([TABLE.len()]).filter_map(move |end| {
        let line = TABLE.get(start..end).filter(|l| !l.is_empty());
        let at = std::mem::replace(&mut start, end);
        line.map(|l| (at, l))
    })
}

/// The domain and operator of a line: its first two fields, each ended by a tab.
fn key(line: &'static str) -> Option<(&'static str, &'static str)> {
    let mut tabs = memchr::memchr_iter(b'\t', line.as_bytes());
    let (first, second) = (tabs.next()?, tabs.next()?);
    Some((line.get(..first)?, line.get(first + 1..second)?))
}

/// Adds one operator, whose versions are `lines`, to the table.
fn add(table: &mut Table, domain: &'static str, name: &'static str, lines: &'static str) {
    let versions = Versions {
        lines,
        parsed: OnceLock::new(),
    };
    (table.entry(domain.as_bytes()).or_default()).insert(name.as_bytes(), versions);
}

/// One line of the table; `None` for a malformed one (the table is generated, and
/// `tests::every_line_parses` holds it to the format).
fn parse(line: &'static str) -> Option<Schema> {
    let f: Vec<&'static str> = line.split('\t').collect();
    let [domain, name, since, flags, min_in, max_in, min_out, max_out, inputs, outputs, attrs, types] =
        f[..]
    else {
        return None;
    };
    let list = |s: &'static str| s.split(' ').filter(|w| *w != "-" && !w.is_empty());
    let types: Box<[TypeVar]> = list(types)
        .map(|t| {
            let (name, mask) = t.split_once('=')?;
            Some(TypeVar {
                name,
                allowed: allowed(mask)?,
            })
        })
        .collect::<Option<_>>()?;
    let params = |s: &'static str| -> Option<Box<[Param]>> {
        list(s)
            .map(|p| {
                let (ty, arity) = match p.as_bytes().last() {
                    Some(b'?') => (&p[..p.len() - 1], Arity::Optional),
                    Some(b'*') => (&p[..p.len() - 1], Arity::Variadic { homogeneous: true }),
                    Some(b'~') => (&p[..p.len() - 1], Arity::Variadic { homogeneous: false }),
                    _ => (p, Arity::Single),
                };
                let ty = match ty.strip_prefix('#') {
                    Some(mask) => ParamType::Fixed(allowed(mask)?),
                    None => {
                        let position = types.iter().position(|t| t.name == ty)?;
                        ParamType::Var(u8::try_from(position).ok()?)
                    }
                };
                Some(Param { ty, arity })
            })
            .collect()
    };
    let attrs = list(attrs)
        .map(|a| {
            let (name, ty) = a.split_once(':')?;
            let (ty, required) = match ty.strip_suffix('!') {
                Some(ty) => (ty, true),
                None => (ty, false),
            };
            Some(AttrSpec {
                name,
                ty: ty.parse().ok()?,
                required,
            })
        })
        .collect::<Option<_>>()?;
    let count = |s: &str| (s == "-").then_some(0).or_else(|| s.parse().ok());
    Some(Schema {
        domain,
        name,
        since: since.parse().ok()?,
        deprecated: flags.contains('d'),
        contrib: flags.contains('c'),
        inputs: (count(min_in)?, count(max_in)?),
        outputs: (count(min_out)?, count(max_out)?),
        formal_inputs: params(inputs)?,
        formal_outputs: params(outputs)?,
        attrs,
        types,
    })
}

/// A `MASK[+]` type set.
fn allowed(mask: &str) -> Option<Allowed> {
    let (hex, others) = match mask.strip_suffix('+') {
        Some(hex) => (hex, true),
        None => (mask, false),
    };
    Some(Allowed {
        tensors: u32::from_str_radix(hex, 16).ok()?,
        others,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_parses() {
        let lines = TABLE.lines().filter(|l| !l.starts_with('#'));
        for line in lines.clone() {
            assert!(parse(line).is_some(), "cannot parse {line:?}");
        }
        let cast = table()[&b"ai.onnx"[..]][&b"Cast"[..]].all();
        assert!(cast.windows(2).all(|w| w[0].since < w[1].since));
        let v13 = cast.iter().find(|s| s.since == 13).expect("Cast-13");
        assert_eq!(v13.attr(b"to").map(|a| (a.ty, a.required)), Some((2, true)));
        assert!(v13.types[0].allowed.has(10) && !v13.types[0].allowed.has(17));
        assert!(table()[&b"com.microsoft"[..]].contains_key(&b"FusedMatMul"[..]));
        let indexed: usize = table()
            .values()
            .flat_map(|ops| ops.values())
            .map(|v| v.all().len())
            .sum();
        assert_eq!(
            indexed,
            lines.clone().count(),
            "each operator's lines are consecutive"
        );
    }
}
