//! Reading the value tree: what a value is, as readers ask it (a string, an int, a call of a
//! known global), for the machine while it runs and for a finished [`super::Pickle`] alike.

use super::names::{resolve, Resolved};
use super::value::{Call, Id, Text, Value};
use super::{Import, Pickle};
use crate::formats::shared::bytes;

/// A value tree and its imports.
pub trait Tree {
    /// The value `id`.
    fn value(&self, id: Id) -> Option<&Value>;
    /// The bytes of `text`.
    fn text<'t>(&'t self, text: &'t Text) -> &'t [u8];
    /// The imports.
    fn imports(&self) -> &[Import];

    /// The bytes of a `str` value.
    fn str(&self, id: Id) -> Option<&[u8]> {
        match self.value(id)? {
            Value::Str(text) => Some(self.text(text)),
            _ => None,
        }
    }

    /// An int or bool value.
    fn int(&self, id: Id) -> Option<i64> {
        match self.value(id)? {
            Value::Int(v) => Some(*v),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// The items of a tuple or list.
    fn items(&self, id: Id) -> Option<&[Id]> {
        self.value(id)?.items()
    }

    /// A tuple or list of ints.
    fn ints(&self, id: Id) -> Option<Vec<i64>> {
        self.items(id)?.iter().map(|&i| self.int(i)).collect()
    }

    /// The import a global value names.
    fn import_of(&self, id: Id) -> Option<&Import> {
        match self.value(id)? {
            Value::Global(i) => self.imports().get(*i),
            _ => None,
        }
    }

    /// `module.name` as the file spells it, or `extension code N`.
    fn spelled(&self, import: &Import) -> Vec<u8> {
        match import.ext {
            Some(code) => format!("extension code {code}").into_bytes(),
            None => [self.text(&import.module), b".", self.text(&import.name)].concat(),
        }
    }

    /// The import resolved as `find_class` resolves it; `None` for an extension code.
    fn resolution(&self, import: &Import) -> Option<Resolved> {
        if import.ext.is_some() {
            return None;
        }
        let module = String::from_utf8_lossy(self.text(&import.module));
        let name = String::from_utf8_lossy(self.text(&import.name));
        Some(resolve(&module, &name, import.proto))
    }

    /// `module.name` as Python 3 resolves it; empty for an extension code.
    fn resolved(&self, import: &Import) -> String {
        self.resolution(import).map(|r| r.path).unwrap_or_default()
    }

    /// The resolved global a value names, if it is one.
    fn global(&self, id: Id) -> Option<String> {
        self.import_of(id).map(|i| self.resolved(i))
    }

    /// The call `id` is, if its callable is a global resolving to one of `paths`, with that
    /// path.
    fn call_of(&self, id: Id, paths: &[&str]) -> Option<(&Call, String)> {
        let Value::Call(call) = self.value(id)? else {
            return None;
        };
        let path = self.global(call.func)?;
        paths.contains(&path.as_str()).then_some((call, path))
    }

    /// The value stored under the string key `key` of a dict.
    fn get(&self, dict: Id, key: &[u8]) -> Option<Id> {
        let Value::Dict(pairs) = self.value(dict)? else {
            return None;
        };
        pairs
            .iter()
            .find_map(|&(k, v)| (self.str(k) == Some(key)).then_some(v))
    }
}

impl Tree for Pickle<'_> {
    fn value(&self, id: Id) -> Option<&Value> {
        self.values.get(id as usize)
    }

    fn text<'t>(&'t self, text: &'t Text) -> &'t [u8] {
        match text {
            Text::At(span) => bytes::range(self.bytes, span.start, span.len).unwrap_or_default(),
            Text::Decoded(name) => name.as_bytes(),
        }
    }

    fn imports(&self) -> &[Import] {
        &self.imports
    }
}
