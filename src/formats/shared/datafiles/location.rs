//! Lexical rules for a data file location: those that need no file system.
//!
//! Locations come from the model and are hostile until proven otherwise. These rules run
//! before [`super::resolve`] looks at the file system, and nothing here opens a file.

#[path = "location/best_fit_generated.rs"]
mod best_fit;

use super::rules::*;
use crate::check::Rule;
use crate::escape::{excerpt, EXCERPT};
use std::borrow::Cow;
use std::path::Path;

/// An external data location as the model stores it. Loaders on Unix hand these bytes to the
/// operating system unchanged, so the bytes, not a decoded string, name the file.
pub struct Location<'a> {
    bytes: &'a [u8],
    /// The bytes decoded for the lexical rules. Separators, dots, colons and NUL are ASCII,
    /// which lossy decoding keeps exactly.
    text: Cow<'a, str>,
    /// Escaped and cut short, for messages.
    shown: Cow<'a, str>,
}

impl<'a> Location<'a> {
    /// The location stored as `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        let text = String::from_utf8_lossy(bytes);
        let shown = excerpt(bytes, EXCERPT);
        Location { bytes, text, shown }
    }

    /// The location decoded as text (lossily where it is not UTF-8).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The location, escaped and cut short for a message.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether the bytes are UTF-8.
    pub fn is_utf8(&self) -> bool {
        matches!(self.text, Cow::Borrowed(_))
    }

    /// The relative path the bytes name, if this platform can name it.
    pub(super) fn path(&self) -> Option<&Path> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            Some(Path::new(std::ffi::OsStr::from_bytes(self.bytes)))
        }
        #[cfg(not(unix))]
        {
            std::str::from_utf8(self.bytes).ok().map(Path::new)
        }
    }
}

/// `path` escaped and cut short for a message.
pub(super) fn show(path: &Path) -> String {
    excerpt(path.as_os_str().as_encoded_bytes(), EXCERPT).into_owned()
}

/// Why a location was refused or flagged.
#[derive(Debug)]
pub struct Problem {
    /// The rule broken.
    pub rule: &'static Rule,
    /// What is wrong.
    pub message: String,
}

pub(super) fn problem(rule: &'static Rule, message: impl Into<String>) -> Problem {
    Problem {
        rule,
        message: message.into(),
    }
}

/// Lexical checks, which need no file system: `Err` for a location that must not be used.
pub fn check_lexically(loc: &Location<'_>) -> Result<(), Problem> {
    let (location, shown) = (&*loc.text, loc.shown());
    if let Some(what) = leaves_folder(location) {
        return Err(problem(
            &LOCATION_TRAVERSAL,
            format!("location \"{shown}\" {what}"),
        ));
    }
    let mut pages: Vec<u16> = location
        .chars()
        .filter_map(best_fit_of)
        .flat_map(|b| b.code_pages.iter().copied())
        .collect();
    pages.sort_unstable();
    pages.dedup();
    // Each program converts with one code page: the first that leads out is shown, with
    // every code page that does.
    let mut escapes = pages.into_iter().filter_map(|page| {
        let folded = best_fit(location, page);
        leaves_folder(&folded).map(|what| (page, folded, what))
    });
    let Some((page, folded, what)) = escapes.next() else {
        return Ok(());
    };
    let pages: Vec<u16> = [page].into_iter().chain(escapes.map(|(p, ..)| p)).collect();
    Err(problem(
        &LOCATION_TRAVERSAL,
        format!(
            "location \"{shown}\" becomes \"{}\" when a Windows program converts it to ANSI \
{} (best-fit mapping), which {what}",
            excerpt(folded.as_bytes(), EXCERPT),
            code_pages(&pages)
        ),
    ))
}

/// How `location` leaves the model's folder, if it does.
fn leaves_folder(location: &str) -> Option<&'static str> {
    let bytes = location.as_bytes();
    let drive = matches!(bytes, [letter, b':', ..] if letter.is_ascii_alphabetic());
    if location.starts_with("\\\\") || location.starts_with("//") {
        Some("is a UNC path")
    } else if location.starts_with(['/', '\\']) {
        Some("is an absolute path")
    } else if drive {
        Some("starts with a drive letter")
    } else if location.contains('\0') {
        // C and C++ loaders stop reading the location at the NUL.
        Some("contains a NUL byte")
    } else if location.split(['/', '\\']).any(climbs) {
        Some("climbs out of the model's folder with `..`")
    } else {
        None
    }
}

