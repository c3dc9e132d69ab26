//! A call loading makes, written as Python writes it, for messages: `os.system('ls -l')`, with
//! the arguments the pickle passes: strings, bytes, numbers, containers, globals by name, and
//! calls inside them as calls. At most [`EXCERPT`] characters, cut with `…`; strings are quoted
//! as `repr` quotes them, then escaped with [`crate::escape`], so that no control character or
//! terminal escape from the file reaches a message. Showing is bounded by what it writes: each
//! value written costs at least a character, and calls nest at most [`NESTING`] deep.

use super::opcodes;
use super::tree::Tree;
use super::value::{Id, Text, Value};
use crate::escape::{excerpt, sanitize, EXCERPT};
use std::fmt;

/// Calls of calls (`f()()()`) followed at most before one is written `…`.
const NESTING: u32 = 16;

/// A call as shown, and whether an argument is made when the pickle is loaded (by another
/// call, or a persistent id the loader resolves), not written in the file.
pub struct Shown {
    text: String,
    built: bool,
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        if self.built {
            f.write_str(" (arguments built at run time)")?;
        }
        Ok(())
    }
}

/// The call opcode `op` makes of `func` with `args` (the argument tuple, or for `BUILD` the
/// state passed to `__setstate__`): `f(a, b)`, or `C.__new__(C, a)` for `NEWOBJ`.
pub fn call<T: Tree>(tree: &T, op: u8, func: Id, args: Id) -> Shown {
    let mut w = Writer {
        tree,
        text: String::new(),
        left: EXCERPT,
        cut: false,
        built: false,
    };
    w.call(op, func, args, 0);
    if w.cut {
        w.text.push('…');
    }
    Shown {
        text: w.text,
        built: w.built,
    }
}

/// Writes values into `text` until `left` characters are spent.
struct Writer<'t, T> {
    tree: &'t T,
    text: String,
    left: usize,
    cut: bool,
    built: bool,
}

impl<'t, T: Tree> Writer<'t, T> {
    fn put(&mut self, s: &str) {
        for c in s.chars() {
            if self.left == 0 {
                self.cut = true;
            }
            if self.cut {
                return;
            }
            self.text.push(c);
            self.left -= 1;
        }
    }

    fn call(&mut self, op: u8, func: Id, args: Id, depth: u32) {
        if depth >= NESTING {
            self.put("…");
            return;
        }
        self.value(func, depth);
        match op {
            opcodes::NEWOBJ | opcodes::NEWOBJ_EX => {
                self.put(".__new__(");
                self.value(func, depth);
                if self.tree.items(args).is_some_and(|a| !a.is_empty()) {
                    self.put(", ");
                }
            }
            _ => self.put("("),
        }
        match (op, self.tree.items(args)) {
            (opcodes::BUILD, _) => self.value(args, depth),
            (_, Some(items)) => self.items(items, depth),
            (_, None) => {
                self.put("*");
                self.value(args, depth);
            }
        }
        self.put(")");
    }

    fn items(&mut self, items: &'t [Id], depth: u32) {
        for (i, &item) in items.iter().enumerate() {
            if self.cut {
                return;
            }
            if i > 0 {
                self.put(", ");
            }
            self.value(item, depth);
        }
    }

