//! Making untrusted text safe for terminals.

use std::borrow::Cow;

/// Escapes control characters (C0, DEL, C1) and Unicode bidi overrides, so that text from a
/// model file cannot move the cursor, clear the screen or reorder what is printed.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` cut to at most `max` characters, with the number of bytes left out: names and
/// locations from hostile files can be megabytes long.
pub fn clip(s: Cow<'_, str>, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => s,
        Some((cut, _)) => Cow::Owned(format!("{}… ({} more bytes)", &s[..cut], s.len() - cut)),
    }
}

/// `bytes` as short, printable text: invalid UTF-8 replaced, cut to `max` characters, then
/// escaped. Cutting first keeps a megabyte-long hostile value cheap. Borrowed when the bytes
/// are already short, safe UTF-8.
pub fn excerpt(bytes: &[u8], max: usize) -> Cow<'_, str> {
    match clip(String::from_utf8_lossy(bytes), max) {
        Cow::Borrowed(s) => sanitize(s),
        Cow::Owned(s) => Cow::Owned(sanitize(&s).into_owned()),
    }
}

fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::{clip, excerpt, sanitize};

    #[test]
    fn escapes_bidi_and_c1_controls_but_keeps_plain_text() {
        assert_eq!(sanitize("conv/1.weight"), "conv/1.weight");
        assert_eq!(sanitize("a\u{202e}b\u{9b}c"), "a\\u{202e}b\\u{9b}c");
        assert_eq!(sanitize("tab\there"), "tab\\u{9}here");
    }

    #[test]
    fn clips_long_text_on_a_character_boundary() {
        assert_eq!(clip("short".into(), 5), "short");
        assert_eq!(clip("ééééé".into(), 2), "éé… (6 more bytes)");
    }

    #[test]
    fn excerpts_are_cut_then_escaped() {
        assert_eq!(
            excerpt(b"w\xff\x1b.data", 3),
            "w\u{fffd}\\u{1b}… (5 more bytes)"
        );
    }
}
