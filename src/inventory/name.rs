//! Names from model files, kept byte for byte, and shared rather than copied.

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A name or string from a model file.
///
/// Files may hold names that are not UTF-8, so the bytes are kept as they are. JSON output
/// writes UTF-8 names as strings and any other name as `{"bytes_base64": "..."}`.
///
/// A name is a shared handle: cloning it copies no bytes, so a string that a file refers to
/// a thousand times costs one copy and a thousand handles, once readers share it.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Arc<[u8]>);

impl Name {
    /// The name as UTF-8, if it is.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// True for the empty name.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The name as text for display: invalid UTF-8 is replaced, control characters are
    /// escaped, and a name over 500 characters is cut, so the result is safe to print on a
    /// terminal. JSON output keeps the whole name.
    pub fn display(&self) -> Cow<'_, str> {
        crate::escape::excerpt(&self.0, 500)
    }
}

/// Names hash and compare as their bytes, so a set of names can be searched by bytes.
impl std::borrow::Borrow<[u8]> for Name {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(s.as_bytes().into())
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(s.into_bytes().into())
    }
}

impl From<Vec<u8>> for Name {
    fn from(b: Vec<u8>) -> Self {
        Name(b.into())
    }
}

impl From<&[u8]> for Name {
    fn from(b: &[u8]) -> Self {
        Name(b.into())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine as _;
        use serde::ser::SerializeMap;
        match self.as_str() {
            Some(text) => s.serialize_str(text),
            None => {
                let mut map = s.serialize_map(Some(1))?;
                let encoded = base64::engine::general_purpose::STANDARD.encode(&self.0);
                map.serialize_entry("bytes_base64", &encoded)?;
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_names_serialize_losslessly() {
        let name = Name::from(&b"a\xffb"[..]);
        assert_eq!(name.as_str(), None);
        let json = serde_json::to_string(&name).unwrap();
        assert_eq!(json, r#"{"bytes_base64":"Yf9i"}"#);
        assert_eq!(serde_json::to_string(&Name::from("x")).unwrap(), r#""x""#);
    }

    #[test]
    fn display_escapes_control_characters() {
        let name = Name::from("evil\x1b[2Jname\x07");
        assert_eq!(name.display(), "evil\\u{1b}[2Jname\\u{7}");
    }
}
