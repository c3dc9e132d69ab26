//! JSON read in place, one token at a time, for programs and headers that can be as large as
//! the file: nothing is built but the stack of open containers.
//!
//! Every token carries its absolute byte offset. Strings are borrowed slices of the input,
//! validated as they are read (UTF-8, escapes, surrogate pairs, no raw control characters)
//! and unescaped only when asked; numbers keep their text, so an integer is read exactly
//! and a fraction or exponent never passes for one. Nesting deeper than the caller's limit
//! is an error at the container that goes past it. The grammar is RFC 8259's, as strict as
//! serde_json's and nlohmann::json's: no comments, no trailing commas, no NaN.
//!
//! Memory is the container stack (one byte per level, up to the limit); readers pay their
//! budget for what they keep of the tokens.

use super::bytes::head;
use std::borrow::Cow;
use std::fmt;

/// Why the input is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The byte offset of the problem.
    pub at: u64,
    /// What is wrong there.
    pub what: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

/// A string token: its text between the quotes, as it is in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Str<'a> {
    raw: &'a str,
    /// The offset of the first byte after the opening quote.
    pub at: u64,
    escaped: bool,
}

impl<'a> Str<'a> {
    /// The text as written, escapes and all.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The string's value: borrowed when it has no escapes, else decoded.
    pub fn unescape(&self) -> Cow<'a, str> {
        if self.escaped {
            Cow::Owned(unescape(self.raw))
        } else {
            Cow::Borrowed(self.raw)
        }
    }

    /// Whether the string's value is `text`, without decoding when there is no escape.
    pub fn is(&self, text: &str) -> bool {
        if self.escaped {
            unescape(self.raw) == text
        } else {
            self.raw == text
        }
    }
}

/// A number token, kept as its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Number<'a> {
    text: &'a str,
}

impl Number<'_> {
    /// The number if it is written as an integer (no fraction, no exponent) that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.integral().then(|| self.text.parse().ok()).flatten()
    }

    /// The number if it is written as a non-negative integer that fits.
    pub fn as_u64(&self) -> Option<u64> {
        self.integral().then(|| self.text.parse().ok()).flatten()
    }

    /// The nearest double (correctly rounded; out of range gives an infinity).
    pub fn as_f64(&self) -> f64 {
        self.text.parse().unwrap_or(f64::NAN)
    }

    /// The number as written.
    pub fn text(&self) -> &str {
        self.text
    }

    fn integral(&self) -> bool {
        !self.text.contains(['.', 'e', 'E'])
    }
}

/// One token of a JSON document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Token<'a> {
    /// `{`: an object starts; its keys and values follow, then [`Token::End`].
    Object,
    /// `[`: an array starts; its values follow, then [`Token::End`].
    Array,
    /// The innermost open object or array ends.
    End,
    /// An object's key; its value follows.
    Key(Str<'a>),
    Str(Str<'a>),
    Number(Number<'a>),
    Bool(bool),
    Null,
}

impl Token<'_> {
    /// The kind of value, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Token::Object => "an object",
            Token::Array => "a list",
            Token::End => "the end of a container",
            Token::Key(_) => "a key",
            Token::Str(_) => "a string",
            Token::Number(_) => "a number",
            Token::Bool(_) => "a boolean",
            Token::Null => "null",
        }
    }
}

/// What the parser expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value (the document's, an array item's, or a key's).
    Value,
    /// After `{`: a key or `}`.
    FirstKey,
    /// After a member: `,` or `}`.
    NextKey,
    /// After a `,` in an object: a key.
    Key,
    /// After `[`: a value or `]`.
    FirstItem,
    /// After an item: `,` or `]`.
    NextItem,
    /// The document's value is complete: only whitespace may follow.
    Done,
}

/// A pull parser over `bytes`.
pub struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Open containers, innermost last: `true` for an object.
    stack: Vec<bool>,
    max_depth: usize,
    expect: Expect,
}

