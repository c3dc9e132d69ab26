//! The small expression language of the architecture tables (`schema/llama_arch.tsv`,
//! `schema/hf_arch.tsv`): how a shape, a default or a condition follows from a model's
//! hyperparameters.
//!
//! Integer and decimal literals, `true`, `false`, `null`, variable names, `+ - * / %` (C's
//! truncating division on integers), `== != < <= > >=`, `&& || !`, parentheses, `c ? a : b`,
//! `min(a,b)`, `max(a,b)`, and `present(NAME)` / `absent(NAME)` for whether the file holds a
//! tensor. The tables are compiled in, so a parse error is a bug a unit test catches; what
//! the model supplies is only the values. Evaluation is three-valued: a variable the model
//! does not set, an overflow or a division by zero makes the result unknown (`None`), and
//! whoever asked then checks nothing rather than guess.

/// A value an expression computes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
}

impl Value {
    /// The value as a count or dimension, if it is a non-negative integer.
    pub fn count(self) -> Option<u64> {
        match self {
            Value::Int(n) => u64::try_from(n).ok(),
            _ => None,
        }
    }

    /// The value as C would test it in an `if`.
    fn truth(self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(b),
            Value::Int(n) => Some(n != 0),
            Value::Float(f) => Some(f != 0.0),
            Value::Null => Some(false),
        }
    }

    fn float(self) -> Option<f64> {
        match self {
            Value::Int(n) => Some(n as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Null => f.write_str("null"),
        }
    }
}

/// A shape's dimensions, written as the table writes them (`n_embd,n_ff`), with the values
/// they took: `n_embd=64, n_ff=128`; a literal as itself, an unknown value as `?`.
pub fn dims_shown(texts: &str, values: &[Option<u64>]) -> String {
    let dims = texts
        .split(',')
        .zip(values)
        .map(|(text, value)| match value {
            Some(v) if text.parse::<u64>().is_ok() => v.to_string(),
            Some(v) => format!("{text}={v}"),
            None => format!("{text}=?"),
        });
    dims.collect::<Vec<_>>().join(", ")
}

/// Where an expression finds its variables and tensors.
pub trait Scope {
    /// The value of `name`, if the model sets it.
    fn var(&self, name: &str) -> Option<Value>;
    /// Whether the model holds the tensor `name` (with `%d` for the current layer).
    fn present(&self, name: &str) -> Option<bool>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Min,
    Max,
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Value),
    Var(Box<str>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `present(NAME)` (true) or `absent(NAME)` (false).
    Tensor(bool, Box<str>),
}

impl Expr {
    /// Parses `text`; the error names what was not understood.
    pub fn parse(text: &str) -> Result<Expr, String> {
        let mut parser = Parser { text, pos: 0 };
        let expr = parser.ternary()?;
        parser.skip_space();
        match parser.pos == text.len() {
            true => Ok(expr),
            false => Err(format!("unexpected {:?} in {text:?}", parser.rest())),
        }
    }

    /// The value in `scope`; `None` when it depends on something unknown.
    pub fn eval(&self, scope: &dyn Scope) -> Option<Value> {
        match self {
            Expr::Lit(v) => Some(*v),
            Expr::Var(name) => scope.var(name),
            Expr::Not(e) => Some(Value::Bool(!e.eval(scope)?.truth()?)),
            Expr::Neg(e) => match e.eval(scope)? {
                Value::Int(n) => n.checked_neg().map(Value::Int),
                Value::Float(f) => Some(Value::Float(-f)),
                _ => None,
            },
            Expr::If(c, a, b) => match c.eval(scope)?.truth()? {
                true => a.eval(scope),
                false => b.eval(scope),
            },
            Expr::Tensor(want, name) => scope.present(name).map(|p| Value::Bool(p == *want)),
            Expr::Binary(Op::And, a, b) => three_valued(a.eval(scope), || b.eval(scope), false),
            Expr::Binary(Op::Or, a, b) => three_valued(a.eval(scope), || b.eval(scope), true),
            Expr::Binary(op, a, b) => binary(*op, a.eval(scope)?, b.eval(scope)?),
        }
    }

    /// Whether the expression holds in `scope`; `None` when unknown.
    pub fn holds(&self, scope: &dyn Scope) -> Option<bool> {
        self.eval(scope)?.truth()
    }

    /// The variables it reads, in order, each once.
    pub fn vars(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Var(name) if !out.contains(&&**name) => out.push(name),
            Expr::Not(e) | Expr::Neg(e) => e.collect(out),
            Expr::Binary(_, a, b) => {
                a.collect(out);
                b.collect(out);
            }
            Expr::If(c, a, b) => {
                c.collect(out);
                a.collect(out);
                b.collect(out);
            }
            _ => {}
        }
    }
}

