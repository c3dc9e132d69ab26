//! The one hasher of maps and sets keyed by what a file holds (names, keys, offsets, hashes
//! of its bytes): foldhash, seeded at random per process, so a file (which cannot watch the
//! process) cannot choose keys that collide; on the short keys rtenx hashes it is several
//! times faster than SipHash.

/// The seeded hasher.
pub type Seeded = foldhash::fast::RandomState;

/// A map with the seeded hasher.
pub type HashMap<K, V> = std::collections::HashMap<K, V, Seeded>;

/// A set with the seeded hasher.
pub type HashSet<T> = std::collections::HashSet<T, Seeded>;
