//! Operator and attribute names: static text from a reader's tables, or text from the file
//! shared by every node that names it.

use serde::{Serialize, Serializer};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An operator type or attribute name.
///
/// Known names are the reader's own `'static` strings; a name read from the file is made
/// once and shared, so a thousand nodes calling one operator hold a thousand handles to one
/// string. The text is kept exactly as read (lossily decoded only if it is not UTF-8):
/// escaping is for output, never for the inventory.
#[derive(Clone)]
pub enum Symbol {
    /// A name from the reader's own tables.
    Static(&'static str),
    /// A name read from the file.
    Shared(Arc<str>),
}

impl Default for Symbol {
    fn default() -> Self {
        Symbol::Static("")
    }
}

impl Deref for Symbol {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Symbol::Static(s) => s,
            Symbol::Shared(s) => s,
        }
    }
}

impl AsRef<str> for Symbol {
    fn as_ref(&self) -> &str {
        self
    }
}

impl From<&'static str> for Symbol {
    fn from(s: &'static str) -> Self {
        Symbol::Static(s)
    }
}

impl From<String> for Symbol {
    fn from(s: String) -> Self {
        Symbol::Shared(s.into())
    }
}

impl PartialEq for Symbol {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Symbol {}

impl PartialEq<str> for Symbol {
    fn eq(&self, other: &str) -> bool {
        &**self == other
    }
}

impl PartialEq<&str> for Symbol {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

impl std::hash::Hash for Symbol {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Symbol {
    /// The text as stored; untrusted text is escaped by whoever prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self)
    }
}

impl Serialize for Symbol {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_string_and_keep_the_bytes() {
        let a = Symbol::Shared("aten::add\x1b".into());
        let b = a.clone();
        assert!(matches!((&a, &b), (Symbol::Shared(x), Symbol::Shared(y)) if Arc::ptr_eq(x, y)));
        assert_eq!(&*b, "aten::add\x1b");
        assert_eq!(serde_json::to_string(&b).unwrap(), r#""aten::add\u001b""#);
        assert_eq!(Symbol::from("Conv"), Symbol::from("Conv".to_owned()));
    }
}
