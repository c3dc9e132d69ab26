//! One record of a parameter stream, read from its header without touching its data.
//!
//! A DenseTensor record is: u32 version (0), u64 LoD level count, each level as a u64 byte
//! count and its u64 offsets, u32 version (0), i32 TensorDesc length, the TensorDesc, then
//! product(dims) elements. A VOCAB record is a u64 entry count, then per entry a u64 length,
//! that many UTF-8 bytes and an i32 id. Integers are little-endian; nothing is aligned.

use super::dtypes;
use super::rules::*;
use crate::check::Rule;
use crate::formats::shared::bytes::{Short, Stop};
use crate::formats::shared::numbers::{signed32, signed64};
use crate::formats::shared::protobuf::{self, Scalar, Value};
use crate::inventory::DType;

/// A TensorDesc longer than this is corrupt: a real one is a dtype and a few dims.
const MAX_DESC: u64 = 1 << 20;

/// More LoD levels than any real tensor has: the count is corrupt.
const MAX_LOD_LEVELS: u64 = 64;

/// What is wrong with a record, at which byte; reading the stream stops there.
#[derive(Debug)]
pub struct Problem {
    pub rule: &'static Rule,
    pub at: u64,
    pub message: String,
}

fn problem(rule: &'static Rule, at: u64, message: impl Into<String>) -> Problem {
    Problem {
        rule,
        at,
        message: message.into(),
    }
}

/// A record's header, and where its data lies. The data may run past the end of the file.
#[derive(Debug)]
pub struct Record {
    /// Offset of the record's first byte.
    pub offset: u64,
    /// The element type; `None` for a VOCAB record.
    pub dtype: Option<DType>,
    /// Dimensions (all non-negative); a VOCAB record has its entry count.
    pub dims: Vec<u64>,
    /// Offset of the first data byte.
    pub data: u64,
    /// Data bytes the header claims; `None` when the size overflows 64 bits.
    pub len: Option<u64>,
    /// A LoD problem that does not stop the stream.
    pub lod_warning: Option<Problem>,
}

impl Record {
    /// One past the record's last byte; `None` on overflow.
    pub fn end(&self) -> Option<u64> {
        self.data.checked_add(self.len?)
    }
}

/// Why reading the record at `at` stopped: the record is damaged ([`Stop::Problem`]), or the
/// window ends before its header does ([`Stop::Short`]: read again with the file's bytes up
/// to the end of that read).
pub type Cut = Stop<Problem>;

/// The problem to report for the record at `at`; running past the window is running past the
/// bytes there are. `None` once reported.
pub fn problem_of(cut: Cut, at: u64) -> Option<Problem> {
    match cut {
        Stop::Problem(p) => Some(p),
        Stop::Short(short) => {
            let message = short.message(format_args!("the record at {at}"));
            Some(problem(&PARAMS_TRUNCATED, at, message))
        }
        Stop::Reported => None,
    }
}

/// Some of a file's bytes: `bytes` are the file's from offset `base`, and the file holds
/// `size` in all.
#[derive(Clone, Copy)]
pub struct Window<'b> {
    pub bytes: &'b [u8],
    pub base: u64,
    pub size: u64,
}

impl<'b> Window<'b> {
    /// All of a file's bytes.
    pub fn whole(bytes: &'b [u8]) -> Self {
        Window {
            bytes,
            base: 0,
            size: bytes.len() as u64,
        }
    }
}

/// A cursor over a window of the file that reports reads past the file's end as truncation.
struct Cursor<'b> {
    w: Window<'b>,
    pos: u64,
}

impl Cursor<'_> {
    fn take(&mut self, n: u64, what: &str) -> Result<&[u8], Cut> {
        let short = Short::of(self.pos, n, self.w.size);
        let Some(end) = self.pos.checked_add(n).filter(|&e| e <= self.w.size) else {
            return Err(problem(&PARAMS_TRUNCATED, self.pos, short.message(what)).into());
        };
        let from_base = |at: u64| usize::try_from(at.checked_sub(self.w.base)?).ok();
        let (start, stop) = (from_base(self.pos), from_base(end));
        let slice = start.zip(stop).and_then(|(a, b)| self.w.bytes.get(a..b));
        let slice = slice.ok_or(Stop::Short(short))?;
        self.pos = end;
        Ok(slice)
    }

    fn u32(&mut self, what: &str) -> Result<u32, Cut> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().unwrap_or_default()))
    }

    fn u64(&mut self, what: &str) -> Result<u64, Cut> {
        let b = self.take(8, what)?;
        let mut word = [0; 8];
        word.copy_from_slice(b);
        Ok(u64::from_le_bytes(word))
    }

    fn version(&mut self, what: &str) -> Result<(), Cut> {
        let at = self.pos;
        match self.u32(what)? {
            0 => Ok(()),
            v => Err(problem(
                &VERSION_WORD,
                at,
                format!("{what} at {at} is {v} (0x{v:08x}); Paddle reads only 0"),
            )
            .into()),
        }
    }
}

