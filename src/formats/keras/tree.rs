//! A JSON document as a tree, built from the shared pull parser without recursion: one entry
//! per value, each paid from the model's budget, with its key, its offset and links to its
//! first child and next sibling. Strings stay slices of the document.

use crate::check::Place;
use crate::formats::shared::context::Context;
use crate::formats::shared::json::{Error, Number, Parser, Str, Token};

/// Containers nested deeper than this are refused (Keras' own configs nest a few dozen).
pub const MAX_DEPTH: usize = 256;

/// No node.
const NONE: u32 = u32::MAX;

/// What a value is.
#[derive(Debug, Clone, Copy)]
pub enum Kind<'a> {
    Object,
    Array,
    Str(Str<'a>),
    Number(Number<'a>),
    Bool,
    Null,
}

/// One value.
#[derive(Debug, Clone, Copy)]
pub struct Value<'a> {
    /// Its key, in an object.
    pub key: Option<Str<'a>>,
    /// What it is.
    pub kind: Kind<'a>,
    /// Its offset in the document.
    pub at: u64,
    first: u32,
    next: u32,
}

/// A document's values, the root first.
#[derive(Debug, Default)]
pub struct Tree<'a> {
    values: Vec<Value<'a>>,
}

/// Index of a value in its [`Tree`].
pub type Id = u32;

impl<'a> Tree<'a> {
    /// The tree of `text`, paying an entry per value (at `place`); the error where the text
    /// stops being JSON. A budget that runs out ends the tree early (the budget reports it).
    pub fn parse(cx: &mut Context<'_>, text: &'a [u8], place: Place) -> Result<Self, Error> {
        let mut parser = Parser::new(text, MAX_DEPTH);
        let mut tree = Tree::default();
        // Open containers, each with its last child so far.
        let mut open: Vec<(u32, u32)> = Vec::new();
        let mut key = None;
        while let Some((at, token)) = parser.token()? {
            let kind = match token {
                Token::Key(k) => {
                    key = Some(k);
                    continue;
                }
                Token::End => {
                    open.pop();
                    continue;
                }
                Token::Object => Kind::Object,
                Token::Array => Kind::Array,
                Token::Str(s) => Kind::Str(s),
                Token::Number(n) => Kind::Number(n),
                Token::Bool(_) => Kind::Bool,
                Token::Null => Kind::Null,
            };
            if !cx.spend(1, place) {
                return Ok(tree);
            }
            let id = u32::try_from(tree.values.len()).unwrap_or(NONE);
            tree.values.push(Value {
                key: key.take(),
                kind,
                at,
                first: NONE,
                next: NONE,
            });
            if let Some((parent, last)) = open.last_mut() {
                let link = match *last {
                    NONE => tree.values.get_mut(*parent as usize).map(|v| &mut v.first),
                    prev => tree.values.get_mut(prev as usize).map(|v| &mut v.next),
                };
                if let Some(link) = link {
                    *link = id;
                }
                *last = id;
            }
            if matches!(kind, Kind::Object | Kind::Array) {
                open.push((id, NONE));
            }
        }
        Ok(tree)
    }

    /// The value `id`.
    pub fn get(&self, id: Id) -> Option<&Value<'a>> {
        self.values.get(id as usize)
    }

    /// The root, if the document has a value.
    pub fn root(&self) -> Option<Id> {
        (!self.values.is_empty()).then_some(0)
    }

    /// The children of `id`, in order.
    pub fn children(&self, id: Id) -> Children<'_, 'a> {
        Children {
            tree: self,
            next: self.get(id).map_or(NONE, |v| v.first),
        }
    }

    /// The member `key` of the object `id`: the last of that name, as Python's `json` keeps.
    pub fn member(&self, id: Id, key: &str) -> Option<Id> {
        let object = matches!(self.get(id)?.kind, Kind::Object);
        let keyed = |c: &Id| self.get(*c).and_then(|v| v.key).is_some_and(|k| k.is(key));
        self.children(id).filter(keyed).last().filter(|_| object)
    }

    /// The string member `key` of the object `id`.
    pub fn string(&self, id: Id, key: &str) -> Option<Str<'a>> {
        match self.get(self.member(id, key)?)?.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The children of a value.
pub struct Children<'t, 'a> {
    tree: &'t Tree<'a>,
    next: u32,
}

impl Iterator for Children<'_, '_> {
    type Item = Id;

    fn next(&mut self) -> Option<Id> {
        let id = self.next;
        self.next = self.tree.get(id)?.next;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Findings;
    use crate::source::ModelFile;

    #[test]
    fn members_children_and_last_duplicates() {
        let text = br#"{"a": [1, {"b": "x"}], "c": "y", "c": "z"}"#;
        let file = ModelFile::in_memory("t.json", text.to_vec());
        let mut out = Findings::default();
        let mut cx = Context::new(&crate::formats::keras::Keras, &file, &mut out);
        let tree = Tree::parse(&mut cx, text, Place::FILE).unwrap();
        let root = tree.root().unwrap();
        assert_eq!(tree.children(root).count(), 3);
        assert_eq!(tree.string(root, "c").unwrap().raw(), "z");
        let a = tree.member(root, "a").unwrap();
        let items: Vec<Id> = tree.children(a).collect();
        assert_eq!(items.len(), 2);
        assert_eq!(tree.string(items[1], "b").unwrap().raw(), "x");
        assert!(tree.member(a, "b").is_none());
        assert!(Tree::parse(&mut cx, b"{\"a\": [}", Place::FILE).is_err());
    }
}
