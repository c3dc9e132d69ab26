//! `.pdiparams.info`: the pickled dict that legacy `paddle.jit.save` writes beside the
//! parameters, from variable names to `{structured_name, stop_gradient, trainable}`.
//!
//! Only the few opcodes a protocol 2 (or 4) pickle of a dict of strings and booleans uses are
//! read; anything else ends the reading, and nothing is ever executed or imported. Each
//! string is copied once, where the file holds it: the memo and the dicts hold shared
//! handles, and every opcode, memo entry and dict item pays the budget.

use super::program::Builder;
use super::rules::INFO_INVALID;
use crate::check::{Findings, Place};
use crate::formats::shared::budget::Budget;
use crate::formats::shared::bytes::{head, Cursor};
use crate::inventory::{FileId, MetadataEntry, Name};
use std::collections::HashMap;

/// Budget entries a name pair takes in the metadata.
const PAIR_ENTRIES: u64 = 2;

/// Opcodes read at most: far above a real model's variables (about 12 per variable), and a
/// bound on the stack, which grows by at most one value per opcode.
const MAX_OPS: u64 = 1 << 20;

/// The marker a `.pdiparams.info` holds near its start: the key of every entry.
const MARKER: &[u8] = b"structured_name";

/// Whether `bytes` look like a `.pdiparams.info`: a pickle of protocol 2 or later whose first
/// object is a dict, with `structured_name` in its first 4 KiB.
pub fn detect(bytes: &[u8]) -> bool {
    let head = head(bytes, 4096);
    let dict_at = match head {
        [0x80, 2..=5, 0x95, ..] => 11, // PROTO, FRAME and its length
        [0x80, 2..=5, ..] => 2,
        _ => return false,
    };
    head.get(dict_at) == Some(&b'}') && head.windows(MARKER.len()).any(|w| w == MARKER)
}

/// Adds the structured names of the `.pdiparams.info` in `bytes` (file `file` of the
/// inventory) to the metadata as variable = structured name; reports a file it cannot read.
pub fn read(bytes: &[u8], file: FileId, b: &mut Builder<'_>) {
    let names = match structured_names(bytes, file, b.budget, b.out) {
        Ok(names) => names,
        Err(Stopped::Budget) => return,
        Err(Stopped::Invalid(at, why)) => {
            let message = format!(
                "{why} at byte {at}; a .pdiparams.info is a pickled dict of variable names to \
dicts of strings and booleans"
            );
            return b
                .out
                .add(&INFO_INVALID, Place::at(at).in_file(file), message);
        }
    };
    for (key, value) in names {
        if !b.spend(PAIR_ENTRIES, None) {
            return;
        }
        b.inv.metadata.push(MetadataEntry::new(key, value));
    }
}

/// Values the reader builds. Dicts are never memoised, so a memo reference cannot copy one.
#[derive(Clone)]
enum Value {
    Str(Name),
    Scalar,
    Dict(Vec<(Value, Value)>),
    Mark,
}

/// Why the reading ended before the pickle's STOP.
#[derive(Debug)]
enum Stopped {
    /// At this byte, for this reason.
    Invalid(u64, String),
    /// The budget ran out (reported already).
    Budget,
}