impl<'a> Parser<'a> {
    /// A parser of the document in `bytes`, refusing containers nested deeper than
    /// `max_depth`.
    pub fn new(bytes: &'a [u8], max_depth: usize) -> Self {
        Parser {
            bytes,
            pos: 0,
            stack: Vec::new(),
            max_depth,
            expect: Expect::Value,
        }
    }

    /// Open containers.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The offset of the next byte to read.
    pub fn pos(&self) -> u64 {
        self.pos as u64
    }

    fn error<T>(&self, at: usize, what: impl Into<String>) -> Result<T, Error> {
        Err(Error {
            at: at as u64,
            what: what.into(),
        })
    }

    /// The next token and its offset; `None` once the document has ended (then only
    /// whitespace follows it).
    pub fn token(&mut self) -> Result<Option<(u64, Token<'a>)>, Error> {
        self.skip_space();
        let after_member = matches!(self.expect, Expect::NextKey | Expect::NextItem);
        if after_member && self.bytes.get(self.pos) == Some(&b',') {
            self.pos += 1;
            self.skip_space();
            self.expect = match self.expect {
                Expect::NextKey => Expect::Key,
                _ => Expect::Value,
            };
        }
        let at = self.pos;
        let token = match (self.expect, self.bytes.get(at)) {
            (Expect::Done, None) => return Ok(None),
            (Expect::Done, Some(_)) => {
                return self.error(at, "data after the end of the JSON document")
            }
            (Expect::FirstKey | Expect::NextKey, Some(b'}'))
            | (Expect::FirstItem | Expect::NextItem, Some(b']')) => self.close(),
            (Expect::FirstKey | Expect::Key, _) => self.key()?,
            (Expect::NextKey, _) => return self.unexpected(at, "',' or '}'"),
            (Expect::NextItem, _) => return self.unexpected(at, "',' or ']'"),
            (Expect::FirstItem | Expect::Value, _) => self.value()?,
        };
        Ok(Some((at as u64, token)))
    }

    /// Consumes the value that comes next, whole.
    pub fn skip_value(&mut self) -> Result<(), Error> {
        let depth = self.depth();
        while self.token()?.is_some() {
            if self.depth() <= depth {
                break;
            }
        }
        Ok(())
    }

    /// Consumes the rest of the innermost open container, through its end.
    pub fn finish(&mut self) -> Result<(), Error> {
        let depth = self.depth();
        while self.depth() >= depth && depth > 0 {
            self.token()?;
        }
        Ok(())
    }

    /// Consumes the rest of `token`'s value: the container it opened, if it opened one.
    pub fn finish_value(&mut self, token: &Token<'_>) -> Result<(), Error> {
        match token {
            Token::Object | Token::Array => self.finish(),
            _ => Ok(()),
        }
    }

    /// Reads the `{` of a document that must be an object; the error says what it is instead.
    pub fn object_document(&mut self) -> Result<(), Error> {
        let what = match self.token()? {
            Some((_, Token::Object)) => return Ok(()),
            Some((at, token)) => (at, format!("it is {}, not an object", token.kind())),
            None => (0, "it is empty".to_owned()),
        };
        Err(Error {
            at: what.0,
            what: what.1,
        })
    }