    fn value(&mut self, id: Id, depth: u32) {
        if self.cut {
            return;
        }
        let tree = self.tree;
        let Some(value) = tree.value(id) else {
            return self.put("?");
        };
        match value {
            Value::None => self.put("None"),
            Value::Bool(true) => self.put("True"),
            Value::Bool(false) => self.put("False"),
            Value::Int(v) => self.put(&v.to_string()),
            Value::BigInt(span) => self.put(&format!("<a {}-byte integer>", span.len)),
            Value::Float(v) => self.put(&float(*v)),
            Value::Str(text) => self.string(tree.text(text)),
            Value::Bytes(span) => self.bytes(tree.text(&Text::At(*span))),
            Value::Buffer => {
                self.built = true;
                self.put("<an out-of-band buffer>");
            }
            Value::Tuple(items) => {
                self.put("(");
                self.items(items, depth);
                self.put(if items.len() == 1 { ",)" } else { ")" });
            }
            Value::List(items) => {
                self.put("[");
                self.items(items, depth);
                self.put("]");
            }
            Value::Set(items) if items.is_empty() => self.put("set()"),
            Value::Set(items) => {
                self.put("{");
                self.items(items, depth);
                self.put("}");
            }
            Value::Dict(pairs) => {
                self.put("{");
                for (i, &(key, value)) in pairs.iter().enumerate() {
                    if self.cut {
                        return;
                    }
                    if i > 0 {
                        self.put(", ");
                    }
                    self.value(key, depth);
                    self.put(": ");
                    self.value(value, depth);
                }
                self.put("}");
            }
            Value::Global(i) => match tree.imports().get(*i) {
                Some(import) if import.ext.is_some() => {
                    self.put(&format!("<{}>", excerpt(&tree.spelled(import), EXCERPT)));
                }
                Some(import) => self.put(&excerpt(&tree.spelled(import), EXCERPT)),
                None => self.put("?"),
            },
            Value::Call(call) => {
                self.built = true;
                self.call(call.op, call.func, call.args, depth + 1);
            }
            Value::Persistent { pid, .. } => {
                self.built = true;
                self.put("<persistent id ");
                self.value(*pid, depth);
                self.put(">");
            }
        }
    }

