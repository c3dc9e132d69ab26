//! The Graph tab's search: a small query language over names, operator types, attributes,
//! element types and shapes.
//!
//! A query is terms separated by spaces; a node matches when every term does:
//! - `text`: the node's name, or an operator's type, contains `text` (ignoring case);
//! - `op:Conv`: an operator of that type (ignoring case);
//! - `dtype:f16`: a value or constant of that element type, or an operator reading or writing one;
//! - `shape:1,3,*,*` (brackets optional, `*` any size): the same for a shape;
//! - `group>1`, also `=`, `!=`, `<`, `<=`, `>=`: an operator attribute compared with a number,
//!   or with `=` and `!=` with the attribute as text, such as `auto_pad=SAME_UPPER` or
//!   `strides=2,2`.

use crate::inventory::display::attr_text;
use crate::inventory::{AttrValue, DType, Dim, Graph, Inventory, Node, NodeId, NodeKind};

/// How an attribute is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// One term of a query.
#[derive(Debug, Clone, PartialEq)]
enum Term {
    /// Lower-case text in the name or op type.
    Text(String),
    /// Lower-case operator type.
    Op(String),
    /// Element type name, lower case.
    DType(String),
    /// Dimensions, `None` for any.
    Shape(Vec<Option<u64>>),
    /// An attribute compared with a value.
    Attr {
        name: String,
        cmp: Cmp,
        value: String,
    },
}

/// A parsed query; the empty query matches every node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    terms: Vec<Term>,
}

/// The comparison operators, longest first so that `>=` is not read as `>`.
const CMPS: [(&str, Cmp); 6] = [
    (">=", Cmp::Ge),
    ("<=", Cmp::Le),
    ("!=", Cmp::Ne),
    (">", Cmp::Gt),
    ("<", Cmp::Lt),
    ("=", Cmp::Eq),
];

impl Query {
    /// Parses `text`; the error says which term is wrong.
    pub fn parse(text: &str) -> Result<Query, String> {
        let terms = text
            .split_whitespace()
            .map(term)
            .collect::<Result<_, _>>()?;
        Ok(Query { terms })
    }

    /// True if node `id` of `graph` matches every term.
    pub fn matches(&self, inv: &Inventory, graph: &Graph, id: NodeId) -> bool {
        let Some(node) = graph.node(id) else {
            return false;
        };
        self.terms.iter().all(|t| t.matches(inv, graph, node))
    }
}

fn term(word: &str) -> Result<Term, String> {
    if let Some((key, value)) = word.split_once(':') {
        let value = value.to_lowercase();
        return match key.to_lowercase().as_str() {
            "op" => Ok(Term::Op(value)),
            "dtype" => Ok(Term::DType(value)),
            "shape" => shape(&value).map(Term::Shape),
            _ => Err(format!("unknown key {key}: (op, dtype, shape)")),
        };
    }
    for (symbol, cmp) in CMPS {
        if let Some((name, value)) = word.split_once(symbol) {
            if name.is_empty() || value.is_empty() {
                return Err(format!("{word}: an attribute and a value"));
            }
            if cmp != Cmp::Eq && cmp != Cmp::Ne && value.parse::<f64>().is_err() {
                return Err(format!("{word}: {symbol} needs a number"));
            }
            return Ok(Term::Attr {
                name: name.to_owned(),
                cmp,
                value: value.to_owned(),
            });
        }
    }
    Ok(Term::Text(word.to_lowercase()))
}

/// `1,3,*,*` or `[1,3,*,*]`: the dimensions, `*` or `?` for any.
fn shape(text: &str) -> Result<Vec<Option<u64>>, String> {
    let inner = text.trim_start_matches('[').trim_end_matches(']');
    if inner.is_empty() {
        return Ok(Vec::new());
    }
    inner
        .split(',')
        .map(|d| match d.trim() {
            "*" | "?" => Ok(None),
            n => n
                .parse()
                .map(Some)
                .map_err(|_| format!("shape: {n} is not a size")),
        })
        .collect()
}

impl Term {
    fn matches(&self, inv: &Inventory, graph: &Graph, node: Node<'_>) -> bool {
        match self {
            Term::Text(text) => {
                contains(&node.name.display(), text)
                    || matches!(&node.kind, NodeKind::Operator(op) if contains(op.op_type(), text))
            }
            Term::Op(op_type) => {
                matches!(&node.kind, NodeKind::Operator(op) if op.op_type().eq_ignore_ascii_case(op_type))
            }
            Term::DType(_) | Term::Shape(_) => match &node.kind {
                NodeKind::Operator(op) => op
                    .inputs()
                    .iter()
                    .chain(op.outputs().iter())
                    .flatten()
                    .filter_map(|&id| graph.node(id))
                    .any(|n| self.matches_type(inv, n)),
                _ => self.matches_type(inv, node),
            },
            Term::Attr { name, cmp, value } => match &node.kind {
                NodeKind::Operator(op) => op
                    .attrs()
                    .iter()
                    .filter(|a| a.name.eq_ignore_ascii_case(name))
                    .any(|a| compare(inv, &a.value, *cmp, value)),
                _ => false,
            },
        }
    }