/// Whether a path component climbs to the parent folder: `..`, or dots and spaces that
/// Windows trims to `..` (`.. `, `.. .`). Three dots or more are refused too, as no real
/// data file is named that way.
fn climbs(part: &str) -> bool {
    part.starts_with("..") && part.chars().all(|c| c == '.' || c == ' ')
}

/// A character that Windows' best-fit conversion to an ANSI code page turns into a dot,
/// separator, colon or space, for programs that open files through the `A` APIs (the
/// "WorstFit" attacks): fullwidth forms, look-alike slashes and colons, the yen and won signs
/// (the backslash in the Japanese and Korean code pages) and Unicode spaces (`..\u{3000}/`
/// reads as `.. /`, which Windows trims to `../`). [`best_fit::BEST_FIT`] lists them all; it is
/// generated by `schema/gen_best_fit.py` from the published tables.
struct BestFit {
    from: char,
    to: char,
    /// The code pages that map `from` to `to`, ascending.
    code_pages: &'static [u16],
}

/// The best-fit entry for `c`, if it has one.
fn best_fit_of(c: char) -> Option<&'static BestFit> {
    let i = best_fit::BEST_FIT
        .binary_search_by_key(&c, |b| b.from)
        .ok()?;
    best_fit::BEST_FIT.get(i)
}

/// `location` as a program whose ANSI code page is `page` reads it after best-fit conversion.
fn best_fit(location: &str, page: u16) -> String {
    let fold = |c| match best_fit_of(c) {
        Some(b) if b.code_pages.contains(&page) => b.to,
        _ => c,
    };
    location.chars().map(fold).collect()
}

/// `pages` (ascending) for a message: "code page 932", "code pages 874, 1250-1258".
fn code_pages(pages: &[u16]) -> String {
    let mut runs: Vec<(u16, u16)> = Vec::new();
    for &page in pages {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == page => *last = page,
            _ => runs.push((page, page)),
        }
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let noun = if pages.len() == 1 { "page" } else { "pages" };
    format!("code {noun} {}", runs.join(", "))
}

