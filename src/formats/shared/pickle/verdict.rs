//! The verdict on a pickle's imports: each is classified against the safe set, recorded in
//! the inventory with the calls that use it, and reported when loading it runs more than
//! data-rebuilding code.

use super::opcodes;
use super::rules::{MODULE_IMPORT, UNSAFE_IMPORT};
use super::safe_set::classify;
use super::tree::Tree;
use super::{Import, Pickle, Sink, Source};
use crate::escape::excerpt;
use crate::inventory::{self, Name, Trust};

/// How a format judges an import itself: `Some(trust)` for one it knows (and reports, if it
/// must, with a rule of its own), `None` to leave it to the safe set.
pub type Judged<'f> = &'f dyn Fn(usize) -> Option<Trust>;

/// Judges every import of `pickle` (read from `src`), records each in the inventory, reports
/// those outside the safe set, and returns each one's trust, in order.
pub fn judge(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    known: Judged<'_>,
) -> Vec<Trust> {
    let mut trusts = Vec::with_capacity(pickle.imports.len());
    for (index, import) in pickle.imports.iter().enumerate() {
        let resolved = pickle.resolved(import);
        let own = known(index);
        let trust = own.unwrap_or_else(|| classify(&resolved));
        trusts.push(trust);
        let spelled = pickle.spelled(import);
        if own.is_none() {
            report(cx, src, import, &spelled, &resolved, trust);
        }
        record(cx, src, import, spelled, trust);
    }
    trusts
}

fn report(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    import: &Import,
    spelled: &[u8],
    resolved: &str,
    trust: Trust,
) {
    let shown = excerpt(spelled, 200);
    let alias = if resolved.as_bytes() != spelled && import.ext.is_none() {
        format!(" ({} in Python 3)", excerpt(resolved.as_bytes(), 200))
    } else {
        String::new()
    };
    let how = format!(
        "{}{alias} imported by {} at {}",
        shown,
        opcodes::name(import.op),
        src.at(import.at)
    );
    let calls = calls(src, import);
    let place = src.place(import.at);
    match trust {
        Trust::Unsafe => {
            let what = match import.ext {
                Some(_) => "; an extension code names whatever global the loading process registered with copyreg, and",
                None => ";",
            };
            let message = format!("{how}, {calls}{what} it is outside the safe set of data-rebuilding globals (torch.load(weights_only=True)'s, NumPy's, builtin containers)");
            cx.report(&UNSAFE_IMPORT, place, message);
        }
        Trust::Module => {
            let message = format!("{how}, {calls}: a framework class, so loading imports its module's code and needs weights_only=False (a whole model object pickled, not its state_dict)");
            cx.report(&MODULE_IMPORT, place, message);
        }
        _ => {}
    }
}

/// How loading uses an import, in words.
fn calls(src: &Source<'_>, import: &Import) -> String {
    match import.first_call {
        Some((op, at)) if import.calls == 1 => {
            format!("called by {} at {}", opcodes::name(op), src.at(at))
        }
        Some((op, at)) => format!(
            "called {} times, first by {} at {}",
            import.calls,
            opcodes::name(op),
            src.at(at)
        ),
        None => "not called (importing it still runs its module's top-level code)".to_owned(),
    }
}

/// Adds the import to the inventory's list of what loading imports.
fn record(cx: &mut Sink<'_>, src: &Source<'_>, import: &Import, spelled: Vec<u8>, trust: Trust) {
    let place = src.place(import.at);
    if !cx.budget.copy(spelled.len() as u64, place, cx.out) {
        return;
    }
    let call = import.first_call.map(|(op, at)| inventory::Call {
        kind: opcodes::op(op).map_or("?", |o| o.name),
        offset: src.place(at).offset.unwrap_or(0),
        count: import.calls,
    });
    cx.inv.imports.push(inventory::Import {
        name: Name::from(spelled),
        kind: opcodes::op(import.op).map_or("?", |o| o.name),
        file: place.file,
        offset: place.offset.unwrap_or(0),
        call,
        trust,
    });
}
