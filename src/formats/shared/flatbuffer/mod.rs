//! FlatBuffers: recognising a buffer and its file identifier, and verifying it twice, with
//! the limits a runtime uses and, when those are exceeded, with rtenx's own.
//!
//! Generated accessors trust offsets, so nothing is read through them before the whole
//! buffer has passed the verifier. [`RawTable`] reads what they do not give, with every
//! access checked.

mod raw;

pub use raw::{RawTable, Scalar};

use super::bytes::le_u32;
use super::numbers::signed32;
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer, VerifierOptions};

/// True if `bytes` start like a FlatBuffer: a 4-aligned root offset inside the buffer that
/// leads to a table whose vtable is inside the buffer and has a plausible length.
pub fn plausible_root(bytes: &[u8]) -> bool {
    let len = bytes.len() as u64;
    let Some(root) = le_u32(bytes, 0).map(u64::from) else {
        return false;
    };
    if len < 12 || root < 4 || root % 4 != 0 || root + 4 > len {
        return false;
    }
    let Some(soffset) = le_u32(bytes, root).map(signed32) else {
        return false;
    };
    // root is below the length of a slice, so it fits in an i64.
    let vtable = i64::try_from(root).unwrap_or(i64::MAX) - i64::from(soffset);
    let vtable_len = usize::try_from(vtable).ok().and_then(|v| {
        Some(u16::from_le_bytes(
            bytes.get(v..v.checked_add(2)?)?.try_into().ok()?,
        ))
    });
    vtable_len.is_some_and(|n| n >= 4 && n % 2 == 0)
}

/// The file identifier of a FlatBuffer (bytes 4..8), if `bytes` start like one and those
/// bytes are printable ASCII, as identifiers are.
pub fn identifier(bytes: &[u8]) -> Option<[u8; 4]> {
    let id: [u8; 4] = bytes.get(4..8)?.try_into().ok()?;
    (plausible_root(bytes) && id.iter().all(|b| b.is_ascii_graphic())).then_some(id)
}

/// How a buffer fared under the verifier.
pub enum Verified<T> {
    /// It passed with the runtime's limits.
    Valid(T),
    /// It passed only with rtenx's higher limits; the runtime refuses it for the reason given.
    OverRuntimeLimits(T, &'static str),
    /// It is invalid: the position (from the buffer's start) and what is wrong.
    Invalid(Option<usize>, String),
}

/// Limits rtenx accepts: any table count a buffer of this size can hold, and deeper nesting.
/// The apparent-size limit still bounds the work a hostile DAG of shared tables can cause.
fn rtenx_limits(len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: 512,
        max_tables: len / 4 + 1,
        max_apparent_size: (1usize << 31).max(len.saturating_mul(4)),
        ignore_missing_null_terminator: false,
    }
}

/// Buffers from this size up are verified with rtenx's limits beside the runtime's, on a
/// second thread: a buffer this large may hold more tables than the runtime's limit, and
/// the verifier then runs twice over its million tables, once failing and once passing.
const BESIDE_FROM: usize = 16 << 20;

/// Verifies `buf` with `root`, a generated `root_as_*_with_opts` function: with the
/// FlatBuffers default limits, which runtimes use, and with rtenx's if only a limit failed.
pub fn verify<'a, T: Send>(
    buf: &'a [u8],
    root: impl Fn(&VerifierOptions, &'a [u8]) -> Result<T, InvalidFlatbuffer> + Sync,
) -> Verified<T> {
    let higher = rtenx_limits(buf.len());
    let (runtime, beside) = if buf.len() >= BESIDE_FROM {
        std::thread::scope(|s| {
            let beside = std::thread::Builder::new().spawn_scoped(s, || root(&higher, buf));
            let runtime = root(&VerifierOptions::default(), buf);
            (runtime, beside.ok().and_then(|b| b.join().ok()))
        })
    } else {
        (root(&VerifierOptions::default(), buf), None)
    };
    let err = match runtime {
        Ok(root) => return Verified::Valid(root),
        Err(e) => e,
    };
    let limit_hit = matches!(
        err,
        InvalidFlatbuffer::TooManyTables
            | InvalidFlatbuffer::ApparentSizeTooLarge
            | InvalidFlatbuffer::DepthLimitReached
    );
    if limit_hit {
        // The second thread's result, or, if it could not be started, a second pass.
        if let Ok(found) = beside.unwrap_or_else(|| root(&higher, buf)) {
            return Verified::OverRuntimeLimits(found, limit_message(&err));
        }
    }
    let (position, message) = describe(&err);
    // The verifier may name a position it computed from a bogus offset: only one inside the
    // buffer is a place in the file.
    Verified::Invalid(position.filter(|&p| p <= buf.len()), message)
}

