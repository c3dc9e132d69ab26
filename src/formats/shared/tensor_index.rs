//! A model's tensors found by name without copying a name: each is found by its hash and
//! then compared with the inventory's.

use crate::inventory::hashing::Seeded;
use crate::inventory::{Tensor, TensorId};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// A hasher for keys that are hashes already: it passes the `u64` through.
#[derive(Default)]
pub struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed with it; fold anything else in rather than lose it.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A set of hashes.
pub type HashSet64 = HashSet<u64, BuildHasherDefault<Prehashed>>;

/// The tensors of an inventory by name, the first of each name.
#[derive(Default)]
pub struct TensorIndex {
    hasher: Seeded,
    first: HashMap<u64, TensorId, BuildHasherDefault<Prehashed>>,
}

impl TensorIndex {
    /// The index of `tensors`.
    pub fn of(tensors: &[Tensor]) -> Self {
        let hasher = Seeded::default();
        let mut first = HashMap::with_capacity_and_hasher(tensors.len(), Default::default());
        for (id, tensor) in tensors.iter().enumerate() {
            first
                .entry(hasher.hash_one(tensor.name.as_bytes()))
                .or_insert(id);
        }
        TensorIndex { hasher, first }
    }

    /// The tensor named `name` in `tensors` (those the index was made of).
    pub fn find(&self, tensors: &[Tensor], name: &[u8]) -> Option<TensorId> {
        let id = *self.first.get(&self.hash(name))?;
        (tensors.get(id)?.name.as_bytes() == name).then_some(id)
    }

    /// Whether a tensor is named `name`, to one chance in 2^64.
    pub fn holds(&self, name: &[u8]) -> bool {
        self.first.contains_key(&self.hash(name))
    }

    /// The hash the index keys `name` by.
    pub fn hash(&self, name: &[u8]) -> u64 {
        self.hasher.hash_one(name)
    }
}