/// The `(variable, structured name)` pairs of the pickle in `bytes`, in file order.
fn structured_names(
    bytes: &[u8],
    file: FileId,
    budget: &mut Budget,
    out: &mut Findings,
) -> Result<Vec<(Name, Name)>, Stopped> {
    let mut stack: Vec<Value> = Vec::new();
    let mut memo: HashMap<u32, Value> = HashMap::new();
    let mut c = Cursor::new(bytes, 0);
    for ops in 0.. {
        let at = c.pos();
        let cut = || Stopped::Invalid(at, "the pickle ends inside an opcode".to_owned());
        let shape = |what: &str| Stopped::Invalid(at, what.to_owned());
        let place = Place::at(at).in_file(file);
        if ops >= MAX_OPS {
            let why = format!("more than {MAX_OPS} opcodes");
            return Err(Stopped::Invalid(at, why));
        }
        if !budget.spend(1, place, out) {
            return Err(Stopped::Budget);
        }
        let op = c.u8().ok_or_else(cut)?;
        match op {
            0x80 => drop(c.u8().ok_or_else(cut)?),
            0x95 => drop(c.take(8).ok_or_else(cut)?), // FRAME: a length hint
            b'}' => stack.push(Value::Dict(Vec::new())),
            b'(' => stack.push(Value::Mark),
            b'X' | 0x8c => {
                let len = match op {
                    b'X' => c.le_u32().map(u64::from),
                    _ => c.u8().map(u64::from),
                };
                let text = c.take(len.ok_or_else(cut)?).ok_or_else(cut)?;
                if std::str::from_utf8(text).is_err() {
                    return Err(shape("a string that is not UTF-8"));
                }
                if !budget.copy(text.len() as u64, place, out) {
                    return Err(Stopped::Budget);
                }
                stack.push(Value::Str(Name::from(text.to_vec())));
            }
            0x88 | 0x89 | b'N' => stack.push(Value::Scalar),
            b'K' | b'M' | b'J' => {
                let width = match op {
                    b'K' => 1,
                    b'M' => 2,
                    _ => 4,
                };
                c.take(width).ok_or_else(cut)?;
                stack.push(Value::Scalar);
            }
            b'q' | b'r' | 0x94 => {
                let key = match op {
                    b'q' => c.u8().map(u32::from).ok_or_else(cut)?,
                    b'r' => c.le_u32().ok_or_else(cut)?,
                    _ => u32::try_from(memo.len()).map_err(|_| shape("a full memo"))?,
                };
                if let Some(v @ (Value::Str(_) | Value::Scalar)) = stack.last() {
                    memo.insert(key, v.clone());
                }
            }
            b'h' | b'j' => {
                let key = match op {
                    b'h' => c.u8().map(u32::from).ok_or_else(cut)?,
                    _ => c.le_u32().ok_or_else(cut)?,
                };
                let value = memo
                    .get(&key)
                    .ok_or_else(|| shape("a memo key never stored"))?;
                stack.push(value.clone());
            }
            b's' => {
                let (Some(value), Some(key)) = (stack.pop(), stack.pop()) else {
                    return Err(shape("SETITEM on too short a stack"));
                };
                let Some(Value::Dict(d)) = stack.last_mut() else {
                    return Err(shape("SETITEM on something other than a dict"));
                };
                d.push((key, value));
            }
            b'u' => {
                let mark = stack
                    .iter()
                    .rposition(|v| matches!(v, Value::Mark))
                    .ok_or_else(|| shape("SETITEMS without a mark"))?;
                let items: Vec<Value> = stack.drain(mark..).skip(1).collect();
                let Some(Value::Dict(d)) = stack.last_mut() else {
                    return Err(shape("SETITEMS on something other than a dict"));
                };
                let mut items = items.into_iter();
                while let (Some(k), Some(v)) = (items.next(), items.next()) {
                    d.push((k, v));
                }
            }
            b'.' => break,
            other => {
                let why = format!(
                    "opcode 0x{other:02x}, which a dict of strings and booleans does not use"
                );
                return Err(Stopped::Invalid(at, why));
            }
        }
    }
    let Some(Value::Dict(top)) = stack.pop() else {
        return Err(Stopped::Invalid(
            c.pos(),
            "the pickle is not a dict".to_owned(),
        ));
    };
    let names = top.into_iter().filter_map(|(var, fields)| {
        let (Value::Str(var), Value::Dict(fields)) = (var, fields) else {
            return None;
        };
        fields.into_iter().find_map(|(k, v)| match (k, v) {
            (Value::Str(k), Value::Str(name)) if k.as_bytes() == b"structured_name" => {
                Some((var.clone(), name))
            }
            _ => None,
        })
    });
    Ok(names.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(bytes: &[u8]) -> Option<Vec<(String, String)>> {
        let mut out = Findings::default();
        let found = structured_names(bytes, 0, &mut Budget::default(), &mut out).ok()?;
        Some(
            found
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn names_come_from_the_dict_and_other_pickles_give_none() {
        // pickle.dumps({"a": {"structured_name": "fc.w", "trainable": True}}, protocol=2)
        let mut b = b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01}q\x02(X\x0f\x00\x00\x00".to_vec();
        b.extend(b"structured_nameq\x03X\x04\x00\x00\x00fc.wq\x04X\x09\x00\x00\x00");
        b.extend(b"trainableq\x05\x88us.");
        assert!(detect(&b));
        assert_eq!(names(&b), Some(vec![("a".into(), "fc.w".into())]));
        for len in 0..b.len() - 1 {
            assert_eq!(names(&b[..len]), None, "cut to {len}");
        }
        // GLOBAL would import: not read.
        assert_eq!(names(b"\x80\x02cos\nsystem\n."), None);
        assert!(!detect(b"\x80\x02cos\nsystem\n."));
    }

    #[test]
    fn memo_references_share_one_copy_and_pay_an_entry() {
        // One 1 KiB string, memoised and fetched 100 times.
        let mut b = b"\x80\x02(X\x00\x04\x00\x00".to_vec();
        b.extend([b'x'; 1024]);
        b.extend(b"q\x00");
        for _ in 0..100 {
            b.extend(b"h\x00\x94");
        }
        b.extend(b".");
        let mut out = Findings::default();
        let mut budget = Budget::for_file(0);
        let before = budget.left();
        let result = structured_names(&b, 0, &mut budget, &mut out);
        assert!(matches!(result, Err(Stopped::Invalid(..))), "not a dict");
        assert_eq!(before - budget.left(), 205, "each opcode pays");
        // The string was copied once.
        let extra = crate::formats::shared::budget::EXTRA_BYTES;
        assert!(budget.copy(extra - 1024, Place::FILE, &mut out));
        assert!(!budget.copy(1, Place::FILE, &mut out));
    }
}
