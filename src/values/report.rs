//! `check --values`: every floating-point and quantised tensor read ([`scan`]), and what
//! they hold reported as the VX findings.

use super::blocks;
use super::float::FloatType;
use super::rules::{
    ALL_ZERO_TENSOR, BAD_BLOCK_SCALE, CONSTANT_TENSOR, NAN_OR_INF, SATURATED_VALUES,
    SUBNORMAL_VALUES, VALUES_NOT_READ, ZERO_TAIL,
};
use super::scan::{scan, Kind, Options, Read, Scan};
use super::source::Files;
use crate::check::{Findings, Item, Place};
use crate::formats::ValueCheck;
use crate::inventory::{Inventory, Scales, Tensor, TensorId};
use crate::source::ModelFile;

/// Reads the values of every floating-point and quantised tensor of `inv`, whose model file
/// is `model`, on every core, and adds the VX findings to `out`.
pub fn check(
    inv: &Inventory,
    model: &ModelFile,
    check: &ValueCheck,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
    out: &mut Findings,
) {
    let files = Files::open(inv, Some(model));
    let options = Options {
        moments: false,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        cancel: check.cancel,
        progress,
    };
    let scan = scan(&files, &options);
    if !scan.cancelled {
        report(&files, &scan, check.zero_tail, out);
    }
}

/// The reason [`Files::range`] gives for a tensor whose data is outside its file, which RX006
/// reports.
const OUTSIDE: &str = "data outside its file";

fn report(files: &Files, scan: &Scan, zero_tail: u64, out: &mut Findings) {
    let inv = files.inv;
    for id in 0..inv.tensors.len() {
        if let Some(Err(reason)) = scan.of(id).filter(|r| r.err() != Some(OUTSIDE)) {
            let message = format!("its values were not read: {reason}");
            out.add(
                &VALUES_NOT_READ,
                Place::on(Item::Tensor { tensor: id }),
                message,
            );
        }
    }
    let tensors = scan.tensors_of();
    let tails = tails(scan, zero_tail);
    for ((read, ids), tail) in scan.reads.iter().zip(&tensors).zip(tails) {
        let at = |offset: u64, id: TensorId| {
            Place::at(offset)
                .in_file(read.data.file)
                .item(Item::Tensor { tensor: id })
        };
        for &id in ids {
            let Some(t) = inv.tensors.get(id) else {
                continue;
            };
            match read.kind {
                Kind::Float(float, parts) => floats(files, read, float, parts, t, &at, id, out),
                Kind::Blocks(block) => {
                    if let Some(b) = read.tally.first_nonfinite {
                        let (offset, message) = bad_block(files, read, block, b);
                        out.add(&BAD_BLOCK_SCALE, at(offset, id), message);
                    }
                    let zero = read.tally.zeros == read.tally.count && block.scales != Scales::None;
                    if weight(t) && zero {
                        let message = format!(
                            "every scale of its {} {} blocks is zero: all {} elements are zero",
                            read.tally.count,
                            block.name,
                            read.tally.count * block.elements
                        );
                        out.add(&ALL_ZERO_TENSOR, at(read.data.offset, id), message);
                    }
                }
                Kind::Other(..) => {}
            }
        }
        if let (Some(tail), Some(&id)) = (tail, ids.first()) {
            let end = read.tally.nonzero_end;
            let unit = read.kind.unit() as u64;
            let mut message = format!(
                "its last {} bytes are zero, from {} {}",
                read.data.len - end,
                match read.kind {
                    Kind::Blocks(_) => "block",
                    _ => "element",
                },
                end.div_ceil(unit)
            );
            if tail.tensors > 0 {
                message += &format!(
                    ", and so are the {} tensors after it to the end of the file's tensor data: \
                     {} zero bytes",
                    tail.tensors, tail.run
                );
            }
            message += &format!(", at least the zero-tail of {zero_tail} bytes");
            out.add(&ZERO_TAIL, at(read.data.offset + end, id), message);
        }
    }
}