/// Why Windows would read `location` differently, if it would: a DOS device name, an NTFS
/// stream, a trailing dot or space, a character Windows refuses, or bytes that are not UTF-8
/// (Windows names files in UTF-16).
pub fn not_portable(loc: &Location<'_>) -> Option<String> {
    const DEVICES: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];
    let shown = loc.shown();
    if !loc.is_utf8() {
        return Some(format!(
            "location \"{shown}\" is not UTF-8, so Windows, which names files in UTF-16, cannot open it"
        ));
    }
    if let Some(b) = loc.text.chars().find_map(best_fit_of) {
        return Some(format!(
            "location \"{shown}\" holds U+{:04X} {:?}, which a Windows program using ANSI {} \
reads as {:?}",
            u32::from(b.from),
            b.from,
            code_pages(b.code_pages),
            b.to
        ));
    }
    for part in loc.text.split(['/', '\\']) {
        let stem = part.split('.').next().unwrap_or_default().trim_end();
        let numbered = |prefix: &str| {
            matches!(stem.as_bytes(), [a, b, c, b'1'..=b'9']
                if [*a, *b, *c].eq_ignore_ascii_case(prefix.as_bytes()))
        };
        let named = || excerpt(part.as_bytes(), EXCERPT);
        let why = if DEVICES.iter().any(|d| stem.eq_ignore_ascii_case(d))
            || numbered("COM")
            || numbered("LPT")
        {
            format!("\"{}\" is a DOS device name", named())
        } else if part.contains(':') {
            format!(
                "\"{}\" holds a colon, which names an NTFS alternate data stream",
                named()
            )
        } else if part.ends_with(['.', ' ']) && part != "." {
            format!(
                "\"{}\" ends in a dot or space, which Windows drops",
                named()
            )
        } else if let Some(c) = part
            .chars()
            .find(|&c| "<>\"|?*".contains(c) || c.is_control())
        {
            format!(
                "\"{}\" holds {c:?}, which Windows refuses in file names",
                named()
            )
        } else {
            continue;
        };
        return Some(format!("location \"{shown}\": {why}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_every_traversal_form() {
        for bad in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "C:\\x",
            "c:x",
            "\\\\server\\x",
            "//server/x",
            "\\x",
            "a\\..\\x",
            "a/..",
            "..",
            ".. /x",
            "a/..  /..  /x",
            ".. ./x",
            ".../x",
            "\u{ff0e}\u{ff0e}/x",
            "..\u{ff0f}x",
            "a\u{ff3c}..\u{ff3c}x",
            "a/..\u{a5}x",
            "\u{ff3c}\u{ff3c}server\u{ff3c}x",
            "C\u{ff1a}x",
            "..\u{2044}w.data",
            "..\u{3000}/w.data",
            "..\u{2000}/w.data",
            "a/..\u{2216}w.data",
        ] {
            let e = check_lexically(&Location::new(bad.as_bytes())).unwrap_err();
            assert_eq!(e.rule.code, "DX001", "{bad}");
        }
        // A C loader would read only `w.data`: the NUL is named, not the `..` after it.
        let nul = check_lexically(&Location::new(b"w.data\0../../x")).unwrap_err();
        assert!(nul.message.contains("NUL"), "{}", nul.message);
        for ok in [
            "w.data",
            "sub/w.data",
            "a..b.data",
            "./w.data",
            "..w",
            "w\u{ff0e}data",
            // No code page folds both: 932 keeps U+FF0E, 1252 keeps the yen sign.
            "\u{ff0e}\u{ff0e}\u{a5}x",
            "a\u{ff3c}..\u{a5}x",
            // No ANSI code page maps the no-break space to a space.
            "..\u{a0}/w.data",
        ] {
            assert!(
                check_lexically(&Location::new(ok.as_bytes())).is_ok(),
                "{ok}"
            );
        }
    }

    #[test]
    fn every_best_fit_character_is_flagged_and_folded() {
        let table = &best_fit::BEST_FIT;
        assert!(
            table.windows(2).all(|w| w[0].from < w[1].from),
            "not sorted"
        );
        for b in table {
            let c = b.from;
            assert!(!c.is_ascii() && !b.code_pages.is_empty(), "{c:?}");
            // Where the character stands when it is what its target would be.
            let location = match b.to {
                '.' => format!("{c}{c}/w.data"),
                '/' | '\\' => format!("..{c}w.data"),
                ':' => format!("C{c}w.data"),
                ' ' => format!("..{c}/w.data"),
                other => panic!("{c:?} maps to {other:?}"),
            };
            let loc = Location::new(location.as_bytes());
            let e = check_lexically(&loc).unwrap_err();
            assert_eq!(e.rule.code, "DX001", "{location}");
            let pages = format!("ANSI {} (", code_pages(b.code_pages));
            assert!(e.message.contains(&pages), "{}", e.message);
            let why = not_portable(&loc).unwrap();
            let named = format!("U+{:04X}", u32::from(c));
            assert!(why.contains(&named), "{why}");
            assert!(why.contains(&code_pages(b.code_pages)), "{why}");
        }
        assert_eq!(code_pages(&[932]), "code page 932");
        assert_eq!(
            code_pages(&[874, 1250, 1251, 1252, 1254]),
            "code pages 874, 1250-1252, 1254"
        );
    }

    #[test]
    fn windows_reads_these_locations_differently() {
        for odd in [
            "CON",
            "aux.data",
            "sub/nul.tar.data",
            "Com1.data",
            "lpt9",
            "w.data:hidden",
            "w.data.",
            "w.data ",
            "w?.data",
            "sub /w.data",
            "w\u{ff0e}data",
            "\u{a5}w.data",
        ] {
            assert!(
                not_portable(&Location::new(odd.as_bytes())).is_some(),
                "{odd}"
            );
        }
        for fine in [
            "w.data",
            "console.data",
            "com10.data",
            "com0",
            "./w.data",
            "a€",
            "a..b",
        ] {
            assert_eq!(
                not_portable(&Location::new(fine.as_bytes())),
                None,
                "{fine}"
            );
        }
    }

    #[test]
    fn locations_keep_their_bytes_and_are_shown_short() {
        let odd = Location::new(b"w\xff.data");
        assert!(check_lexically(&odd).is_ok());
        #[cfg(unix)]
        assert_eq!(
            std::os::unix::ffi::OsStrExt::as_bytes(odd.path().unwrap().as_os_str()),
            b"w\xff.data"
        );
        assert!(not_portable(&odd).unwrap().contains("not UTF-8"));
        let long = "d/".repeat(100_000) + "w.data";
        let why = not_portable(&Location::new(format!("{long}:s").as_bytes())).unwrap();
        assert!(why.len() < 1000, "{} bytes", why.len());
        let why = check_lexically(&Location::new(format!("/{long}").as_bytes())).unwrap_err();
        assert!(why.message.len() < 1000, "{} bytes", why.message.len());
    }
}
