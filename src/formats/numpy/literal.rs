//! The Python literals a `.npy` header is written in: a dict of strings, bools, integers,
//! tuples and lists, read as `ast.literal_eval` reads them (`numpy.lib.format` uses it).

/// A literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A tuple or list.
    Seq(Vec<Lit>),
    /// A dict.
    Dict(Vec<(Lit, Lit)>),
}

/// Nesting deeper than this is not a dtype numpy writes.
const MAX_DEPTH: usize = 32;

/// Parses `text` as one literal; `None` if it is not one.
pub fn parse(text: &str) -> Option<Lit> {
    let mut p = Parser {
        text: text.as_bytes(),
        pos: 0,
    };
    let lit = p.value(0)?;
    p.space();
    (p.pos == p.text.len()).then_some(lit)
}

struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.space();
        let found = self.peek() == Some(b);
        if found {
            self.pos += 1;
        }
        found
    }

    fn value(&mut self, depth: usize) -> Option<Lit> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match self.peek()? {
            b'\'' | b'"' => self.string().map(Lit::Str),
            b'(' => self.seq(b')', depth).map(Lit::Seq),
            b'[' => self.seq(b']', depth).map(Lit::Seq),
            b'{' => self.dict(depth).map(Lit::Dict),
            b'-' | b'0'..=b'9' => self.int(),
            _ => self.word(),
        }
    }

    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let b = self.peek()?;
            self.pos += 1;
            match b {
                b'\\' => {
                    let e = self.peek()?;
                    self.pos += 1;
                    out.push(match e {
                        b'n' => '\n',
                        b't' => '\t',
                        other => char::from(other),
                    });
                }
                b if b == quote => return Some(out),
                b => out.push(char::from(b)),
            }
        }
    }

    fn int(&mut self) -> Option<Lit> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        // A trailing L is how Python 2 wrote longs into old headers.
        let digits = std::str::from_utf8(self.text.get(start..self.pos)?).ok()?;
        if self.peek() == Some(b'L') {
            self.pos += 1;
        }
        digits.parse().ok().map(Lit::Int)
    }

    fn word(&mut self) -> Option<Lit> {
        let rest = self.text.get(self.pos..)?;
        for (word, lit) in [
            (&b"True"[..], Lit::Bool(true)),
            (b"False", Lit::Bool(false)),
            (b"None", Lit::None),
        ] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Some(lit);
            }
        }
        None
    }

    fn seq(&mut self, close: u8, depth: usize) -> Option<Vec<Lit>> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(items);
            }
            items.push(self.value(depth + 1)?);
            if !self.eat(b',') {
                return self.eat(close).then_some(items);
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Option<Vec<(Lit, Lit)>> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(b'}') {
                return Some(items);
            }
            let key = self.value(depth + 1)?;
            if !self.eat(b':') {
                return None;
            }
            items.push((key, self.value(depth + 1)?));
            if !self.eat(b',') {
                return self.eat(b'}').then_some(items);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_as_literal_eval_reads_them() {
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   ";
        let Some(Lit::Dict(items)) = parse(header) else {
            panic!()
        };
        assert_eq!(
            items[2],
            (
                Lit::Str("shape".into()),
                Lit::Seq(vec![Lit::Int(2), Lit::Int(3)])
            )
        );
        assert_eq!(parse("(3,)"), Some(Lit::Seq(vec![Lit::Int(3)])));
        assert!(parse("[('id', '<i4'), ('pos', '<f4', (2,))]").is_some());
        assert_eq!(parse("{'a': 1"), None);
        assert_eq!(parse("__import__('os')"), None);
        assert_eq!(parse(&"(".repeat(100)), None);
    }
}