    /// Inside an object: the next key, or `None` when the object ends (and is consumed).
    pub fn key_or_end(&mut self) -> Result<Option<Str<'a>>, Error> {
        match self.token()? {
            Some((_, Token::Key(key))) => Ok(Some(key)),
            _ => Ok(None),
        }
    }

    /// Inside an array: the first token of the next item and its offset, or `None` when the
    /// array ends (and is consumed).
    pub fn item_or_end(&mut self) -> Result<Option<(u64, Token<'a>)>, Error> {
        match self.token()? {
            Some((_, Token::End)) | None => Ok(None),
            item => Ok(item),
        }
    }

    /// Reads (and so checks) the rest of the document, then that only whitespace follows.
    pub fn end(&mut self) -> Result<(), Error> {
        while self.depth() > 0 {
            self.finish()?;
        }
        match self.token()? {
            None => Ok(()),
            Some((at, _)) => {
                let at = usize::try_from(at).unwrap_or(usize::MAX);
                self.error(at, "data after the end of the JSON document")
            }
        }
    }

    fn unexpected<T>(&self, at: usize, expected: &str) -> Result<T, Error> {
        match self.bytes.get(at) {
            None => self.error(at, format!("the JSON ends where {expected} is expected")),
            Some(&b) => self.error(at, format!("expected {expected}, found {}", shown(b))),
        }
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The state after a complete value at the current depth.
    fn after_value(&mut self) {
        self.expect = match self.stack.last() {
            None => Expect::Done,
            Some(true) => Expect::NextKey,
            Some(false) => Expect::NextItem,
        };
    }

    fn close(&mut self) -> Token<'a> {
        self.pos += 1;
        self.stack.pop();
        self.after_value();
        Token::End
    }

    fn open(&mut self, object: bool) -> Result<Token<'a>, Error> {
        if self.stack.len() >= self.max_depth {
            let what = format!(
                "containers nested more than {} deep (the limit)",
                self.max_depth
            );
            return self.error(self.pos, what);
        }
        self.pos += 1;
        self.stack.push(object);
        Ok(if object {
            self.expect = Expect::FirstKey;
            Token::Object
        } else {
            self.expect = Expect::FirstItem;
            Token::Array
        })
    }

    fn key(&mut self) -> Result<Token<'a>, Error> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return self.unexpected(self.pos, "a key");
        }
        let key = self.string()?;
        self.skip_space();
        if self.bytes.get(self.pos) != Some(&b':') {
            return self.unexpected(self.pos, "':' after a key");
        }
        self.pos += 1;
        self.expect = Expect::Value;
        Ok(Token::Key(key))
    }

    fn value(&mut self) -> Result<Token<'a>, Error> {
        let at = self.pos;
        let token = match self.bytes.get(at) {
            Some(b'{') => return self.open(true),
            Some(b'[') => return self.open(false),
            Some(b'"') => Token::Str(self.string()?),
            Some(b't') => self.literal("true", Token::Bool(true))?,
            Some(b'f') => self.literal("false", Token::Bool(false))?,
            Some(b'n') => self.literal("null", Token::Null)?,
            Some(b'-' | b'0'..=b'9') => Token::Number(self.number()?),
            _ => return self.unexpected(at, "a value"),
        };
        self.after_value();
        Ok(token)
    }

    fn literal(&mut self, word: &str, token: Token<'a>) -> Result<Token<'a>, Error> {
        let end = self.pos + word.len();
        if self.bytes.get(self.pos..end) != Some(word.as_bytes()) {
            return self.error(self.pos, format!("expected {word}"));
        }
        self.pos = end;
        Ok(token)
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number(&mut self) -> Result<Number<'a>, Error> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while p.bytes.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let int_at = self.pos;
        let int = digits(self);
        if int == 0 || (int > 1 && self.bytes.get(int_at) == Some(&b'0')) {
            return self.error(start, "a number needs digits, and no leading zero");
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return self.error(start, "a number's fraction needs digits");
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return self.error(start, "a number's exponent needs digits");
            }
        }
        let text = self.text(start, self.pos)?;
        Ok(Number { text })
    }

    /// The string whose opening quote is at the position; validated, not decoded.
    fn string(&mut self) -> Result<Str<'a>, Error> {
        let start = self.pos + 1;
        let mut at = start;
        let mut escaped = false;
        loop {
            match self.bytes.get(at) {
                None => return self.error(self.pos, "a string is not closed"),
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    at = self.escape(at)?;
                }
                Some(&b) if b < 0x20 => {
                    return self.error(at, format!("{} inside a string", shown(b)));
                }
                Some(_) => at += 1,
            }
        }
        let raw = self.text(start, at)?;
        self.pos = at + 1;
        Ok(Str {
            raw,
            at: start as u64,
            escaped,
        })
    }

    /// Checks the escape at `at` (a backslash); returns the offset after it.
    fn escape(&self, at: usize) -> Result<usize, Error> {
        match self.bytes.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(at + 2),
            Some(b'u') => {
                let unit = self.hex4(at)?;
                match unit {
                    0xd800..=0xdbff => {
                        let low = (self.bytes.get(at + 6..at + 8) == Some(b"\\u"))
                            .then(|| self.hex4(at + 6))
                            .transpose()?;
                        match low {
                            Some(0xdc00..=0xdfff) => Ok(at + 12),
                            _ => self.error(at, "a high surrogate escape without its low half"),
                        }
                    }
                    0xdc00..=0xdfff => {
                        self.error(at, "a low surrogate escape without its high half")
                    }
                    _ => Ok(at + 6),
                }
            }
            _ => self.error(at, "an invalid escape in a string"),
        }
    }

    /// The four hex digits of the `\u` escape at `at`.
    fn hex4(&self, at: usize) -> Result<u32, Error> {
        self.bytes
            .get(at + 2..at + 6)
            .and_then(|h| std::str::from_utf8(h).ok())
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .map_or_else(|| self.error(at, "a \\u escape needs four hex digits"), Ok)
    }

    fn text(&self, start: usize, end: usize) -> Result<&'a str, Error> {
        let bytes = self.bytes.get(start..end).unwrap_or_default();
        std::str::from_utf8(bytes).or_else(|e| self.error(start + e.valid_up_to(), "invalid UTF-8"))
    }
}

