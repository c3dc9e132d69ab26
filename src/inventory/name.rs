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
/// A short name is kept inline, with no allocation: most names of the largest graphs
/// (`v123`, `onnx::MatMul_1234`, `blk.7.ffn_up.weight`) are short. A longer one is a shared
/// handle: cloning it copies no bytes, so a string that a file refers to a thousand times
/// costs one copy and a thousand handles, once readers share it.
#[derive(Clone)]
pub struct Name(Repr);

/// The bytes a name keeps inline: as many as fit beside a length in the 24 bytes a handle to
/// shared bytes takes anyway.
const INLINE: usize = 22;

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Shared(Arc<[u8]>),
}

impl Default for Name {
    fn default() -> Self {
        Name(Repr::Inline {
            len: 0,
            bytes: [0; INLINE],
        })
    }
}

impl Name {
    fn new(text: &[u8]) -> Self {
        let mut bytes = [0; INLINE];
        match (u8::try_from(text.len()), bytes.get_mut(..text.len())) {
            (Ok(len), Some(inline)) => {
                inline.copy_from_slice(text);
                Name(Repr::Inline { len, bytes })
            }
            _ => Name(Repr::Shared(text.into())),
        }
    }

    /// The name as UTF-8, if it is.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(self.as_bytes()).ok()
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or(bytes),
            Repr::Shared(shared) => shared,
        }
    }

    /// Where the bytes of a name kept out of line are, and how many: equal for the clones of
    /// one handle, and never reused while one of them lives. `None` for a short name, which
    /// has no such place and is quicker to compare by its bytes.
    pub fn shared_at(&self) -> Option<(usize, usize)> {
        match &self.0 {
            Repr::Shared(shared) => Some((shared.as_ptr() as usize, shared.len())),
            Repr::Inline { .. } => None,
        }
    }

    /// True for the empty name.
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// The name as text for display: invalid UTF-8 is replaced, control characters are
    /// escaped, and a name over 500 characters is cut, so the result is safe to print on a
    /// terminal. JSON output keeps the whole name.
    pub fn display(&self) -> Cow<'_, str> {
        crate::escape::excerpt(self.as_bytes(), 500)
    }
}

/// Names hash and compare as their bytes, so a set of names can be searched by bytes.
impl std::borrow::Borrow<[u8]> for Name {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Two handles to one shared copy are equal without reading it, so a name shared by a
/// million nodes is compared once per distinct copy, not per byte.
impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.as_bytes(), other.as_bytes());
        std::ptr::eq(a, b) || a == b
    }
}

impl Eq for Name {}

impl std::hash::Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Orders names by their bytes; equal handles, as for [`PartialEq`], without reading them.
impl Ord for Name {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let (a, b) = (self.as_bytes(), other.as_bytes());
        if std::ptr::eq(a, b) {
            std::cmp::Ordering::Equal
        } else {
            a.cmp(b)
        }
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name::new(s.as_bytes())
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name::new(s.as_bytes())
    }
}

impl From<Vec<u8>> for Name {
    fn from(b: Vec<u8>) -> Self {
        Name::new(&b)
    }
}

impl From<&[u8]> for Name {
    fn from(b: &[u8]) -> Self {
        Name::new(b)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.as_bytes()))
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::escape::serialize_bytes(self.as_bytes(), s)
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
    fn short_names_are_inline_and_long_ones_shared() {
        assert_eq!(std::mem::size_of::<Name>(), 24);
        let short = Name::from(&[7u8; INLINE][..]);
        assert!(matches!(short.0, Repr::Inline { len: 22, .. }));
        let long = Name::from(vec![7u8; INLINE + 1]);
        let copy = long.clone();
        assert!(
            matches!((&long.0, &copy.0), (Repr::Shared(a), Repr::Shared(b)) if Arc::ptr_eq(a, b))
        );
        assert_eq!((short.as_bytes().len(), copy.as_bytes().len()), (22, 23));
        assert!(short < long && Name::default().is_empty());
        assert_eq!(Name::from("layers.0"), Name::from(b"layers.0".to_vec()));
    }

    #[test]
    fn display_escapes_control_characters() {
        let name = Name::from("evil\x1b[2Jname\x07");
        assert_eq!(name.display(), "evil\\u{1b}[2Jname\\u{7}");
    }
}
