//! What a remote GGUF file's reading needs: the header, the key-value pairs and the tensor
//! infos, up to where the data section starts. They are found by stepping over the structure
//! without keeping anything, over the prefix fetched so far; a prefix that ends inside it
//! doubles (or grows to the end of the value it ends in, if that is further), so that a
//! 32,000-token vocabulary costs three more requests and under a megabyte, where
//! `@huggingface/gguf` reads 2 MB chunks.

use super::file::DEFAULT_ALIGNMENT;
use super::header::MAGIC;
use super::wire::Wire;
use crate::formats::shared::bytes::Short;
use crate::inventory::ByteRange;
use crate::source::fetched::Fetched;

/// Where the structure of `bytes` ends, as far as `known` bytes of it tell.
enum Reach {
    /// The data section starts here: everything before it is needed.
    DataStart(u64),
    /// The prefix ends inside the structure, in a value that ends here.
    Beyond(u64),
    /// The structure is broken before its end: the reader stops there too.
    Broken,
}

/// The ranges to fetch of the GGUF file `bytes`, of which `fetched` are known.
pub fn fetch_plan(bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
    let len = bytes.len() as u64;
    let known = fetched.prefix().min(len);
    let prefix = bytes
        .get(..usize::try_from(known).unwrap_or(0))
        .unwrap_or_default();
    let end = match reach(prefix) {
        Reach::DataStart(start) => start,
        Reach::Broken => known,
        Reach::Beyond(_) if known >= len => known,
        Reach::Beyond(end) => known.saturating_mul(2).max(end),
    };
    vec![ByteRange::between(0, end.min(len))]
}

/// Steps over the header, pairs and infos of `prefix`.
fn reach(prefix: &[u8]) -> Reach {
    match walk(prefix) {
        Ok(Some(start)) => Reach::DataStart(start),
        Ok(None) => Reach::Broken,
        // A string's short read starts at its length, 8 bytes before what it needed.
        Err(short) if short.at.saturating_add(short.needed) > prefix.len() as u64 => {
            Reach::Beyond(short.at.saturating_add(short.needed).saturating_add(8))
        }
        Err(_) => Reach::Broken,
    }
}

/// The data section's start; `None` where the structure is broken, `Err` where the prefix
/// ends first.
fn walk(prefix: &[u8]) -> Result<Option<u64>, Short> {
    if !prefix.starts_with(MAGIC) && prefix.len() >= MAGIC.len() {
        return Ok(None);
    }
    let mut wire = Wire::new(prefix, 4, false);
    let raw = wire.u32()?;
    let big_endian = raw & 0xFFFF == 0 && raw != 0;
    let mut wire = Wire::new(prefix, 8, big_endian);
    let (tensors, pairs) = (wire.u64()?, wire.u64()?);
    let mut alignment = DEFAULT_ALIGNMENT;
    for _ in 0..pairs {
        let key = wire.string()?;
        let ty = wire.u32()?;
        if key == b"general.alignment" && ty == 4 {
            let value = wire.u32()?;
            alignment = u64::from(value);
            continue;
        }
        if !skip_value(&mut wire, ty)? {
            return Ok(None);
        }
    }
    for _ in 0..tensors {
        wire.string()?;
        let dims = wire.u32()?;
        wire.take(u64::from(dims).saturating_mul(8))?;
        wire.take(4 + 8)?;
    }
    Ok(wire.pos().checked_next_multiple_of(alignment.max(1)))
}

/// Steps over a value of type `ty`; `false` for a type GGUF does not have, or an array of
/// arrays (which llama.cpp does not read either).
fn skip_value(wire: &mut Wire<'_>, ty: u32) -> Result<bool, Short> {
    match ty {
        8 => {
            wire.string()?;
        }
        9 => {
            let item = wire.u32()?;
            let count = wire.u64()?;
            if item == 8 {
                for _ in 0..count {
                    wire.string()?;
                }
            } else {
                let Some(size) = scalar_size(item) else {
                    return Ok(false);
                };
                wire.take(count.saturating_mul(size))?;
            }
        }
        _ => {
            let Some(size) = scalar_size(ty) else {
                return Ok(false);
            };
            wire.take(size)?;
        }
    }
    Ok(true)
}

/// The size of a scalar value type.
fn scalar_size(ty: u32) -> Option<u64> {
    Some(match ty {
        0 | 1 | 7 => 1,
        2 | 3 => 2,
        4..=6 => 4,
        10..=12 => 8,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(n: u64) -> Fetched {
        let mut fetched = Fetched::default();
        fetched.insert(0, n);
        fetched
    }

    #[test]
    fn the_plan_grows_until_the_infos_end_then_asks_for_the_padding() {
        // Version 3, one tensor, two pairs: a long string and an array of strings.
        let mut file = b"GGUF".to_vec();
        file.extend(3u32.to_le_bytes());
        file.extend(1u64.to_le_bytes());
        file.extend(2u64.to_le_bytes());
        let string = |s: &[u8], out: &mut Vec<u8>| {
            out.extend((s.len() as u64).to_le_bytes());
            out.extend(s);
        };
        string(b"general.name", &mut file);
        file.extend(8u32.to_le_bytes());
        string(&[b'x'; 5000], &mut file);
        string(b"tokenizer.ggml.tokens", &mut file);
        file.extend(9u32.to_le_bytes());
        file.extend(8u32.to_le_bytes());
        file.extend(3u64.to_le_bytes());
        for token in [&b"a"[..], b"bb", b"ccc"] {
            string(token, &mut file);
        }
        string(b"w", &mut file);
        file.extend(2u32.to_le_bytes());
        file.extend([4u64.to_le_bytes(), 4u64.to_le_bytes()].concat());
        file.extend([0u32.to_le_bytes().to_vec(), 0u64.to_le_bytes().to_vec()].concat());
        let infos_end = file.len() as u64;
        file.resize(10 << 20, 0);
        let data_start = infos_end.next_multiple_of(32);
        assert_eq!(
            fetch_plan(&file, &known(4096)),
            [ByteRange::between(0, 8192)]
        );
        // A value longer than the prefix is asked for whole.
        assert_eq!(
            fetch_plan(&file, &known(100)),
            [ByteRange::between(0, 24 + 8 + 12 + 4 + 8 + 5000)]
        );
        assert_eq!(
            fetch_plan(&file, &known(infos_end)),
            [ByteRange::between(0, data_start)]
        );
        // A broken file asks for nothing more than it has.
        file[8 + 16 + 8 + 12] = 99;
        assert_eq!(
            fetch_plan(&file, &known(infos_end)),
            [ByteRange::between(0, infos_end)]
        );
    }
}
