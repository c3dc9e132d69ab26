//! The digests `model_signing` records: SHA-256, BLAKE2b-512 and BLAKE3 of a file or of one
//! shard of it, and the root digest over them all.

use sha2::Digest;

/// A resource hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashType {
    /// SHA-256 (the CPU's SHA extensions where it has them).
    Sha256,
    /// BLAKE2b with a 64-byte digest, as Python's `hashlib.blake2b()`.
    Blake2b,
    /// BLAKE3, 32 bytes, on every core.
    Blake3,
}

impl HashType {
    /// The type named by `serialization.hash_type`.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "sha256" => Some(HashType::Sha256),
            "blake2b" => Some(HashType::Blake2b),
            "blake3" => Some(HashType::Blake3),
            _ => None,
        }
    }

    /// The digest of `bytes`, hashed in blocks; `release` is given each block once hashed.
    pub fn digest(self, bytes: &[u8], release: impl Fn(&[u8])) -> Vec<u8> {
        const BLOCK: usize = crate::source::digest::BLOCK;
        fn run<D: Digest>(bytes: &[u8], release: impl Fn(&[u8])) -> Vec<u8> {
            let mut d = D::new();
            for block in bytes.chunks(BLOCK) {
                d.update(block);
                release(block);
            }
            d.finalize().to_vec()
        }
        match self {
            HashType::Sha256 => run::<sha2::Sha256>(bytes, release),
            HashType::Blake2b => run::<blake2::Blake2b512>(bytes, release),
            // BLAKE3's tree is hashed on every core (rayon), a large block at a time.
            HashType::Blake3 => {
                let mut d = blake3::Hasher::new();
                for block in bytes.chunks(8 * BLOCK) {
                    d.update_rayon(block);
                    release(block);
                }
                d.finalize().as_bytes().to_vec()
            }
        }
    }
}

/// SHA-256 over the resource digests' bytes, in the order listed.
pub fn root_digest<'a>(digests: impl Iterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut d = sha2::Sha256::new();
    for digest in digests {
        d.update(digest);
    }
    d.finalize().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_match_python() {
        // hashlib.sha256/blake2b and blake3.blake3 of b"abc", first bytes.
        let abc = |h: HashType| super::super::manifest::hex(&h.digest(b"abc", |_| ()));
        assert!(abc(HashType::Sha256).starts_with("ba7816bf"));
        assert!(abc(HashType::Blake2b).starts_with("ba80a53f981c4d0d"));
        assert_eq!(abc(HashType::Blake2b).len(), 128);
        assert!(abc(HashType::Blake3).starts_with("6437b3ac38465133"));
    }

    #[test]
    fn blocks_hash_as_one_input() {
        // Past the block size, so that the blocks are hashed in turn, each on every core.
        let mut bytes = vec![0u8; 70 << 20];
        for (i, b) in bytes.iter_mut().enumerate().step_by(4093) {
            *b = i as u8;
        }
        let released = std::sync::atomic::AtomicUsize::new(0);
        let digest = HashType::Blake3.digest(&bytes, |b| {
            released.fetch_add(b.len(), std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(digest, blake3::hash(&bytes).as_bytes());
        assert_eq!(released.into_inner(), bytes.len());
    }
}