/// The VX001, VX003, VX004, VX006 and VX007 findings of a floating-point tensor.
#[allow(clippy::too_many_arguments)]
fn floats(
    files: &Files,
    read: &Read,
    float: FloatType,
    parts: u64,
    t: &Tensor,
    at: &dyn Fn(u64, TensorId) -> Place,
    id: TensorId,
    out: &mut Findings,
) {
    let tally = &read.tally;
    let size = float.bytes() as u64;
    let offset = |i: u64| read.data.offset + i * size;
    let value = |i: u64| {
        let bytes = read.value(files, i);
        bytes.map_or("unreadable".into(), |b| number(float.value(&b)))
    };
    let what = if parts == 2 { "parts" } else { "elements" };
    let which = |i: u64| match parts {
        2 if i % 2 == 0 => format!("the real part of element {}", i / 2),
        2 => format!("the imaginary part of element {}", i / 2),
        _ => format!("element {i}"),
    };
    if let Some(i) = tally.first_nonfinite {
        let message = format!(
            "{} of its {} {what} {} NaN or infinite ({} NaN, {} infinite): the first is {}, {}",
            tally.nonfinite(),
            tally.count,
            are(tally.nonfinite()),
            tally.nan,
            tally.inf,
            which(i),
            value(i)
        );
        out.add(&NAN_OR_INF, at(offset(i), id), message);
    }
    if weight(t) && tally.count > 0 {
        if tally.zeros == tally.count {
            let message = format!("all {} {what} are zero", tally.count);
            out.add(&ALL_ZERO_TENSOR, at(read.data.offset, id), message);
        } else if !tally.varies && tally.nonfinite() == 0 {
            let message = format!("all {} {what} are {}", tally.count, value(0));
            out.add(&CONSTANT_TENSOR, at(read.data.offset, id), message);
        }
    }
    // A rule that counts the values of one kind and shows the first of them.
    let dtype = t.dtype.map_or("", |d| d.name());
    let mut first_of = |rule, i, count, kind: String| {
        let message = format!(
            "{count} of its {} {what} {} {kind}: the first is {}, {}",
            tally.count,
            are(count),
            which(i),
            value(i)
        );
        out.add(rule, at(offset(i), id), message);
    };
    if let Some(i) = tally.first_subnormal {
        let kind = format!(
            "subnormal (not zero, and smaller in magnitude than {}, the smallest normal {dtype})",
            number(float.min_normal())
        );
        first_of(&SUBNORMAL_VALUES, i, tally.subnormal, kind);
    }
    if let Some(i) = tally.first_extreme {
        let kind = format!("±{}, the largest finite {dtype}", number(float.max()));
        first_of(&SATURATED_VALUES, i, tally.extreme, kind);
    }
}

/// The offset of the first bad scale of block `b`, and the VX002 message.
fn bad_block(
    files: &Files,
    read: &Read,
    block: &crate::inventory::BlockType,
    b: u64,
) -> (u64, String) {
    let start = read.data.offset + b * block.bytes;
    let bytes = read.value(files, b);
    let scales = bytes.map(|b| blocks::scales(block, &b)).unwrap_or_default();
    let bad = scales.iter().find(|s| s.class.nan || s.class.inf);
    let (offset, field) = bad.map_or((start, "scale is unreadable".to_owned()), |s| {
        let shown = match (s.class.nan, s.name) {
            (true, "e") => "0xff (NaN)".to_owned(),
            _ => number(s.value),
        };
        (
            start + u64::from(s.offset),
            format!("{} is {shown}", s.name),
        )
    });
    let scales = read.tally.nonfinite();
    let message = format!(
        "{scales} NaN or infinite scale{} in its {} {} blocks: the first is in block {b} \
         (elements {} to {}), whose {field}",
        if scales == 1 { "" } else { "s" },
        read.tally.count,
        block.name,
        b * block.elements,
        (b + 1) * block.elements - 1
    );
    (offset, message)
}

/// A zero run to report at the end of a read: its length, through the reads after it that
/// are all zero bytes, and how many those are.
#[derive(Debug, Clone, Copy)]
struct Tail {
    run: u64,
    tensors: usize,
}

/// For each read, the zero run at its end to report (VX005): one of at least `zero_tail`
/// bytes that starts inside it; at the end of a file's tensor data, it goes on through the
/// reads after it that are all zero bytes.
fn tails(scan: &Scan, zero_tail: u64) -> Vec<Option<Tail>> {
    let mut tails = vec![None; scan.reads.len()];
    // Reads are sorted by file and offset: each file's last ones come last.
    let mut last_file = None;
    let mut after = Tail { run: 0, tensors: 0 };
    let mut at_end = true;
    for (r, read) in scan.reads.iter().enumerate().rev() {
        if last_file != Some(read.data.file) {
            (last_file, after, at_end) = (Some(read.data.file), Tail { run: 0, tensors: 0 }, true);
        }
        let end = read.tally.nonzero_end;
        if end == 0 {
            if at_end {
                after.run += read.data.len;
                after.tensors += 1;
            }
            continue;
        }
        let own = read.data.len - end;
        let tail = match at_end {
            true => Tail {
                run: own + after.run,
                tensors: after.tensors,
            },
            false => Tail {
                run: own,
                tensors: 0,
            },
        };
        at_end = false;
        if own > 0 && tail.run >= zero_tail {
            tails[r] = Some(tail);
        }
    }
    tails
}

/// The verb for `n` things.
fn are(n: u64) -> &'static str {
    if n == 1 {
        "is"
    } else {
        "are"
    }
}

/// Whether `t` is a weight rather than a bias or a norm's weight: at least two dimensions
/// larger than 1.
fn weight(t: &Tensor) -> bool {
    t.shape.iter().filter(|&&d| d > 1).count() >= 2
}

/// A number as a finding says it: NaN, ±inf, or the shortest digits that read back exactly.
fn number(v: f64) -> String {
    match v {
        v if v.is_nan() => "NaN".into(),
        v if v.is_infinite() && v > 0.0 => "+inf".into(),
        v if v.is_infinite() => "-inf".into(),
        v if v != 0.0 && !(1e-4..1e7).contains(&v.abs()) => format!("{v:e}"),
        v => format!("{v}"),
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn numbers_are_short() {
        assert_eq!(number(65504.0), "65504");
        assert_eq!(number(-f64::INFINITY), "-inf");
        assert_eq!(number(5.960_464_477_539_063e-8), "5.960464477539063e-8");
        assert_eq!(number(0.5), "0.5");
    }
}
