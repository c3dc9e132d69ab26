//! Protocol 0 text arguments: `STRING`'s quoted escapes and `UNICODE`'s raw-unicode-escape,
//! decoded as Python decodes them.

/// The bytes of a `STRING` argument: quoted with `'` or `"`, backslash escapes as
/// `codecs.escape_decode` reads them; `None` if it is not quoted or an escape is invalid.
pub fn unquote(quoted: &[u8]) -> Option<Vec<u8>> {
    let (&first, rest) = quoted.split_first()?;
    let (&last, body) = rest.split_last()?;
    if first != last || !matches!(first, b'\'' | b'"') {
        return None;
    }
    let mut out = Vec::with_capacity(body.len());
    let mut bytes = body.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(e) = bytes.next() else {
            return None; // a trailing backslash
        };
        match e {
            b'\n' => {}
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'x' => {
                let hi = hex(bytes.next()?)?;
                let lo = hex(bytes.next()?)?;
                out.push(hi << 4 | lo);
            }
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                for _ in 0..2 {
                    match bytes.peek() {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            bytes.next();
                        }
                        _ => break,
                    }
                }
                // Past \377, CPython's escape decoder keeps the low byte.
                let [low, ..] = value.to_le_bytes();
                out.push(low);
            }
            b'\\' | b'\'' | b'"' => out.push(e),
            other => out.extend([b'\\', other]),
        }
    }
    Some(out)
}

/// A `UNICODE` argument as UTF-8: `\uXXXX` and `\UXXXXXXXX` escapes, every other byte a
/// Latin-1 character; a lone surrogate or an incomplete escape becomes U+FFFD.
pub fn raw_unicode_escape(raw: &[u8]) -> Vec<u8> {
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        let digits = match (b, raw.get(i + 1)) {
            (b'\\', Some(b'u')) => 4,
            (b'\\', Some(b'U')) => 8,
            _ => 0,
        };
        let escaped = (digits > 0)
            .then(|| raw.get(i + 2..i + 2 + digits))
            .flatten()
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok());
        match escaped {
            Some(code) => {
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                i += 2 + digits;
            }
            None => {
                out.push(char::from(b));
                i += 1;
            }
        }
    }
    out.into_bytes()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_arguments_decode_as_python_does() {
        assert_eq!(unquote(b"'true'").as_deref(), Some(&b"true"[..]));
        assert_eq!(
            unquote(br#""a\'b\x41\101\n""#).as_deref(),
            Some(&b"a'bAA\n"[..])
        );
        assert_eq!(unquote(br"'\q'").as_deref(), Some(&br"\q"[..]));
        assert_eq!(unquote(b"'unquoted"), None);
        assert_eq!(unquote(b"'"), None);
        assert_eq!(unquote(br"'\xZZ'"), None);
    }

    #[test]
    fn raw_unicode_escape_reads_u_escapes_and_latin_1() {
        assert_eq!(raw_unicode_escape(br"a\u00e9\U0001F600"), "aé😀".as_bytes());
        assert_eq!(raw_unicode_escape(b"\xe9"), "é".as_bytes());
        assert_eq!(raw_unicode_escape(br"\u12"), br"\u12");
    }
}