    /// For a value or constant node: true if its element type or shape matches.
    fn matches_type(&self, inv: &Inventory, node: Node<'_>) -> bool {
        let (dtype, dims): (Option<DType>, Vec<Option<u64>>) = match &node.kind {
            NodeKind::Value(v) => (
                v.dtype,
                match &v.shape {
                    Some(shape) => shape
                        .iter()
                        .map(|d| match d {
                            Dim::Fixed(n) => Some(*n),
                            Dim::Symbolic(_) => None,
                        })
                        .collect(),
                    None => return matches!(self, Term::DType(d) if dtype_is(v.dtype, d)),
                },
            ),
            NodeKind::Constant { tensor } => match inv.tensors.get(*tensor) {
                Some(t) => (t.dtype, t.shape.iter().map(|&d| Some(d)).collect()),
                None => return false,
            },
            _ => return false,
        };
        match self {
            Term::DType(d) => dtype_is(dtype, d),
            Term::Shape(want) => {
                want.len() == dims.len()
                    && want.iter().zip(&dims).all(|(w, d)| w.is_none() || w == d)
            }
            _ => false,
        }
    }
}

fn dtype_is(dtype: Option<DType>, name: &str) -> bool {
    dtype.is_some_and(|d| d.name() == name)
}

/// True if `haystack` contains the lower-case `needle`, ignoring case.
fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(needle)
}

/// Compares an attribute value: as a number for numbers, booleans and enums, otherwise as text
/// (only `=` and `!=`).
fn compare(inv: &Inventory, attr: &AttrValue, cmp: Cmp, value: &str) -> bool {
    let number = match attr {
        AttrValue::Int(i) => Some(*i as f64),
        AttrValue::Float(f) => Some(f64::from(*f)),
        AttrValue::Bool(b) => Some(f64::from(u8::from(*b))),
        AttrValue::Enum(e) if e.name.is_none() => Some(e.value as f64),
        _ => None,
    };
    if let (Some(a), Ok(b)) = (number, value.parse::<f64>()) {
        return match cmp {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        };
    }
    // Lists compare without brackets, quotes or spaces: `strides=2,2`.
    let bare = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '"' | '[' | ']'))
            .collect()
    };
    let equal = bare(&attr_text(inv, attr)).eq_ignore_ascii_case(&bare(value));
    match cmp {
        Cmp::Eq => equal,
        Cmp::Ne => !equal,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_kind_of_term() {
        let q = Query::parse("op:Conv group>1 dtype:F16 shape:[1,*,32] Relu pad=SAME").unwrap();
        assert_eq!(
            q.terms,
            [
                Term::Op("conv".into()),
                Term::Attr {
                    name: "group".into(),
                    cmp: Cmp::Gt,
                    value: "1".into()
                },
                Term::DType("f16".into()),
                Term::Shape(vec![Some(1), None, Some(32)]),
                Term::Text("relu".into()),
                Term::Attr {
                    name: "pad".into(),
                    cmp: Cmp::Eq,
                    value: "SAME".into()
                },
            ]
        );
        assert!(matches!(
            Query::parse("a>=2").unwrap().terms[0],
            Term::Attr { cmp: Cmp::Ge, .. }
        ));
        assert_eq!(Query::parse("  ").unwrap(), Query::default());
    }

    #[test]
    fn bad_terms_are_errors_not_panics() {
        for bad in [
            "foo:bar",
            "group>",
            ">1",
            "group>x",
            "shape:1,a",
            "shape:99999999999999999999",
        ] {
            assert!(Query::parse(bad).is_err(), "{bad}");
        }
        // Every text of up to four of these characters parses or is refused, without a panic.
        let alphabet: Vec<char> = ":<>=!,[]*1aé ".chars().collect();
        let mut parsed = 0;
        for n in 0..alphabet.len().pow(4) {
            let text: String = (0..4)
                .map(|i| alphabet[n / alphabet.len().pow(i) % alphabet.len()])
                .collect();
            parsed += usize::from(Query::parse(&text).is_ok());
        }
        assert!(parsed > 0);
    }
}
