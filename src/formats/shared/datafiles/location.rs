//! Lexical rules for a data file location: those that need no file system.
//!
//! Locations come from the model and are hostile until proven otherwise. These rules run
//! before [`super::resolve`] looks at the file system, and nothing here opens a file.

use super::rules::*;
use crate::check::Rule;
use crate::escape::excerpt;
use std::borrow::Cow;
use std::path::Path;

/// Characters of a location or path shown in a message.
pub(super) const SHOWN: usize = 200;

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
        let shown = excerpt(bytes, SHOWN);
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
    excerpt(path.as_os_str().as_encoded_bytes(), SHOWN).into_owned()
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
    let folded = best_fit(location);
    match leaves_folder(&folded) {
        Some(what) if folded != location => Err(problem(
            &LOCATION_TRAVERSAL,
            format!(
                "location \"{shown}\" becomes \"{}\" when a Windows program converts it to \
its ANSI code page (best-fit mapping), which {what}",
                excerpt(folded.as_bytes(), SHOWN)
            ),
        )),
        _ => Ok(()),
    }
}

/// How `location` leaves the model's folder, if it does.
fn leaves_folder(location: &str) -> Option<&'static str> {
    let bytes = location.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
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

/// Characters that Windows' best-fit conversion to an ANSI code page can turn into a dot,
/// separator or colon, for programs that open files through the `A` APIs (the "WorstFit"
/// attacks): fullwidth forms, the division and fraction slashes, the yen and won signs, which
/// are the backslash in the Japanese and Korean code pages, and the Unicode spaces, which
/// become a space (so `..\u{3000}/` reads as `.. /`, which Windows trims to `../`). Written
/// from the published mappings by hand; generating it from them is still to do.
const BEST_FIT: [(char, char); 21] = [
    ('\u{ff0e}', '.'),
    ('\u{ff0f}', '/'),
    ('\u{2215}', '/'),
    ('\u{2044}', '/'),
    ('\u{ff3c}', '\\'),
    ('\u{a5}', '\\'),
    ('\u{20a9}', '\\'),
    ('\u{ff1a}', ':'),
    ('\u{a0}', ' '),
    ('\u{2000}', ' '),
    ('\u{2001}', ' '),
    ('\u{2002}', ' '),
    ('\u{2003}', ' '),
    ('\u{2004}', ' '),
    ('\u{2005}', ' '),
    ('\u{2006}', ' '),
    ('\u{2007}', ' '),
    ('\u{2008}', ' '),
    ('\u{2009}', ' '),
    ('\u{200a}', ' '),
    ('\u{3000}', ' '),
];

/// `location` as a best-fit conversion could read it; borrowed when nothing changes.
fn best_fit(location: &str) -> Cow<'_, str> {
    let fold = |c: char| {
        BEST_FIT
            .iter()
            .find(|&&(from, _)| from == c)
            .map(|&(_, to)| to)
    };
    if !location.chars().any(|c| fold(c).is_some()) {
        return Cow::Borrowed(location);
    }
    Cow::Owned(location.chars().map(|c| fold(c).unwrap_or(c)).collect())
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
    if let Some(&(from, to)) = BEST_FIT.iter().find(|(from, _)| loc.text.contains(*from)) {
        return Some(format!(
            "location \"{shown}\" holds {from:?}, which a Windows program using its ANSI code \
page can read as {to:?}"
        ));
    }
    for part in loc.text.split(['/', '\\']) {
        let stem = part.split('.').next().unwrap_or_default().trim_end();
        let numbered = |prefix: &str| {
            let b = stem.as_bytes();
            b.len() == 4
                && b[..3].eq_ignore_ascii_case(prefix.as_bytes())
                && (b'1'..=b'9').contains(&b[3])
        };
        let named = || excerpt(part.as_bytes(), SHOWN);
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
            "a\u{ff3c}..\u{a5}x",
            "\u{ff3c}\u{ff3c}server\u{ff3c}x",
            "C\u{ff1a}x",
            "..\u{2044}w.data",
            "..\u{3000}/w.data",
            "..\u{2000}/w.data",
            "a/..\u{a0}\\w.data",
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
        ] {
            assert!(
                check_lexically(&Location::new(ok.as_bytes())).is_ok(),
                "{ok}"
            );
        }
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
