//! ONNX external data references: the key/value entries, and the location rules that
//! onnxruntime and rten add to the shared ones.

use super::rules::*;
use crate::check::{Findings, Place};
use crate::escape::{excerpt, EXCERPT_SHORT};
use crate::formats::shared::datafiles::rules::CHECKSUM_INVALID;
use crate::inventory::hashing::HashSet;

/// The parsed `external_data` entries of one tensor.
#[derive(Debug, Default)]
pub struct ExternalRef<'a> {
    /// `location`, if present, as the bytes the model stores.
    pub location: Option<&'a [u8]>,
    /// `offset`, if present and valid.
    pub offset: Option<u64>,
    /// `length`, if present and valid.
    pub length: Option<u64>,
    /// `checksum`, if present.
    pub checksum: Option<String>,
    /// False if an entry was unusable, so the tensor's range is unknown.
    pub usable: bool,
}

/// Parses `entries`, reporting unknown, duplicate and malformed keys at `place`.
pub fn parse<'a>(
    entries: &[(&'a [u8], &'a [u8])],
    place: Place,
    out: &mut Findings,
) -> ExternalRef<'a> {
    let mut r = ExternalRef {
        usable: true,
        ..ExternalRef::default()
    };
    let mut seen = HashSet::default();
    for &(key, value) in entries {
        let key_text = || excerpt(key, EXCERPT_SHORT);
        if !seen.insert(key) {
            let key_text = key_text();
            out.add(&DUPLICATE_EXTERNAL_KEY, place, format!(
                "external_data key \"{key_text}\" appears more than once; readers disagree on which value wins"));
            r.usable = false;
        }
        match key {
            b"location" => r.location = Some(value),
            b"offset" => r.offset = number("offset", value, place, out, &mut r.usable),
            b"length" => r.length = number("length", value, place, out, &mut r.usable),
            b"checksum" => {
                if value.len() != 40 || !value.iter().all(u8::is_ascii_hexdigit) {
                    let shown = excerpt(value, EXCERPT_SHORT);
                    let message = format!("external_data checksum \"{shown}\" is not 40 hex digits (a SHA-1); no file can match it");
                    out.add(&CHECKSUM_INVALID, place, message);
                } else {
                    r.checksum = Some(String::from_utf8_lossy(value).into_owned());
                }
            }
            _ => {
                let key_text = key_text();
                out.add(&UNKNOWN_EXTERNAL_KEY, place, format!(
                "external_data key \"{key_text}\" is not location, offset, length or checksum; onnxruntime refuses it"))
            }
        }
    }
    if r.location.is_none() {
        out.add(
            &LOCATION_MISSING,
            place,
            "EXTERNAL tensor has no location key",
        );
        r.usable = false;
    }
    r
}

/// A plain ASCII decimal that fits in u64, or a finding.
fn number(
    key: &str,
    value: &[u8],
    place: Place,
    out: &mut Findings,
    usable: &mut bool,
) -> Option<u64> {
    let parsed = (!value.is_empty() && value.iter().all(u8::is_ascii_digit))
        .then(|| std::str::from_utf8(value).ok()?.parse::<u64>().ok())
        .flatten();
    if parsed.is_none() {
        *usable = false;
        let shown = excerpt(value, EXCERPT_SHORT);
        out.add(
            &OFFSET_LENGTH_INVALID,
            place,
            format!(
                "external_data {key} = \"{shown}\" is not a decimal integer from 0 to {}",
                u64::MAX
            ),
        );
    }
    parsed
}