/// Reads the DenseTensor record at `at` in `w`, keeping at most `max_dims` dimensions.
pub fn dense(w: Window<'_>, at: u64, max_dims: u64) -> Result<Record, Cut> {
    let mut c = Cursor { w, pos: at };
    c.version("the record's version word")?;
    let levels_at = c.pos;
    let levels = c.u64("the LoD level count")?;
    if levels > MAX_LOD_LEVELS {
        let message = format!(
            "lod_level at {levels_at} is {levels}; more than {MAX_LOD_LEVELS} levels is corrupt"
        );
        return Err(problem(&LOD_LEVEL_INVALID, levels_at, message).into());
    }
    let mut lod = Lod::default();
    for level in 0..levels {
        let count_at = c.pos;
        let nbytes = c.u64("a LoD level's byte count")?;
        if nbytes % 8 != 0 {
            let message = format!(
                "LoD level {level} at {count_at} has {nbytes} bytes, not a multiple of 8 (u64 offsets)"
            );
            return Err(problem(&LOD_LEVEL_INVALID, count_at, message).into());
        }
        let offsets = c.take(nbytes, "a LoD level's offset list")?;
        lod.level(level, count_at, offsets);
    }
    tensor(c, at, lod, max_dims)
}

/// The rest of a record from its tensor version word on: its TensorDesc and where its data is.
fn tensor(mut c: Cursor<'_>, at: u64, lod: Lod, max_dims: u64) -> Result<Record, Cut> {
    c.version("the tensor's version word")?;
    let len_at = c.pos;
    let desc_len = signed32(c.u32("the TensorDesc length")?);
    let desc_len = u64::try_from(desc_len)
        .ok()
        .filter(|&n| n <= MAX_DESC)
        .ok_or_else(|| {
            let message = format!(
                "TensorDesc length at {len_at} is {desc_len}; it must be from 0 to {MAX_DESC}"
            );
            problem(&DESC_LENGTH_INVALID, len_at, message)
        })?;
    let desc_at = c.pos;
    let (data_type, dims) = desc(c.take(desc_len, "the TensorDesc")?, desc_at, max_dims)?;
    let Some(dtype) = dtypes::plain(data_type) else {
        let message = format!(
            "data_type is {}, not a plain element type; the record's size is unknown",
            dtypes::describe(data_type)
        );
        return Err(problem(&DTYPE_NOT_PLAIN, desc_at, message).into());
    };
    let Ok(dims) = dims
        .iter()
        .map(|&d| u64::try_from(d))
        .collect::<Result<Vec<u64>, _>>()
    else {
        let d = dims.iter().find(|&&d| d < 0).copied().unwrap_or_default();
        let message = format!("dims {dims:?} hold {d}; stored tensors have sizes of 0 or more");
        return Err(problem(&NEGATIVE_DIM, desc_at, message).into());
    };
    let lod_warning = lod.check(dims.first().copied());
    let (_, len) = crate::inventory::Tensor::sizes(&dims, Some(dtype));
    Ok(Record {
        offset: at,
        dtype: Some(dtype),
        dims,
        data: c.pos,
        len,
        lod_warning,
    })
}

