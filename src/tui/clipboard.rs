//! Copying to the clipboard with OSC 52, which terminals (and tmux, and SSH sessions)
//! pass to the system clipboard without any library or display server.

use base64::Engine;

/// Longest text copied; terminals refuse longer OSC 52 payloads.
const MAX_BYTES: usize = 64 * 1024;

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
    use super::osc52;

    #[test]
    fn text_travels_base64_encoded_and_cut_at_a_character() {
        assert_eq!(osc52("conv1"), "\x1b]52;c;Y29udjE=\x07");
        assert_eq!(osc52("\x1b[2J"), "\x1b]52;c;G1sySg==\x07");
        let long = "é".repeat(40_000);
        let sequence = osc52(&long);
        assert!(sequence.len() < 90_000, "{}", sequence.len());
    }
}
