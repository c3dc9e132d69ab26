//! Deterministic random messages for the tests that compare the wire views with prost.

/// A small xorshift generator, so that failures reproduce.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// A number below `n` (which must not be 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// Up to `max` random bytes.
    pub(super) fn bytes(&mut self, max: usize) -> bytes::Bytes {
        (0..self.below(max + 1))
            .map(|_| self.below(256) as u8)
            .collect()
    }
}

/// Flips a few bits, cuts the end off, or splices in random bytes.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    match rng.below(3) {
        0 if !bytes.is_empty() => {
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
        }
        1 => bytes.truncate(rng.below(bytes.len() + 1)),
        _ => {
            let at = rng.below(bytes.len() + 1);
            let junk = rng.bytes(6);
            bytes.splice(at..at, junk);
        }
    }
}

/// The differential test of a wire view against prost: 4000 rounds, each calling `agree` on a
/// message from `make`, then on a mutation of it. `agree` asserts that both decoders accept
/// the bytes with the same fields, or both refuse them, and returns whether they accepted.
/// Both outcomes must be common, or the mutations test nothing.
pub(super) fn differential(
    seed: u64,
    mut make: impl FnMut(&mut Rng) -> Vec<u8>,
    agree: impl Fn(&[u8]) -> bool,
) {
    let mut rng = Rng::new(seed);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..4000 {
        let mut bytes = make(&mut rng);
        assert!(agree(&bytes), "a valid message was refused: {bytes:02x?}");
        mutate(&mut rng, &mut bytes);
        if agree(&bytes) {
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    assert!(
        accepted > 500 && refused > 500,
        "{accepted} accepted, {refused} refused"
    );
}