/// Decodes a TensorDesc: data_type (1) and dims (2), packed or not; other fields are skipped.
pub fn desc(bytes: &[u8], at: u64, max_dims: u64) -> Result<(u64, Vec<i64>), Problem> {
    let invalid = |what: String| problem(&DESC_INVALID, at, format!("TensorDesc at {at}: {what}"));
    let mut data_type = None;
    let mut dims = Vec::new();
    for field in protobuf::fields(bytes) {
        let field = field.map_err(|e| invalid(e.to_string()))?;
        match (field.number, field.value) {
            (1, Value::Varint(v)) => data_type = Some(v),
            (2, value @ (Value::Varint(_) | Value::Bytes(_))) => {
                value
                    .scalars(Scalar::Varint, |d| dims.push(signed64(d)))
                    .map_err(|e| invalid(format!("dims: {e}")))?;
                if dims.len() as u64 > max_dims {
                    return Err(invalid(format!("more than {max_dims} dims")));
                }
            }
            (1 | 2, value) => {
                let what = format!("field {}: {} value", field.number, value.wire_type());
                return Err(invalid(what));
            }
            _ => {}
        }
    }
    let data_type = data_type.ok_or_else(|| invalid("missing required field data_type".into()))?;
    Ok((data_type, dims))
}

/// The first problem of a record's LoD levels, which Paddle does not check.
#[derive(Default)]
struct Lod {
    problem: Option<Problem>,
    /// The last offset of the last level, which must equal the first dimension.
    last: Option<(u64, u64)>,
}

impl Lod {
    fn level(&mut self, level: u64, at: u64, offsets: &[u8]) {
        let mut previous = None;
        for (i, chunk) in offsets.chunks_exact(8).enumerate() {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            let value = u64::from_le_bytes(word);
            let bad = match previous {
                None if value != 0 => Some(format!("starts at {value}, not 0")),
                Some(p) if value < p => Some(format!("decreases from {p} to {value} at entry {i}")),
                _ => None,
            };
            if let (Some(why), None) = (bad, &self.problem) {
                let message = format!("LoD level {level} at {at} {why}");
                self.problem = Some(problem(&LOD_OFFSETS_INVALID, at, message));
            }
            previous = Some(value);
        }
        self.last = previous.map(|p| (at, p));
    }

    fn check(self, dim0: Option<u64>) -> Option<Problem> {
        if self.problem.is_some() {
            return self.problem;
        }
        let (at, last) = self.last?;
        (Some(last) != dim0).then(|| {
            let rows = dim0.map_or("no first dimension".to_owned(), |d| format!("{d} rows"));
            let message =
                format!("the last LoD level at {at} ends at {last}, but the tensor has {rows}");
            problem(&LOD_OFFSETS_INVALID, at, message)
        })
    }
}

/// A SelectedRows file, as `paddle.save(..., use_binary_format=True)` writes one: u32
/// version, u64 row count, the rows as i64, i64 height, then its value tensor without a LoD
/// level count. Returns the value's record, the row count and the height.
pub fn selected_rows(w: Window<'_>, max_dims: u64) -> Result<(Record, u64, u64), Cut> {
    let mut c = Cursor { w, pos: 0 };
    c.version("the SelectedRows version word")?;
    let rows = c.u64("the row count")?;
    c.take(rows.saturating_mul(8), "the row list")?;
    let height = c.u64("the height")?;
    let record = tensor(c, 0, Lod::default(), max_dims)?;
    Ok((record, rows, height))
}

