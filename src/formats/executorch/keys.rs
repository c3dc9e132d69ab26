//! Small numbers for named-data keys, equal for equal bytes, so that keys are compared as
//! numbers. A key listed a million times is one shared handle (see
//! [`crate::formats::shared::budget::Interner`]), and each handle's bytes are hashed once:
//! comparing the keys of a file costs no more than the bytes copied out of it.

use crate::inventory::hashing::HashMap;
use crate::inventory::Name;

/// The number of each key met so far.
#[derive(Debug, Default)]
pub struct KeyIds {
    /// By handle: where its bytes are and how many. The handle is kept, so that its address
    /// cannot be reused by another name while this lives.
    handles: HashMap<(usize, usize), (u32, Name)>,
    /// By content.
    contents: HashMap<Name, u32>,
}

impl KeyIds {
    /// The number of `key`: the same for every key with the same bytes, counting from 0.
    pub fn id(&mut self, key: &Name) -> u32 {
        let handle = key.shared_at();
        if let Some((id, _)) = handle.and_then(|h| self.handles.get(&h)) {
            return *id;
        }
        let next = u32::try_from(self.contents.len()).unwrap_or(u32::MAX);
        let id = *self.contents.entry(key.clone()).or_insert(next);
        if let Some(handle) = handle {
            self.handles.insert(handle, (id, key.clone()));
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bytes_get_one_number_whatever_the_handle() {
        let mut ids = KeyIds::default();
        let long = "encoder.layers.0.self_attn.q_proj.weight";
        let (a, b) = (Name::from(long), Name::from("linear.bias"));
        let copy = Name::from(long);
        assert_eq!(ids.id(&a), 0);
        assert_eq!(ids.id(&b), 1);
        assert_eq!(ids.id(&a.clone()), 0);
        assert_eq!(ids.id(&copy), 0);
        assert_eq!(ids.id(&Name::from("other")), 2);
        // Short names are kept inline, and one address can hold two of them in turn.
        for (i, text) in ["first", "second", "first"].into_iter().enumerate() {
            let name = Name::from(text);
            assert_eq!(ids.id(&name), [3, 4, 3][i]);
        }
    }
}