/// The rules a format reports verification problems under.
pub struct VerifyRules {
    /// The buffer is invalid.
    pub invalid: &'static crate::check::Rule,
    /// The buffer passed only with rtenx's limits.
    pub over_limits: &'static crate::check::Rule,
    /// The runtime whose limits are the defaults, such as `rten`.
    pub runtime: &'static str,
}

/// [`verify`], reporting the outcome under `rules` at positions relative to `base`, the
/// buffer's absolute offset in its file; the root if it can be read.
pub fn verify_reporting<'a, T: Send>(
    buf: &'a [u8],
    root: impl Fn(&VerifierOptions, &'a [u8]) -> Result<T, InvalidFlatbuffer> + Sync,
    base: u64,
    rules: &VerifyRules,
    out: &mut crate::check::Findings,
) -> Option<T> {
    use crate::check::Place;
    match verify(buf, root) {
        Verified::Valid(root) => Some(root),
        Verified::OverRuntimeLimits(root, limit) => {
            let message = format!(
                "{} refuses this file: {limit}; rtenx read it with higher limits",
                rules.runtime
            );
            out.add(rules.over_limits, Place::at(base), message);
            Some(root)
        }
        Verified::Invalid(position, message) => {
            let offset = position.map_or(base, |p| base.saturating_add(p as u64));
            out.add(rules.invalid, Place::at(offset), message);
            None
        }
    }
}

/// What limit `err` reports, in the words of the default limits.
fn limit_message(err: &InvalidFlatbuffer) -> &'static str {
    match err {
        InvalidFlatbuffer::TooManyTables => "more than 1,000,000 tables",
        InvalidFlatbuffer::DepthLimitReached => "tables nested deeper than 64",
        _ => "apparent size over 2 GiB",
    }
}

/// The buffer position the verifier stopped at, and a one-line description.
fn describe(err: &InvalidFlatbuffer) -> (Option<usize>, String) {
    use InvalidFlatbuffer as E;
    let (position, what, trace) = match err {
        E::MissingRequiredField {
            required,
            error_trace,
        } => (
            None,
            format!("required field `{required}` is missing"),
            Some(error_trace),
        ),
        E::InconsistentUnion {
            field,
            field_type,
            error_trace,
        } => (
            None,
            format!("union `{field}` and its type `{field_type}` are not both present"),
            Some(error_trace),
        ),
        E::Utf8Error {
            range, error_trace, ..
        } => (
            Some(range.start),
            format!(
                "string at {}..{} is not valid UTF-8",
                range.start, range.end
            ),
            Some(error_trace),
        ),
        E::MissingNullTerminator { range, error_trace } => (
            Some(range.start),
            format!(
                "string at {}..{} has no NUL terminator",
                range.start, range.end
            ),
            Some(error_trace),
        ),
        E::Unaligned {
            position,
            unaligned_type,
            error_trace,
        } => (
            Some(*position),
            format!("{unaligned_type} at {position} is misaligned"),
            Some(error_trace),
        ),
        E::RangeOutOfBounds { range, error_trace } => (
            Some(range.start),
            format!(
                "range {}..{} lies outside the buffer",
                range.start, range.end
            ),
            Some(error_trace),
        ),
        E::SignedOffsetOutOfBounds {
            soffset,
            position,
            error_trace,
        } => (
            Some(*position),
            format!("vtable offset {soffset} at {position} points outside the buffer"),
            Some(error_trace),
        ),
        E::TooManyTables | E::ApparentSizeTooLarge | E::DepthLimitReached => (
            None,
            format!("{} even for rtenx's limits", limit_message(err)),
            None,
        ),
    };
    let details: &[ErrorTraceDetail] = trace.map_or(&[], |t| t.as_ref());
    let path = trace_path(details);
    let position = position.or_else(|| details.first().map(trace_position));
    let message = if path.is_empty() {
        format!("invalid FlatBuffer: {what} (positions are relative to the buffer's start)")
    } else {
        format!(
            "invalid FlatBuffer: {what}, in {path} (positions are relative to the buffer's start)"
        )
    };
    (position, message)
}

fn trace_position(detail: &ErrorTraceDetail) -> usize {
    match detail {
        ErrorTraceDetail::VectorElement { position, .. }
        | ErrorTraceDetail::TableField { position, .. }
        | ErrorTraceDetail::UnionVariant { position, .. } => *position,
    }
}

/// The trace from the root down, such as `graph.nodes[3].data`.
fn trace_path(details: &[ErrorTraceDetail]) -> String {
    let mut path = String::new();
    for detail in details.iter().rev() {
        match detail {
            ErrorTraceDetail::VectorElement { index, .. } => path.push_str(&format!("[{index}]")),
            ErrorTraceDetail::TableField { field_name, .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(field_name);
            }
            ErrorTraceDetail::UnionVariant { variant, .. } => {
                path.push_str(&format!("<{variant}>"))
            }
        }
    }
    path
}