/// A byte as a message shows it.
fn shown(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// The value of a string's raw text, whose escapes the parser checked.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next() {
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('u') => {
                let high = hex_unit(&mut chars);
                let code = if (0xd800..0xdc00).contains(&high) {
                    chars.by_ref().take(2).for_each(drop); // the checked `\u` of the low half
                    let low = hex_unit(&mut chars);
                    0x10000 + ((high - 0xd800) << 10) + (low.wrapping_sub(0xdc00) & 0x3ff)
                } else {
                    high
                };
                char::from_u32(code).unwrap_or('\u{fffd}')
            }
            Some(other) => other,
            None => break,
        };
        out.push(decoded);
    }
    out
}

/// The next four (checked) hex digits as a UTF-16 unit.
fn hex_unit(chars: &mut std::str::Chars<'_>) -> u32 {
    let hex: String = chars.take(4).collect();
    u32::from_str_radix(&hex, 16).unwrap_or(0xfffd)
}

/// Whether `bytes` start a JSON object that holds `key` (quoted, white space removed) in its
/// first 4 KiB.
pub fn with_key(bytes: &[u8], key: &str) -> bool {
    let head = head(bytes, 4096);
    // Every file is asked this, and most are not JSON: the first byte that is not ASCII
    // white space settles it, unless it starts a character that may be white space.
    let first = head.iter().find(|b| !matches!(b, b'\t'..=b'\r' | b' '));
    if first.is_none_or(|&b| b.is_ascii() && b != b'{') {
        return false;
    }
    let text = String::from_utf8_lossy(head);
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact.starts_with('{') && compact.contains(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Result<Vec<(u64, String)>, Error> {
        let mut p = Parser::new(text.as_bytes(), 8);
        let mut out = Vec::new();
        while let Some((at, t)) = p.token()? {
            let shown = match t {
                Token::Key(s) => format!("key {}", s.unescape()),
                Token::Str(s) => format!("str {}", s.unescape()),
                Token::Number(n) => format!("num {}", n.text()),
                other => format!("{other:?}"),
            };
            out.push((at, shown));
        }
        Ok(out)
    }

    #[test]
    fn tokens_carry_their_offsets() {
        let t =
            tokens(r#" {"a": [1, -2.5e3, true, null], "b\n": "x\u00e9\ud83d\ude00"} "#).unwrap();
        let shown: Vec<_> = t.iter().map(|(at, s)| format!("{at} {s}")).collect();
        assert_eq!(
            shown,
            [
                "1 Object",
                "2 key a",
                "7 Array",
                "8 num 1",
                "11 num -2.5e3",
                "19 Bool(true)",
                "25 Null",
                "29 End",
                "32 key b\n",
                "39 str xé😀",
                "60 End"
            ]
        );
    }

    #[test]
    fn what_is_not_json_is_refused_where_it_goes_wrong() {
        for (text, at) in [
            ("[1,]", 3),
            ("{\"a\" 1}", 5),
            ("[01]", 1),
            ("[1.]", 1),
            ("[-]", 1),
            ("[\"a\u{1}\"]", 3),
            ("[\"\\x\"]", 2),
            ("[\"\\ud800\"]", 2),
            ("[\"\\udc00x\"]", 2),
            ("[nul]", 1),
            ("[1] 2", 4),
            ("{\"a\":1,}", 7),
            ("[1", 2),
            ("\"abc", 0),
            ("", 0),
            ("[[[[[[[[[1]]]]]]]]]", 8),
        ] {
            let e = tokens(text).unwrap_err();
            assert_eq!(e.at, at, "{text:?}: {e}");
        }
        let bad_utf8 = Parser::new(b"[\"\xff\"]", 4).skip_value().unwrap_err();
        assert_eq!(bad_utf8.at, 2);
    }

    #[test]
    fn integers_are_exact_and_fractions_are_not_integers() {
        fn number(text: &str) -> Number<'_> {
            match Parser::new(text.as_bytes(), 1).token() {
                Ok(Some((_, Token::Number(n)))) => n,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(number("9007199254740993").as_i64(), Some(9007199254740993));
        assert_eq!(number("-9223372036854775808").as_i64(), Some(i64::MIN));
        assert_eq!(number("9223372036854775808").as_i64(), None);
        assert_eq!(number("18446744073709551615").as_u64(), Some(u64::MAX));
        assert_eq!(number("1.0").as_i64(), None);
        assert_eq!(number("1e2").as_i64(), None);
        assert_eq!(number("-1").as_u64(), None);
        assert_eq!(number("1e400").as_f64(), f64::INFINITY);
        assert_eq!(number("0.1").as_f64(), 0.1);
    }

    #[test]
    fn values_are_skipped_and_containers_finished() {
        let text = br#"{"skip": {"deep": [[1], {"x": "]"}]}, "keep": 7, "rest": [1, 2]}"#;
        let mut p = Parser::new(text, 8);
        assert_eq!(p.token().unwrap().unwrap().1, Token::Object);
        assert!(p.key_or_end().unwrap().unwrap().is("skip"));
        p.skip_value().unwrap();
        assert!(p.key_or_end().unwrap().unwrap().is("keep"));
        p.skip_value().unwrap();
        assert!(p.key_or_end().unwrap().unwrap().is("rest"));
        assert_eq!(p.token().unwrap().unwrap().1, Token::Array);
        assert!(p.item_or_end().unwrap().is_some());
        p.finish().unwrap();
        assert_eq!(p.depth(), 1);
        assert_eq!(p.key_or_end().unwrap(), None);
        p.end().unwrap();
    }

    #[test]
    fn escaped_strings_compare_by_value() {
        let text = br#""p\u0061ram""#;
        let Ok(Some((_, Token::Str(s)))) = Parser::new(text, 1).token() else {
            panic!()
        };
        assert!(s.is("param"));
        assert_eq!(s.raw(), "p\\u0061ram");
        assert_eq!(s.at, 1);
    }

    #[test]
    fn json_is_told_by_its_first_character_after_white_space() {
        let key = "\"k\"";
        assert!(with_key(b" \t\x0b\r\n{\"k\": 1}", key));
        // U+00A0 and U+3000 are white space too.
        assert!(with_key("\u{a0}\u{3000}{ \"k\" : 1}".as_bytes(), key));
        assert!(!with_key(b"\x08\x07{\"k\": 1}", key));
        assert!(!with_key(b"[{\"k\": 1}]", key));
        assert!(!with_key("\u{e9}{\"k\": 1}".as_bytes(), key));
        assert!(!with_key(b"{\"j\": 1}", key));
        assert!(!with_key(b" \n ", key));
    }
}
