//! Making untrusted text safe for terminals, and for JSON read on one.

use serde::{Serialize, Serializer};
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

/// Escapes what [`needs_escape`] names as `\u{..}`, so that text from a model file cannot
/// move the cursor, clear the screen, reorder what is printed or hide characters in it.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if plain(s.as_bytes()) || !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
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

/// `text` in at most `width` characters, its end replaced by `…` if it is longer.
pub fn column(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Characters of a name or value from a file that a message shows ([`excerpt`]): enough to
/// tell names apart, few enough that a hostile megabyte-long one stays one line.
pub const EXCERPT: usize = 200;

/// Characters shown of a short part of a message (a class, key or token among other text).
pub const EXCERPT_SHORT: usize = 100;

/// `bytes` as short, printable text: invalid UTF-8 replaced, cut to `max` characters, then
/// escaped. Cutting first keeps a megabyte-long hostile value cheap: only the bytes that can
/// be shown are decoded (a character takes at most four). Borrowed when the bytes are already
/// short, safe UTF-8.
pub fn excerpt(bytes: &[u8], max: usize) -> Cow<'_, str> {
    if bytes.len() <= max && plain(bytes) {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Cow::Borrowed(text);
        }
    }
    let mut end = bytes.len().min(max.saturating_mul(4).saturating_add(4));
    // Not inside a character, which continues for at most 3 bytes (0b10xxxxxx).
    for _ in 0..3 {
        if bytes.get(end).is_some_and(|b| b & 0xc0 == 0x80) {
            end -= 1;
        }
    }
    let head = bytes.get(..end).unwrap_or(bytes);
    let text = String::from_utf8_lossy(head);
    // A head shorter than the bytes holds more than `max` characters, so it is cut here.
    let rest = bytes.len() - head.len();
    match text.char_indices().nth(max) {
        None => sanitize_cow(text),
        Some((cut, _)) => {
            let more = text.len() - cut + rest;
            Cow::Owned(sanitize(&format!("{}… ({more} more bytes)", &text[..cut])).into_owned())
        }
    }
}

/// Whether `bytes` are all printable ASCII, which needs no escape, as most names are: told
/// at once, without decoding characters.
fn plain(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| (b' '..=b'~').contains(b))
}

/// `path` as printable text: invalid UTF-8 replaced, control characters escaped.
pub fn path(path: &Path) -> Cow<'_, str> {
    sanitize_cow(path.to_string_lossy())
}

fn sanitize_cow(s: Cow<'_, str>) -> Cow<'_, str> {
    match s {
        Cow::Borrowed(s) => sanitize(s),
        Cow::Owned(s) => Cow::Owned(sanitize(&s).into_owned()),
    }
}

/// Whether text outputs escape `c`: control characters (C0, DEL, C1), and the invisible
/// characters that change how the text around them reads or hide text: bidi embeddings,
/// overrides, isolates and marks, zero-width characters, line and paragraph separators, and
/// tag characters.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{61c}' // Arabic letter mark
            | '\u{200b}'..='\u{200f}' // zero-width space, non-joiner and joiner; LRM, RLM
            | '\u{2028}' | '\u{2029}' // line and paragraph separators
            | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{feff}' // zero-width no-break space (byte order mark)
            | '\u{e0000}'..='\u{e007f}' // tag characters
        )
}

/// A path in JSON, kept byte for byte as names are: a string if it is UTF-8, otherwise
/// `{"bytes_base64": "..."}` (the bytes of the path as the OS stores them).
pub struct JsonPath<'a>(pub &'a Path);

impl Serialize for JsonPath<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_bytes(self.0.as_os_str().as_encoded_bytes(), s)
    }
}

/// Serializes untrusted bytes losslessly: a string if they are UTF-8, otherwise
/// `{"bytes_base64": "..."}`. Names and paths in every JSON document go through it.
pub fn serialize_bytes<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    use base64::Engine as _;
    use serde::ser::SerializeMap;
    match std::str::from_utf8(bytes) {
        Ok(text) => s.serialize_str(text),
        Err(_) => {
            let mut map = s.serialize_map(Some(1))?;
            let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
            map.serialize_entry("bytes_base64", &encoded)?;
            map.end()
        }
    }
}

/// Writes `value` as JSON, pretty or compact, with every character [`sanitize`] escapes
/// written as a `\uXXXX` escape. serde_json escapes only C0 controls; this also keeps DEL,
/// C1 controls and the invisible characters of [`needs_escape`] out of the bytes, so JSON
/// printed on a terminal is safe, and a parser still reads every string exactly.
pub fn write_json<W: Write, T: Serialize + ?Sized>(
    w: W,
    value: &T,
    pretty: bool,
) -> io::Result<()> {
    if pretty {
        let mut ser = serde_json::Serializer::with_formatter(w, SafeJson(PrettyFormatter::new()));
        value.serialize(&mut ser)?;
    } else {
        let mut ser = serde_json::Serializer::with_formatter(w, SafeJson(CompactFormatter));
        value.serialize(&mut ser)?;
    }
    Ok(())
}

/// A JSON formatter that escapes what [`sanitize`] escapes and otherwise lays out as `F` does.
struct SafeJson<F>(F);

/// Forwards the layout methods of [`Formatter`] to the wrapped formatter.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<W: ?Sized + Write>(&mut self, w: &mut W $(, $arg: $ty)*) -> io::Result<()> {
            self.0.$method(w $(, $arg)*)
        }
    )*};
}

