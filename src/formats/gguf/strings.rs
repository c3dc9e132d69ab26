//! Strings as llama.cpp reads them and the specification defines them: no longer than
//! llama.cpp's cap, which it checks before anything else, and UTF-8.

use super::rules::{not_utf8, STRING_NOT_UTF8, STRING_TOO_LONG};
use super::wire::Wire;
use crate::check::Place;
use crate::formats::shared::bytes::Stop;
use crate::formats::shared::context::Context;
use crate::inventory::FileId;

/// llama.cpp's `GGUF_MAX_STRING_LENGTH` (1 GiB): it refuses a longer string unread.
pub const MAX_STRING: u64 = 1 << 30;

/// Reads the string at the wire's position; `what` names it in a message (such as `the key
/// of key-value pair 3`). A string longer than [`MAX_STRING`] is reported and not read,
/// whether or not the file holds it, as llama.cpp refuses it first ([`Stop::Reported`]); one
/// that runs past the end of the file is a [`Stop::Short`].
pub fn read<'a>(
    cx: &mut Context<'_>,
    wire: &mut Wire<'a>,
    file: FileId,
    what: impl FnOnce() -> String,
) -> Result<&'a [u8], Stop> {
    let at = wire.pos();
    let mut length = *wire;
    if let Some(len) = length.u64().ok().filter(|&len| len > MAX_STRING) {
        let message = format!(
            "{} is {len} bytes long (offset {at}); llama.cpp reads strings of at most {MAX_STRING} bytes (GGUF_MAX_STRING_LENGTH)",
            what()
        );
        cx.report(&STRING_TOO_LONG, Place::at(at).in_file(file), message);
        return Err(Stop::Reported);
    }
    wire.string().map_err(Stop::Short)
}

/// Where `text`, a string whose length is at `at`, stops being UTF-8, if it does.
pub fn not_utf8_at(text: &[u8], at: u64) -> Option<u64> {
    let valid = std::str::from_utf8(text).err()?.valid_up_to();
    Some(at + 8 + valid as u64)
}

/// Reports `text`, a string whose length is at `at` in file `file`, if it is not UTF-8;
/// `what` names it.
pub fn check_utf8(
    cx: &mut Context<'_>,
    text: &[u8],
    at: u64,
    file: FileId,
    what: impl FnOnce() -> String,
) {
    if let Some(bad) = not_utf8_at(text, at) {
        let place = Place::at(bad).in_file(file);
        cx.report(&STRING_NOT_UTF8, place, not_utf8(what(), bad));
    }
}