    /// A `str`, quoted as `repr` quotes it, then escaped; only the bytes that can be shown
    /// are decoded.
    fn string(&mut self, bytes: &[u8]) {
        let head = bytes.get(..self.room(bytes.len())).unwrap_or(bytes);
        let text = String::from_utf8_lossy(head);
        let quote = if text.contains('\'') && !text.contains('"') {
            '"'
        } else {
            '\''
        };
        let mut quoted = String::with_capacity(text.len() + 2);
        quoted.push(quote);
        for c in text.chars() {
            if c == '\\' || c == quote {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        if head.len() < bytes.len() {
            self.put(&sanitize(&quoted));
            self.cut = true;
        } else {
            quoted.push(quote);
            self.put(&sanitize(&quoted));
        }
    }

    /// A `bytes`, written as `repr` writes it: printable ASCII as it is, the rest as escapes.
    fn bytes(&mut self, bytes: &[u8]) {
        let head = bytes.get(..self.room(bytes.len())).unwrap_or(bytes);
        let mut text = String::with_capacity(head.len() + 3);
        text.push_str("b'");
        for &b in head {
            match b {
                b'\\' | b'\'' => {
                    text.push('\\');
                    text.push(char::from(b));
                }
                b'\n' => text.push_str("\\n"),
                b'\r' => text.push_str("\\r"),
                b'\t' => text.push_str("\\t"),
                b' '..=b'~' => text.push(char::from(b)),
                _ => text.push_str(&format!("\\x{b:02x}")),
            }
        }
        if head.len() < bytes.len() {
            self.put(&text);
            self.cut = true;
        } else {
            text.push('\'');
            self.put(&text);
        }
    }

    /// Bytes of a value of `len` worth decoding: enough for the characters left (a character
    /// takes at most four bytes), and never more.
    fn room(&self, len: usize) -> usize {
        len.min(self.left.saturating_mul(4).saturating_add(4))
    }
}

/// A float as Python's `repr` writes it, near enough (`1e+300` is `1e300`).
fn float(v: f64) -> String {
    if v.is_nan() {
        "nan".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        format!("{v:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_into, Options, Sink, Source};
    use super::*;
    use crate::check::Findings;
    use crate::formats::shared::budget::Budget;
    use crate::inventory::{FileEntry, FileFormat, Inventory};

    /// The first call of the first import of `pickle` (protocol 2), as shown.
    fn shown(pickle: &[u8]) -> String {
        let mut out = Findings::default();
        let mut budget = Budget::for_file(pickle.len() as u64);
        let mut inv = Inventory::new(FileFormat::Unknown, "", FileEntry::model("", 0));
        let mut sink = Sink {
            inv: &mut inv,
            budget: &mut budget,
            out: &mut out,
        };
        let p = read_into(
            &mut sink,
            &Source::file(pickle, 0),
            Options::reporting(false),
        );
        let called = p.imports[0].first_call.expect("a call");
        call(&p, called.op, called.func, called.args).to_string()
    }

    /// `os.system(<argument>)`, REDUCEd.
    fn system(argument: &[u8]) -> String {
        shown(&[b"\x80\x02cos\nsystem\n", argument, b"\x85R."].concat())
    }

    fn unicode(text: &str) -> Vec<u8> {
        let mut op = b"X".to_vec();
        op.extend((text.len() as u32).to_le_bytes());
        op.extend(text.as_bytes());
        op
    }

    #[test]
    fn literals_are_written_as_python_writes_them() {
        assert_eq!(system(&unicode("ls -l")), "os.system('ls -l')");
        assert_eq!(system(&unicode("it's")), "os.system(\"it's\")");
        assert_eq!(system(&unicode(r#"a'b"c\"#)), r#"os.system('a\'b"c\\')"#);
        assert_eq!(system(b"C\x05\x00ab'\xff"), r"os.system(b'\x00ab\'\xff')");
        let tuple = [
            b"(K\x01G\x3f\xf8\x00\x00\x00\x00\x00\x00N\x88]".as_slice(),
            b"}t",
        ]
        .concat();
        assert_eq!(system(&tuple), "os.system((1, 1.5, None, True, [], {}))");
        let one = [unicode("a"), b"\x85".to_vec()].concat();
        assert_eq!(system(&one), "os.system(('a',))");
        let dict = [b"}".as_slice(), &unicode("k"), &unicode("v"), b"s"].concat();
        assert_eq!(system(&dict), "os.system({'k': 'v'})");
    }

    #[test]
    fn control_characters_are_escaped_and_long_text_is_cut() {
        let shown = system(&unicode("\x1b[2J\u{202e}x"));
        assert_eq!(shown, r"os.system('\u{1b}[2J\u{202e}x')");
        let long = system(&unicode(&"A".repeat(1 << 20)));
        assert!(long.starts_with("os.system('AAAA"), "{long}");
        assert!(long.ends_with("AAA…"), "{long}");
        assert_eq!(long.chars().count(), EXCERPT + 1);
    }

    #[test]
    fn calls_in_arguments_are_shown_as_built_at_run_time() {
        let decode = [b"ccodecs\ndecode\n".as_slice(), &unicode("x"), b"\x85R"].concat();
        assert_eq!(
            system(&decode),
            "os.system(codecs.decode('x')) (arguments built at run time)"
        );
    }

    /// A list that holds itself, and a call of a call of ... a million deep, are shown within
    /// the bound.
    #[test]
    fn cycles_and_deep_calls_are_shown_within_the_bound() {
        let cycle = system(b"]q\x00h\x00a");
        assert!(cycle.starts_with("os.system([[[["), "{cycle}");
        assert!(cycle.ends_with("[[…"), "{cycle}");
        let mut deep = b"cf\ng\n".to_vec();
        deep.extend(b")R".repeat(1_000_000));
        let deep = system(&deep);
        assert!(deep.starts_with("os.system(…()()()"), "{deep}");
        assert!(deep.chars().count() <= EXCERPT + 40, "{deep}");
    }

    #[test]
    fn newobj_shows_the_new_of_the_class() {
        let popen = [
            b"\x80\x02csubprocess\nPopen\n".as_slice(),
            &unicode("x"),
            b"\x85\x81.",
        ]
        .concat();
        assert_eq!(
            shown(&popen),
            "subprocess.Popen.__new__(subprocess.Popen, 'x')"
        );
    }
}