/// `&&` (`short` false) or `||` (`short` true) where either side may be unknown: a side
/// equal to `short` decides alone.
fn three_valued(a: Option<Value>, b: impl FnOnce() -> Option<Value>, short: bool) -> Option<Value> {
    let a = a.and_then(Value::truth);
    if a == Some(short) {
        return Some(Value::Bool(short));
    }
    let b = b().and_then(Value::truth);
    match (a, b) {
        (_, Some(b)) if b == short => Some(Value::Bool(short)),
        (Some(_), Some(_)) => Some(Value::Bool(!short)),
        _ => None,
    }
}

fn binary(op: Op, a: Value, b: Value) -> Option<Value> {
    use Value::{Bool, Float, Int};
    if let (Int(x), Int(y)) = (a, b) {
        let v = match op {
            Op::Add => Int(x.checked_add(y)?),
            Op::Sub => Int(x.checked_sub(y)?),
            Op::Mul => Int(x.checked_mul(y)?),
            Op::Div => Int(x.checked_div(y)?),
            Op::Rem => Int(x.checked_rem(y)?),
            Op::Min => Int(x.min(y)),
            Op::Max => Int(x.max(y)),
            _ => Bool(compare(op, x.cmp(&y))?),
        };
        return Some(v);
    }
    if matches!(op, Op::Eq | Op::Ne) && !(a.float().is_some() && b.float().is_some()) {
        return Some(Bool((a == b) == (op == Op::Eq)));
    }
    let (x, y) = (a.float()?, b.float()?);
    let v = match op {
        Op::Add => Float(x + y),
        Op::Sub => Float(x - y),
        Op::Mul => Float(x * y),
        Op::Div => Float(x / y),
        Op::Rem => Float(x % y),
        Op::Min => Float(x.min(y)),
        Op::Max => Float(x.max(y)),
        // NaN compares unequal to everything, as in C.
        _ => Bool(
            x.partial_cmp(&y)
                .and_then(|o| compare(op, o))
                .unwrap_or(op == Op::Ne),
        ),
    };
    Some(v)
}

fn compare(op: Op, order: std::cmp::Ordering) -> Option<bool> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    Some(match op {
        Op::Eq => order == Equal,
        Op::Ne => order != Equal,
        Op::Lt => order == Less,
        Op::Le => order != Greater,
        Op::Gt => order == Greater,
        Op::Ge => order != Less,
        _ => return None,
    })
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

/// Binary operators by precedence, loosest first.
const LEVELS: [&[(&str, Op)]; 5] = [
    &[("||", Op::Or)],
    &[("&&", Op::And)],
    &[
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
    ],
    &[("+", Op::Add), ("-", Op::Sub)],
    &[("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)],
];

impl<'t> Parser<'t> {
    fn rest(&self) -> &'t str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        let hit = self.rest().starts_with(token);
        if hit {
            self.pos += token.len();
        }
        hit
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        match self.eat(token) {
            true => Ok(()),
            false => Err(format!("expected {token:?} at {:?}", self.rest())),
        }
    }

    fn ternary(&mut self) -> Result<Expr, String> {
        let cond = self.level(0)?;
        if !self.eat("?") {
            return Ok(cond);
        }
        let a = self.ternary()?;
        self.expect(":")?;
        let b = self.ternary()?;
        Ok(Expr::If(Box::new(cond), Box::new(a), Box::new(b)))
    }

    fn level(&mut self, n: usize) -> Result<Expr, String> {
        let Some(ops) = LEVELS.get(n) else {
            return self.unary();
        };
        let mut left = self.level(n + 1)?;
        'more: loop {
            for &(token, op) in *ops {
                // `!=` is not `!`, nor `<=` a `<`; `&&` and `||` are whole tokens.
                if self.eat(token) {
                    let right = self.level(n + 1)?;
                    left = Expr::Binary(op, Box::new(left), Box::new(right));
                    continue 'more;
                }
            }
            return Ok(left);
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let inner = self.ternary()?;
            self.expect(")")?;
            return Ok(inner);
        }
        self.skip_space();
        let rest = self.rest();
        let end = word_end(rest);
        let word = rest.get(..end).unwrap_or_default();
        if word.is_empty() {
            return Err(format!("expected a value at {rest:?}"));
        }
        self.pos += end;
        if word.starts_with(|c: char| c.is_ascii_digit()) {
            return number(word);
        }
        match word {
            "true" => Ok(Expr::Lit(Value::Bool(true))),
            "false" => Ok(Expr::Lit(Value::Bool(false))),
            "null" => Ok(Expr::Lit(Value::Null)),
            "present" | "absent" => {
                self.expect("(")?;
                let rest = self.rest();
                let close = rest.find(')').ok_or("unclosed tensor name")?;
                let name = rest.get(..close).unwrap_or_default().trim().into();
                self.pos += close + 1;
                Ok(Expr::Tensor(word == "present", name))
            }
            "min" | "max" => {
                self.expect("(")?;
                let a = self.ternary()?;
                self.expect(",")?;
                let b = self.ternary()?;
                self.expect(")")?;
                let op = if word == "min" { Op::Min } else { Op::Max };
                Ok(Expr::Binary(op, Box::new(a), Box::new(b)))
            }
            _ if word.contains('.') => Err(format!("unexpected {word:?}")),
            _ => Ok(Expr::Var(word.into())),
        }
    }
}

