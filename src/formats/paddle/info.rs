//! `.pdiparams.info`: the pickled dict that legacy `paddle.jit.save` writes beside the
//! parameters, from variable names to `{structured_name, stop_gradient, trainable}`.
//!
//! Only the few opcodes a protocol 2 (or 4) pickle of a dict of strings and booleans uses are
//! read; anything else ends the reading, and nothing is ever executed or imported.

use super::program::Builder;
use crate::inventory::MetadataEntry;
use crate::source::ModelFile;
use std::collections::HashMap;
use std::path::Path;

/// Larger files are not read: a real one is a few hundred bytes per variable.
const MAX_FILE: u64 = 16 << 20;

/// Budget entries a name pair takes.
const PAIR_ENTRIES: u64 = 2;

/// Adds the structured names of `info`, the `.pdiparams.info` beside a program, to the
/// metadata as variable = structured name, if it is a regular file (not a symlink) of a
/// plausible size holding a pickle of that shape. The file is optional, so nothing is
/// reported when it is absent or of another shape.
pub fn read(info: &Path, b: &mut Builder<'_>) {
    let plain = std::fs::symlink_metadata(info)
        .is_ok_and(|m| m.file_type().is_file() && m.len() <= MAX_FILE);
    let Some(file) = plain.then(|| ModelFile::open(info).ok()).flatten() else {
        return;
    };
    let Some(names) = structured_names(file.bytes()) else {
        return;
    };
    for (var, name) in names {
        if !b.spend(PAIR_ENTRIES, None) {
            return;
        }
        b.inv
            .metadata
            .push(MetadataEntry::new(var.as_str(), name.as_str()));
    }
}

/// Values the reader builds. Dicts are never memoised, so a memo reference cannot copy one.
#[derive(Clone)]
enum Value {
    Str(String),
    Scalar,
    Dict(Vec<(Value, Value)>),
    Mark,
}

/// Opcodes the reader runs at most: far above a real model's variables.
const MAX_OPS: usize = 1 << 20;

/// Bytes of text the reader keeps at most, counting each copy a memo reference makes.
const MAX_TEXT: usize = 64 << 20;

/// The `(variable, structured name)` pairs of the pickle in `bytes`, in file order; `None`
/// if it is not a pickle of that shape.
pub fn structured_names(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    let mut stack: Vec<Value> = Vec::new();
    let mut memo: HashMap<u32, Value> = HashMap::new();
    let mut pos = 0;
    let (mut ops, mut kept) = (0usize, 0usize);
    let take = |n: usize, pos: &mut usize| -> Option<&[u8]> {
        let part = bytes.get(*pos..pos.checked_add(n)?)?;
        *pos += n;
        Some(part)
    };
    loop {
        ops += 1;
        if ops > MAX_OPS || kept > MAX_TEXT {
            return None;
        }
        let op = *take(1, &mut pos)?.first()?;
        match op {
            0x80 => {
                take(1, &mut pos)?;
            }
            0x95 => {
                take(8, &mut pos)?; // FRAME: a length hint
            }
            b'}' => stack.push(Value::Dict(Vec::new())),
            b'(' => stack.push(Value::Mark),
            b'X' => {
                let len = u32::from_le_bytes(take(4, &mut pos)?.try_into().ok()?) as usize;
                kept += len;
                stack.push(Value::Str(text(take(len, &mut pos)?)?));
            }
            0x8c => {
                let len = usize::from(*take(1, &mut pos)?.first()?);
                kept += len;
                stack.push(Value::Str(text(take(len, &mut pos)?)?));
            }
            0x88 | 0x89 | b'N' => stack.push(Value::Scalar),
            b'K' | b'M' | b'J' => {
                let width = match op {
                    b'K' => 1,
                    b'M' => 2,
                    _ => 4,
                };
                take(width, &mut pos)?;
                stack.push(Value::Scalar);
            }
            b'q' | b'r' | 0x94 => {
                let key = match op {
                    b'q' => u32::from(*take(1, &mut pos)?.first()?),
                    b'r' => u32::from_le_bytes(take(4, &mut pos)?.try_into().ok()?),
                    _ => u32::try_from(memo.len()).ok()?,
                };
                if let Some(v @ (Value::Str(_) | Value::Scalar)) = stack.last() {
                    memo.insert(key, v.clone());
                }
            }
            b'h' | b'j' => {
                let key = match op {
                    b'h' => u32::from(*take(1, &mut pos)?.first()?),
                    _ => u32::from_le_bytes(take(4, &mut pos)?.try_into().ok()?),
                };
                let value = memo.get(&key)?.clone();
                if let Value::Str(s) = &value {
                    kept += s.len();
                }
                stack.push(value);
            }
            b's' => {
                let value = stack.pop()?;
                let key = stack.pop()?;
                let Some(Value::Dict(d)) = stack.last_mut() else {
                    return None;
                };
                d.push((key, value));
            }
            b'u' => {
                let mark = stack.iter().rposition(|v| matches!(v, Value::Mark))?;
                let items: Vec<Value> = stack.drain(mark..).skip(1).collect();
                let Some(Value::Dict(d)) = stack.last_mut() else {
                    return None;
                };
                let mut items = items.into_iter();
                while let (Some(k), Some(v)) = (items.next(), items.next()) {
                    d.push((k, v));
                }
            }
            b'.' => break,
            _ => return None,
        }
    }
    let Some(Value::Dict(top)) = stack.pop() else {
        return None;
    };
    let names = top.into_iter().filter_map(|(var, fields)| {
        let (Value::Str(var), Value::Dict(fields)) = (var, fields) else {
            return None;
        };
        fields.into_iter().find_map(|(k, v)| match (k, v) {
            (Value::Str(k), Value::Str(name)) if k == "structured_name" => {
                Some((var.clone(), name))
            }
            _ => None,
        })
    });
    Some(names.collect())
}

fn text(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes).ok().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_dict_and_other_pickles_give_none() {
        // pickle.dumps({"a": {"structured_name": "fc.w", "trainable": True}}, protocol=2)
        let mut b = b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01}q\x02(X\x0f\x00\x00\x00".to_vec();
        b.extend(b"structured_nameq\x03X\x04\x00\x00\x00fc.wq\x04X\x09\x00\x00\x00");
        b.extend(b"trainableq\x05\x88us.");
        assert_eq!(
            structured_names(&b),
            Some(vec![("a".into(), "fc.w".into())])
        );
        for len in 0..b.len() - 1 {
            assert_eq!(structured_names(&b[..len]), None, "cut to {len}");
        }
        // GLOBAL would import: not read.
        assert_eq!(structured_names(b"\x80\x02cos\nsystem\n."), None);
    }
}