/// Reads the VOCAB record at `at` in `w`: its entries are walked to find where it ends.
pub fn vocab(w: Window<'_>, at: u64) -> Result<Record, Cut> {
    let mut c = Cursor { w, pos: at };
    let count = c.u64("the VOCAB entry count")?;
    let data = c.pos;
    for i in 0..count {
        let len = c.u64(&format!("VOCAB entry {i}'s length"))?;
        c.take(len, &format!("VOCAB entry {i}'s text"))?;
        c.take(4, &format!("VOCAB entry {i}'s id"))?;
    }
    Ok(Record {
        offset: at,
        dtype: None,
        dims: vec![count],
        data,
        len: Some(c.pos - data),
        lod_warning: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of FP32 `dims` with `lod` levels, and its data zeroed.
    fn record(lod: &[&[u64]], dims: &[u8]) -> Vec<u8> {
        let mut b = vec![0, 0, 0, 0];
        b.extend((lod.len() as u64).to_le_bytes());
        for level in lod {
            b.extend((level.len() as u64 * 8).to_le_bytes());
            level.iter().for_each(|o| b.extend(o.to_le_bytes()));
        }
        let mut desc = vec![0x08, 0x05];
        dims.iter().for_each(|&d| desc.extend([0x10, d]));
        b.extend([0, 0, 0, 0]);
        b.extend((desc.len() as u32).to_le_bytes());
        b.extend(desc);
        let n: usize = dims.iter().map(|&d| usize::from(d)).product();
        b.extend(vec![0; n * 4]);
        b
    }

    #[test]
    fn a_real_fp32_record_of_four_is_40_bytes() {
        let b = record(&[], &[4]);
        assert_eq!(b.len(), 40);
        let r = dense(Window::whole(&b), 0, 64).unwrap();
        assert_eq!((r.data, r.len, r.end()), (24, Some(16), Some(40)));
        assert_eq!(r.dims, [4]);
    }

    #[test]
    fn lod_offsets_are_checked_against_the_rows() {
        let good = dense(Window::whole(&record(&[&[0, 2, 5]], &[5, 3])), 0, 64).unwrap();
        assert!(good.lod_warning.is_none());
        let short = dense(Window::whole(&record(&[&[0, 2, 4]], &[5, 3])), 0, 64).unwrap();
        assert_eq!(short.lod_warning.unwrap().rule.code, "PD003");
        let down = dense(Window::whole(&record(&[&[0, 3, 2]], &[2, 3])), 0, 64).unwrap();
        assert!(down.lod_warning.unwrap().message.contains("decreases"));
    }

    #[test]
    fn each_damage_has_its_rule() {
        let code = |b: &[u8]| {
            let cut = dense(Window::whole(b), 0, 64).unwrap_err();
            problem_of(cut, 0).unwrap().rule.code
        };
        let good = record(&[], &[4]);
        assert_eq!(code(&good[..22]), "PD008");
        // A cut in the data is the caller's to report: the header is whole.
        assert_eq!(
            dense(Window::whole(&good[..30]), 0, 64).unwrap().end(),
            Some(40)
        );
        let mut b = good.clone();
        b[0] = 1;
        assert_eq!(code(&b), "PD001");
        let mut b = good.clone();
        b[4] = 200;
        assert_eq!(code(&b), "PD002");
        let mut b = good.clone();
        b[16..20].copy_from_slice(&(-1i32).to_le_bytes());
        assert_eq!(code(&b), "PD004");
        let mut b = good.clone();
        b[20] = 0x10; // data_type becomes a dims entry: no data_type
        assert_eq!(code(&b), "PD005");
        let mut b = good.clone();
        b[21] = 7;
        assert_eq!(code(&b), "PD006");
        let mut b = record(&[], &[]);
        b[16..20].copy_from_slice(&13u32.to_le_bytes());
        b.splice(
            22..22,
            [
                0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
            ],
        );
        assert_eq!(code(&b), "PD007");
    }

    #[test]
    fn a_window_short_of_the_header_asks_for_more_and_the_file_end_is_truncation() {
        let b = record(&[&[0, 1]], &[1]);
        let size = b.len() as u64;
        let w = Window {
            bytes: &b[..10],
            base: 0,
            size,
        };
        assert!(matches!(dense(w, 0, 64), Err(Stop::Short(s)) if s.at + s.needed > 10));
        let w = Window {
            bytes: &b[8..],
            base: 8,
            size,
        };
        assert!(
            matches!(dense(w, 0, 64), Err(Stop::Short(_))),
            "before the window"
        );
        let cut = Window::whole(&b[..30]);
        let p = problem_of(dense(cut, 0, 64).unwrap_err(), 0).unwrap();
        assert_eq!(
            p.message,
            "a LoD level's offset list needs 16 bytes at offset 20; the file has 10 left"
        );
    }

    #[test]
    fn vocab_entries_are_walked_to_the_end() {
        let mut b = 2u64.to_le_bytes().to_vec();
        for (word, id) in [("a", 1i32), ("wö", 2)] {
            b.extend((word.len() as u64).to_le_bytes());
            b.extend(word.as_bytes());
            b.extend(id.to_le_bytes());
        }
        let r = vocab(Window::whole(&b), 0).unwrap();
        assert_eq!((r.data, r.end()), (8, Some(b.len() as u64)));
        let cut = vocab(Window::whole(&b[..b.len() - 1]), 0).unwrap_err();
        assert_eq!(problem_of(cut, 0).unwrap().rule.code, "PD008");
    }
}