/// Where the word at the start of `rest` ends: a name, or a number whose exponent may be
/// signed (`1e-6`).
fn word_end(rest: &str) -> usize {
    let bytes = rest.as_bytes();
    let number = bytes.first().is_some_and(u8::is_ascii_digit);
    let mut end = 0;
    while let Some(&b) = bytes.get(end) {
        let sign = number
            && matches!(b, b'-' | b'+')
            && matches!(
                end.checked_sub(1).and_then(|i| bytes.get(i)),
                Some(b'e' | b'E')
            );
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || sign) {
            break;
        }
        end += 1;
    }
    end
}

/// A literal: an integer, or a decimal with a fraction or exponent.
fn number(word: &str) -> Result<Expr, String> {
    if let Ok(n) = word.parse::<i64>() {
        return Ok(Expr::Lit(Value::Int(n)));
    }
    word.parse::<f64>()
        .map(|f| Expr::Lit(Value::Float(f)))
        .map_err(|_| format!("bad number {word:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Vars(HashMap<&'static str, Value>);

    impl Scope for Vars {
        fn var(&self, name: &str) -> Option<Value> {
            self.0.get(name).copied()
        }
        fn present(&self, name: &str) -> Option<bool> {
            Some(name == "output.weight")
        }
    }

    fn eval(text: &str) -> Option<Value> {
        let vars = Vars(HashMap::from([
            ("n_embd", Value::Int(64)),
            ("n_head", Value::Int(4)),
            ("eps", Value::Float(f64::NAN)),
            ("tied", Value::Bool(true)),
        ]));
        Expr::parse(text).unwrap().eval(&vars)
    }

    #[test]
    fn arithmetic_is_c_integer_arithmetic() {
        assert_eq!(eval("n_embd/n_head*2+1"), Some(Value::Int(33)));
        assert_eq!(eval("-7/2"), Some(Value::Int(-3)));
        assert_eq!(eval("7%n_head"), Some(Value::Int(3)));
        assert_eq!(eval("min(n_embd, 3) + max(1, n_head)"), Some(Value::Int(7)));
        assert_eq!(eval("(n_embd+1)/0"), None);
        assert_eq!(eval("9223372036854775807+1"), None);
    }

    #[test]
    fn comparisons_and_nan() {
        assert_eq!(eval("n_embd%n_head==0"), Some(Value::Bool(true)));
        assert_eq!(eval("eps>0"), Some(Value::Bool(false)));
        assert_eq!(eval("eps!=eps"), Some(Value::Bool(true)));
        assert_eq!(eval("tied==null"), Some(Value::Bool(false)));
        assert_eq!(eval("1e-6<0.5"), Some(Value::Bool(true)));
    }

    #[test]
    fn unknowns_spread_unless_decided() {
        assert_eq!(eval("n_unset*2"), None);
        assert_eq!(eval("n_unset==0 && n_head==5"), Some(Value::Bool(false)));
        assert_eq!(eval("n_unset==0 || tied"), Some(Value::Bool(true)));
        assert_eq!(eval("n_unset==0 && tied"), None);
        assert_eq!(eval("tied ? n_embd : n_unset"), Some(Value::Int(64)));
    }

    #[test]
    fn tensors_and_negation() {
        assert_eq!(eval("absent(output.weight)"), Some(Value::Bool(false)));
        assert_eq!(
            eval("present(blk.%d.attn_qkv.weight)"),
            Some(Value::Bool(false))
        );
        assert_eq!(eval("!(n_head==0) && !tied"), Some(Value::Bool(false)));
    }

    #[test]
    fn dims_are_shown_with_their_values() {
        let shown = dims_shown("n_embd,n_ff*2,1,x", &[Some(64), Some(256), Some(1), None]);
        assert_eq!(shown, "n_embd=64, n_ff*2=256, 1, x=?");
    }

    #[test]
    fn bad_text_is_an_error() {
        for text in ["", "n_embd +", "(n_embd", "a.b", "1 2", "present(x"] {
            assert!(Expr::parse(text).is_err(), "{text}");
        }
        let e = Expr::parse("n_embd_head_k*n_head_kv + n_embd").unwrap();
        assert_eq!(e.vars(), ["n_embd_head_k", "n_head_kv", "n_embd"]);
    }
}
