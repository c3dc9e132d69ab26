//! The number conversions the formats define, each written once: a file's bits reinterpreted
//! as a signed number, a protobuf `int32`'s low bits, a double narrowed to a float. Reader code
//! calls these instead of casting with `as`, which the lints on `formats/` forbid.

/// A `u64` read from a file as the two's-complement `i64` it encodes (protobuf `int64`,
/// GGUF `INT64`).
pub fn signed64(bits: u64) -> i64 {
    i64::from_ne_bytes(bits.to_ne_bytes())
}

/// An `i64`'s two's-complement bits, as a key that keeps negative numbers apart.
pub fn bits64(value: i64) -> u64 {
    u64::from_ne_bytes(value.to_ne_bytes())
}

/// A `u32` read from a file as the two's-complement `i32` it encodes.
pub fn signed32(bits: u32) -> i32 {
    i32::from_ne_bytes(bits.to_ne_bytes())
}

/// A `u16` read from a file as the two's-complement `i16` it encodes.
pub fn signed16(bits: u16) -> i16 {
    i16::from_ne_bytes(bits.to_ne_bytes())
}

/// A byte read from a file as the two's-complement `i8` it encodes.
pub fn signed8(bits: u8) -> i8 {
    i8::from_ne_bytes(bits.to_ne_bytes())
}

/// A varint decoded as protobuf decodes an `int32` or enum field: its low 32 bits, two's
/// complement (a negative `int32` is written as ten bytes of its sign-extended `int64`).
pub fn protobuf_int32(varint: u64) -> i32 {
    signed32(low32(varint))
}

/// The low 32 bits of a `u64`, such as a protobuf `fixed32` scalar passed on as a `u64`.
pub fn low32(bits: u64) -> u32 {
    let [a, b, c, d, ..] = bits.to_le_bytes();
    u32::from_le_bytes([a, b, c, d])
}

/// The `f32` nearest a file's `f64`, as the runtimes narrow double attributes.
#[expect(
    clippy::cast_possible_truncation,
    reason = "narrowing to f32 is the conversion wanted"
)]
pub fn narrow(value: f64) -> f32 {
    value as f32
}

/// A count the budget bounds (at most 4,194,304 entries) as a 32-bit id; `u32::MAX` if it
/// were ever larger, which the budget rules out.
pub fn id32(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_the_formats() {
        assert_eq!(signed64(u64::MAX), -1);
        assert_eq!(signed64(bits64(-5)), -5);
        assert_eq!(signed32(0x8000_0000), i32::MIN);
        assert_eq!(signed16(0xFFFE), -2);
        assert_eq!(signed8(0x80), -128);
        assert_eq!(protobuf_int32(u64::MAX), -1);
        assert_eq!(protobuf_int32(0x1_0000_0005), 5);
        assert_eq!(narrow(0.5), 0.5f32);
        assert_eq!(id32(7), 7);
        assert_eq!(id32(usize::MAX), u32::MAX);
    }
}
