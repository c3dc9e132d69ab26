//! The typed reading of JSON values over the budgeted pull parser: objects whose keys are
//! read once each (a repeated key is an error, where Python keeps the last), lists bounded
//! in length, strings, booleans, numbers, base64 and hex.

use std::collections::HashSet;

use base64::Engine;

use crate::formats::shared::json::{Parser, Token};

/// Containers nested deeper than this are refused.
pub const MAX_DEPTH: usize = 64;

/// Why a document could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The byte offset in the document.
    pub at: u64,
    /// What is wrong there.
    pub what: String,
}

impl From<crate::formats::shared::json::Error> for Error {
    fn from(e: crate::formats::shared::json::Error) -> Self {
        Error {
            at: e.at,
            what: e.what,
        }
    }
}

/// A value read, or why not.
pub type Result<T> = std::result::Result<T, Error>;

/// A value's first token and its offset.
pub type Value<'a> = (u64, Token<'a>);

/// An error at `at`.
pub fn error<T>(at: u64, what: impl Into<String>) -> Result<T> {
    Err(Error {
        at,
        what: what.into(),
    })
}

/// The next value's first token.
pub fn next<'a>(p: &mut Parser<'a>) -> Result<Value<'a>> {
    match p.token()? {
        Some(value) => Ok(value),
        None => error(p.pos(), "the JSON ends where a value is expected"),
    }
}

/// Each member of the object that `value` opens, by key; `f` reads or skips its value.
pub fn members<'a>(
    p: &mut Parser<'a>,
    (at, token): Value<'a>,
    what: &str,
    mut f: impl FnMut(&mut Parser<'a>, &str) -> Result<()>,
) -> Result<()> {
    if token != Token::Object {
        return error(at, format!("{what} is {}, not an object", token.kind()));
    }
    let mut seen = HashSet::new();
    while let Some(key) = p.key_or_end()? {
        let name = key.unescape();
        if !seen.insert(name.to_string()) {
            return error(key.at, format!("{what} has the key {name:?} twice"));
        }
        f(p, &name)?;
    }
    Ok(())
}

/// Each item of the list that `value` opens; more than `max` is an error.
pub fn items<'a>(
    p: &mut Parser<'a>,
    (at, token): Value<'a>,
    what: &str,
    max: usize,
    mut f: impl FnMut(&mut Parser<'a>, Value<'a>) -> Result<()>,
) -> Result<()> {
    if token != Token::Array {
        return error(at, format!("{what} is {}, not a list", token.kind()));
    }
    let mut count = 0usize;
    while let Some(item) = p.item_or_end()? {
        count += 1;
        if count > max {
            return error(item.0, format!("{what} has more than {max} items"));
        }
        f(p, item)?;
    }
    Ok(())
}

/// A string value, decoded.
pub fn text(p: &mut Parser<'_>, what: &str) -> Result<String> {
    match next(p)? {
        (_, Token::Str(s)) => Ok(s.unescape().into_owned()),
        (at, token) => error(at, format!("{what} is {}, not a string", token.kind())),
    }
}

/// A string value, or `null` read as the empty string (protobuf JSON's default).
pub fn text_or_null(p: &mut Parser<'_>, what: &str) -> Result<String> {
    match next(p)? {
        (_, Token::Null) => Ok(String::new()),
        value => text_of(value, what),
    }
}

/// A string value given its token.
pub fn text_of((at, token): Value<'_>, what: &str) -> Result<String> {
    match token {
        Token::Str(s) => Ok(s.unescape().into_owned()),
        _ => error(at, format!("{what} is {}, not a string", token.kind())),
    }
}

/// A boolean value.
pub fn boolean(p: &mut Parser<'_>, what: &str) -> Result<bool> {
    match next(p)? {
        (_, Token::Bool(b)) => Ok(b),
        (at, token) => error(at, format!("{what} is {}, not true or false", token.kind())),
    }
}

/// A non-negative whole number, written as an integer or as a float with no fraction
/// (`model_signing` writes `shard_size` through a protobuf `Struct`, so `16.0`).
pub fn whole(p: &mut Parser<'_>, what: &str) -> Result<u64> {
    match next(p)? {
        (at, Token::Number(n)) => match n.as_u64() {
            Some(v) => Ok(v),
            None => {
                let f = n.as_f64();
                // 2^53: every whole float below it is exact.
                if f.fract() == 0.0 && (0.0..9_007_199_254_740_992.0).contains(&f) {
                    Ok(f as u64)
                } else {
                    error(at, format!("{what} is {}, not a whole number", n.text()))
                }
            }
        },
        (at, token) => error(at, format!("{what} is {}, not a number", token.kind())),
    }
}

/// A base64 string (the standard alphabet, or the URL-safe one protobuf JSON also takes).
pub fn base64(p: &mut Parser<'_>, what: &str) -> Result<Vec<u8>> {
    let (at, token) = next(p)?;
    let text = text_of((at, token), what)?;
    let engines = [
        &base64::engine::general_purpose::STANDARD,
        &base64::engine::general_purpose::URL_SAFE,
    ];
    engines
        .iter()
        .find_map(|e| e.decode(text.as_bytes()).ok())
        .map_or_else(|| error(at, format!("{what} is not base64")), Ok)
}

/// Lowercase or uppercase hex, two digits a byte.
pub fn hex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.as_bytes()
        .chunks_exact(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_refused() {
        let mut p = Parser::new(br#"{"a": 1, "a": 2}"#, MAX_DEPTH);
        let first = next(&mut p).unwrap();
        let err = members(&mut p, first, "the thing", |p, _| {
            p.skip_value().map_err(Into::into)
        })
        .unwrap_err();
        assert_eq!(err.what, "the thing has the key \"a\" twice");
    }

    #[test]
    fn whole_numbers_may_be_written_as_floats() {
        for (json, want) in [("16", Some(16)), ("16.0", Some(16)), ("1e3", Some(1000))] {
            assert_eq!(whole(&mut Parser::new(json.as_bytes(), 4), "n").ok(), want);
        }
        for json in ["16.5", "-1", "1e300", "\"16\""] {
            assert!(whole(&mut Parser::new(json.as_bytes(), 4), "n").is_err());
        }
    }

    #[test]
    fn hex_decodes_pairs() {
        assert_eq!(hex("00fFa1"), Some(vec![0, 255, 0xa1]));
        assert_eq!(hex("0"), None);
        assert_eq!(hex("zz"), None);
        assert_eq!(hex("+1"), None);
    }
}
