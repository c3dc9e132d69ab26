//! Copying to the clipboard with OSC 52, which terminals (and tmux, and SSH sessions)
//! pass to the system clipboard without any library or display server.

use base64::Engine;
use std::ops::Deref;

/// Longest text copied; terminals refuse longer OSC 52 payloads.
const MAX_BYTES: usize = 64 * 1024;

/// What `y` copies: the escaped display form of a name, op type or finding, never the raw
/// text from the file. Pasted into a shell, raw text could end a bracketed paste
/// (`ESC [201~`) and run what follows its newline. [`Clip::of`] is the one way to make one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clip(String);

impl Clip {
    /// `text` escaped as every text output escapes it ([`crate::escape::sanitize`]).
    pub fn of(text: &str) -> Self {
        Clip(crate::escape::sanitize(text).into_owned())
    }
}

impl Deref for Clip {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Clip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The escape sequence that puts `text` on the clipboard. The text travels base64-encoded,
/// so names from the file cannot inject terminal controls.
pub fn osc52(text: &str) -> String {
    let mut end = text.len().min(MAX_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(&text.as_bytes()[..end]);
    format!("\x1b]52;c;{encoded}\x07")
}

#[cfg(test)]
mod tests {
    use super::{osc52, Clip};

    #[test]
    fn a_hostile_name_is_copied_escaped() {
        let name = "w\x1b[201~\r\ncurl x|sh\n\u{9b}2J\u{202e}\u{7f}";
        let clip = Clip::of(name);
        // C0 (ESC, CR, LF), DEL and C1 are all `is_control`.
        assert!(!clip.contains(char::is_control), "{clip:?}");
        assert_eq!(
            &*clip,
            "w\\u{1b}[201~\\u{d}\\u{a}curl x|sh\\u{a}\\u{9b}2J\\u{202e}\\u{7f}"
        );
        assert_eq!(&*Clip::of("conv1"), "conv1");
    }

    #[test]
    fn text_travels_base64_encoded_and_cut_at_a_character() {
        assert_eq!(osc52("conv1"), "\x1b]52;c;Y29udjE=\x07");
        assert_eq!(osc52("\x1b[2J"), "\x1b]52;c;G1sySg==\x07");
        let long = "é".repeat(40_000);
        let sequence = osc52(&long);
        assert!(sequence.len() < 90_000, "{}", sequence.len());
    }
}
