//! FlatBuffer verification with rten's limits, and with higher ones when those are exceeded.

use super::rules::{EXCEEDS_RTEN_LIMITS, FLATBUFFER_INVALID};
use super::schema::{root_as_model_with_opts, Model};
use crate::check::{Finding, Findings};
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer, VerifierOptions};

/// The limits rten 0.27 verifies with (the FlatBuffers defaults).
fn rten_limits() -> VerifierOptions {
    VerifierOptions::default()
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

/// Verifies `model` (which starts at absolute offset `base`) and returns its root.
pub fn verify<'a>(model: &'a [u8], base: u64, out: &mut Findings) -> Option<Model<'a>> {
    let err = match root_as_model_with_opts(&rten_limits(), model) {
        Ok(root) => return Some(root),
        Err(e) => e,
    };
    let limit_hit = matches!(
        err,
        InvalidFlatbuffer::TooManyTables
            | InvalidFlatbuffer::ApparentSizeTooLarge
            | InvalidFlatbuffer::DepthLimitReached
    );
    if limit_hit {
        if let Ok(root) = root_as_model_with_opts(&rtenx_limits(model.len()), model) {
            out.push(
                Finding::new(
                    &EXCEEDS_RTEN_LIMITS,
                    format!(
                        "rten refuses this model: {}; rtenx read it with higher limits",
                        limit_message(&err)
                    ),
                )
                .at(base),
            );
            return Some(root);
        }
    }
    let (position, message) = describe(&err);
    let offset = position.map_or(base, |p| base.saturating_add(p as u64));
    out.push(Finding::new(&FLATBUFFER_INVALID, message).at(offset));
    None
}

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
                "range {}..{} lies outside the model data",
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
            format!("vtable offset {soffset} at {position} points outside the model data"),
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
        format!("invalid FlatBuffer: {what} (positions are relative to the model data)")
    } else {
        format!("invalid FlatBuffer: {what}, in {path} (positions are relative to the model data)")
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
