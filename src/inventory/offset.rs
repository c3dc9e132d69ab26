//! File offsets kept in eight bytes.

use serde::{Serialize, Serializer};
use std::fmt;

/// An absolute offset in a file, or none: eight bytes where `Option<u64>` takes sixteen,
/// which matters in a node held a million times. No file reaches `u64::MAX` bytes, so that
/// value stands for none.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Offset(u64);

impl Offset {
    /// No offset.
    pub const NONE: Offset = Offset(u64::MAX);

    /// The offset, if there is one.
    pub fn get(self) -> Option<u64> {
        (self != Self::NONE).then_some(self.0)
    }
}

impl Default for Offset {
    fn default() -> Self {
        Self::NONE
    }
}

impl From<Option<u64>> for Offset {
    fn from(offset: Option<u64>) -> Self {
        offset.map_or(Self::NONE, Offset)
    }
}

impl From<u64> for Offset {
    fn from(offset: u64) -> Self {
        Offset(offset)
    }
}

impl From<Offset> for Option<u64> {
    fn from(offset: Offset) -> Self {
        offset.get()
    }
}

impl fmt::Debug for Offset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

impl Serialize for Offset {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_and_some_round_trip_and_serialize_as_an_option() {
        assert_eq!(Offset::from(None).get(), None);
        assert_eq!(Offset::from(Some(0)).get(), Some(0));
        assert_eq!(Offset::from(Some(u64::MAX - 1)).get(), Some(u64::MAX - 1));
        assert_eq!(serde_json::to_string(&Offset::from(Some(7))).unwrap(), "7");
        assert_eq!(serde_json::to_string(&Offset::NONE).unwrap(), "null");
        assert_eq!(std::mem::size_of::<Offset>(), 8);
    }
}
