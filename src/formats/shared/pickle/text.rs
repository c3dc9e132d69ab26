//! Text arguments decoded as Python decodes them: `STRING`'s quoted escapes, `UNICODE`'s
//! raw-unicode-escape, and the UTF-8 (with surrogates) of `BINUNICODE` and its kin.

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

/// A `UNICODE` argument decoded as `raw-unicode-escape` (CPython's
/// `_PyUnicode_DecodeRawUnicodeEscapeStateful`), as UTF-8: `\uXXXX` and `\UXXXXXXXX` escapes,
/// a backslash before any other byte kept with it, every other byte a Latin-1 character. An
/// escape with too few hex digits or past U+10FFFF is the error `pickle.load` raises; a lone
/// surrogate, which Python keeps, becomes U+FFFD here (the text is only shown).
pub fn raw_unicode_escape(raw: &[u8]) -> Result<Vec<u8>, &'static str> {
    let mut out = String::with_capacity(raw.len());
    let mut bytes = raw.iter().copied();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(char::from(b));
            continue;
        }
        let (digits, message) = match bytes.next() {
            None => {
                out.push('\\');
                break;
            }
            Some(b'u') => (4, "truncated \\uXXXX escape"),
            Some(b'U') => (8, "truncated \\UXXXXXXXX escape"),
            Some(other) => {
                out.push('\\');
                out.push(char::from(other));
                continue;
            }
        };
        let mut code: u32 = 0;
        for _ in 0..digits {
            let digit = bytes.next().and_then(hex).ok_or(message)?;
            code = code << 4 | u32::from(digit);
        }
        if code > 0x10_ffff {
            return Err("\\Uxxxxxxxx out of range");
        }
        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
    }
    Ok(out.into_bytes())
}

/// Whether `bytes` decode as UTF-8 with `surrogatepass`, as `BINUNICODE` and its kin are:
/// UTF-8 that may also encode the surrogates U+D800 to U+DFFF.
pub fn is_utf8_surrogatepass(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(_) => return true,
            Err(e) => {
                // A surrogate is ED A0..BF 80..BF, which std refuses.
                let at = e.valid_up_to();
                match rest.get(at..at + 3) {
                    Some([0xed, 0xa0..=0xbf, 0x80..=0xbf]) => {
                        rest = rest.get(at + 3..).unwrap_or_default();
                    }
                    _ => return false,
                }
            }
        }
    }
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

    /// `pickle.loads(b"V" + raw + b"\n.")` on CPython 3.11.
    #[test]
    fn raw_unicode_escape_reads_as_cpython_reads_it() {
        let ok = |raw: &[u8]| raw_unicode_escape(raw).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(ok(br"a\u00e9\U0001F600").as_deref(), Ok("aé😀"));
        assert_eq!(ok(b"\xe9").as_deref(), Ok("é"));
        assert_eq!(ok(br"ab\x41").as_deref(), Ok(r"ab\x41"));
        assert_eq!(ok(br"a\\u0041").as_deref(), Ok(r"a\\u0041"));
        assert_eq!(ok(br"\\\u0041").as_deref(), Ok(r"\\A"));
        assert_eq!(ok(br"a\").as_deref(), Ok(r"a\"));
        assert!(raw_unicode_escape(br"ab\u00").is_err());
        assert!(raw_unicode_escape(br"ab\U00110000").is_err());
    }

    #[test]
    fn utf8_with_surrogates_passes_and_invalid_utf8_does_not() {
        assert!(is_utf8_surrogatepass("aé😀".as_bytes()));
        assert!(is_utf8_surrogatepass(b"a\xed\xa0\x80b"));
        assert!(!is_utf8_surrogatepass(b"a\xffb"));
        assert!(!is_utf8_surrogatepass(b"a\xc3"));
    }
}