impl<F: Formatter> Formatter for SafeJson<F> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, s: &str) -> io::Result<()> {
        // serde_json has escaped C0 controls already, so in ASCII only DEL is left.
        if s.is_ascii() && !s.as_bytes().contains(&0x7f) {
            return w.write_all(s.as_bytes());
        }
        let mut start = 0;
        for (at, c) in s.char_indices().filter(|&(_, c)| needs_escape(c)) {
            w.write_all(&s.as_bytes()[start..at])?;
            // A character past the Basic Multilingual Plane (a tag) is a surrogate pair.
            for unit in c.encode_utf16(&mut [0; 2]) {
                write!(w, "\\u{unit:04x}")?;
            }
            start = at + c.len_utf8();
        }
        w.write_all(&s.as_bytes()[start..])
    }

    forward! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
    }
}

#[cfg(test)]
mod tests {
    use super::{clip, column, excerpt, sanitize, write_json};
    use std::borrow::Cow;

    #[test]
    fn long_labels_are_cut_to_their_column() {
        assert_eq!(column("conv1", 8), "conv1");
        assert_eq!(column("encoder.layers", 8), "encoder…");
        assert_eq!(column("ééééé", 3), "éé…");
    }

    #[test]
    fn escapes_bidi_and_c1_controls_but_keeps_plain_text() {
        assert_eq!(sanitize("conv/1.weight"), "conv/1.weight");
        assert_eq!(sanitize("a\u{202e}b\u{9b}c"), "a\\u{202e}b\\u{9b}c");
        assert_eq!(sanitize("tab\there"), "tab\\u{9}here");
    }

    #[test]
    fn escapes_invisible_characters_but_keeps_visible_ones() {
        let invisible = [
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{2060}',
            '\u{feff}',
            '\u{200e}',
            '\u{200f}',
            '\u{61c}',
            '\u{202a}',
            '\u{2066}',
            '\u{2069}',
            '\u{2028}',
            '\u{2029}',
            '\u{e0000}',
            '\u{e0041}',
            '\u{e007f}',
        ];
        for c in invisible {
            let escaped = format!("\\u{{{:x}}}", u32::from(c));
            assert_eq!(sanitize(&format!("a{c}b")), format!("a{escaped}b"));
        }
        for visible in [
            "é",
            "日本",
            "\u{1f600}",
            "\u{e0080}",
            "\u{2027}",
            "\u{206a}",
        ] {
            assert_eq!(sanitize(visible), visible);
        }
    }

    #[test]
    fn clips_long_text_on_a_character_boundary() {
        assert_eq!(clip("short".into(), 5), "short");
        assert_eq!(clip("ééééé".into(), 2), "éé… (6 more bytes)");
    }

    #[test]
    fn plain_ascii_is_borrowed_and_ascii_controls_are_not() {
        assert!(matches!(
            excerpt(b"h.0.attn ~!", 500),
            Cow::Borrowed("h.0.attn ~!")
        ));
        assert!(matches!(sanitize("conv/1.weight"), Cow::Borrowed(_)));
        assert_eq!(excerpt(b"a\x7fb\x1b", 500), "a\\u{7f}b\\u{1b}");
        assert_eq!(sanitize("a\tb"), "a\\u{9}b");
        assert_eq!(excerpt(b"abcdef", 3), "abc… (3 more bytes)");
    }

    #[test]
    fn excerpts_are_cut_then_escaped() {
        assert_eq!(
            excerpt(b"w\xff\x1b.data", 3),
            "w\u{fffd}\\u{1b}… (5 more bytes)"
        );
        // Only the head of a long value is decoded, and the bytes left out are all counted.
        let long = "é".repeat(1 << 20);
        assert_eq!(excerpt(long.as_bytes(), 2), "éé… (2097148 more bytes)");
        let long = "€".repeat(1 << 20);
        assert_eq!(excerpt(long.as_bytes(), 3), "€€€… (3145719 more bytes)");
        assert!(excerpt(&[0x80; 100], 2).starts_with("\u{fffd}\u{fffd}… ("));
        assert_eq!(excerpt(b"abc", 3), "abc");
    }

    #[test]
    fn json_escapes_what_a_terminal_would_obey_and_reads_back_the_same() {
        let text = "a\u{7f}b\u{9b}c\u{202e}d\u{1b}é";
        let mut out = Vec::new();
        write_json(&mut out, &[text], true).unwrap();
        let json = String::from_utf8(out).unwrap();
        assert_eq!(json, "[\n  \"a\\u007fb\\u009bc\\u202ed\\u001bé\"\n]");
        assert_eq!(serde_json::from_str::<Vec<String>>(&json).unwrap(), [text]);
        // A tag character, past the Basic Multilingual Plane, is a surrogate pair.
        let text = "a\u{200b}\u{2028}\u{e0041}b";
        let mut out = Vec::new();
        write_json(&mut out, &[text], false).unwrap();
        let json = String::from_utf8(out).unwrap();
        assert_eq!(json, r#"["a\u200b\u2028\udb40\udc41b"]"#);
        assert_eq!(serde_json::from_str::<Vec<String>>(&json).unwrap(), [text]);
    }

    #[cfg(unix)]
    #[test]
    fn paths_that_are_not_utf8_serialize_as_bytes() {
        use super::JsonPath;
        use std::os::unix::ffi::OsStrExt;
        use std::path::Path;
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"a\xffb"));
        let json = serde_json::to_string(&JsonPath(odd)).unwrap();
        assert_eq!(json, r#"{"bytes_base64":"Yf9i"}"#);
        assert_eq!(
            serde_json::to_string(&JsonPath(Path::new("m/x"))).unwrap(),
            r#""m/x""#
        );
    }
}
