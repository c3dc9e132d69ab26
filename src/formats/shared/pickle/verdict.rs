//! The verdict on a pickle's imports: each is resolved as `find_class` resolves it
//! ([`super::names`]), classified against the safe set, recorded in the inventory with the
//! calls that use it, and reported when loading it runs more than data-rebuilding code.
//! Opcodes that change an imported module or class are reported, and an import that resolves
//! through such a changed object is judged unsafe, whatever its name says.

use super::names::Resolved;
use super::opcodes;
use super::rules::{IMPORTED_OBJECT_CHANGED, INERT_IMPORT, MODULE_IMPORT, UNSAFE_IMPORT};
use super::safe_set::classify;
use super::tree::Tree;
use super::{effects, shown};
use super::{Import, Mutation, Pickle, Sink, Source};
use crate::check::{Item, Place};
use crate::escape::{excerpt, EXCERPT};
use crate::inventory::hashing::Seeded;
use crate::inventory::{self, Name, Trust};
use std::collections::HashMap;

/// Objects changed, by path: the first change's position and opcode.
type Changed = HashMap<String, (u64, u8), Seeded>;

/// How a format judges an import itself: `Some(trust)` for one it knows (and reports, if it
/// must, with a rule of its own), `None` to leave it to the safe set.
pub type Judged<'f> = &'f dyn Fn(usize) -> Option<Trust>;

/// Judges every import of `pickle` (read from `src`), records each in the inventory, reports
/// those outside the safe set and the opcodes that change imported objects, and returns each
/// import's trust, in order.
pub fn judge(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    known: Judged<'_>,
) -> Vec<Trust> {
    judge_some(cx, src, pickle, known, &|_| true)
}

/// [`judge`], reporting and recording only the imports and changes at positions `fresh`
/// accepts (a second reading of the same bytes reports what the first did not reach).
pub fn judge_some(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    known: Judged<'_>,
    fresh: &dyn Fn(u64) -> bool,
) -> Vec<Trust> {
    let changed = changed_objects(cx, src, pickle, fresh);
    let mut trusts = Vec::with_capacity(pickle.imports.len());
    for (index, import) in pickle.imports.iter().enumerate() {
        let resolved = pickle.resolution(import);
        let through = resolved
            .as_ref()
            .and_then(|r| changed_prefix(&changed, &r.path, import.at));
        let own = known(index).filter(|_| through.is_none());
        let trust = match (own, &resolved) {
            (Some(trust), _) => trust,
            (None, _) if through.is_some() => Trust::Unsafe,
            (None, Some(resolved)) => classify(resolved),
            (None, None) => Trust::Unsafe,
        };
        trusts.push(trust);
        if !fresh(import.at) {
            continue;
        }
        let spelled = pickle.spelled(import);
        let listed = record(cx, src, import, &spelled, trust);
        if own.is_none() {
            let judged = Judging {
                import,
                spelled: &spelled,
                resolved: resolved.as_ref(),
                through,
            };
            // The finding is about the import, unless the whole pickle is one item.
            let mut place = src.place(import.at);
            if let (None, Some(listed)) = (src.item, listed) {
                place = place.item(Item::Import { import: listed });
            }
            report(cx, src, pickle, &judged, trust, place);
        }
    }
    trusts
}

/// The objects opcodes changed, by the path of the import that returned them, with the first
/// change; each change is reported.
fn changed_objects(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    fresh: &dyn Fn(u64) -> bool,
) -> Changed {
    let mut changed = Changed::default();
    for change in &pickle.mutations {
        let Some(import) = pickle.imports.get(change.import) else {
            continue;
        };
        let path = pickle.resolution(import).map_or_else(
            || String::from_utf8_lossy(&pickle.spelled(import)).into_owned(),
            |r| r.path,
        );
        if fresh(change.at) {
            report_change(cx, src, pickle, change, import, &path);
        }
        changed.entry(path).or_insert((change.at, change.op));
    }
    changed
}

fn report_change(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    change: &Mutation,
    import: &Import,
    path: &str,
) {
    let keys: Vec<String> = (change.keys.iter().take(5))
        .map(|&k| match pickle.str(k) {
            Some(key) => format!("'{}'", excerpt(key, 60)),
            None => "a key that is not a str".to_owned(),
        })
        .collect();
    let what = match (change.op, keys.is_empty()) {
        (opcodes::BUILD, true) => "sets the state of".to_owned(),
        (opcodes::BUILD, false) => format!("sets {} on", keys.join(", ")),
        (_, true) => "adds items to".to_owned(),
        (_, false) => format!("stores {} in", keys.join(", ")),
    };
    let path = excerpt(path.as_bytes(), EXCERPT);
    let message = format!(
        "loading changes {path} for everything that uses it afterwards, the pickle's later imports included: {} at {} {what} {path}, the object {} at {} imported",
        opcodes::name(change.op),
        src.at(change.at),
        opcodes::name(import.op),
        src.at(import.at),
    );
    cx.report(&IMPORTED_OBJECT_CHANGED, src.place(change.at), message);
}

/// The changed object `path` resolves through, if a change before `at` reached a prefix of it
/// (the object itself or one of its attributes), with that change.
fn changed_prefix<'c>(changed: &'c Changed, path: &str, at: u64) -> Option<(&'c str, u64, u8)> {
    let prefixes = path
        .match_indices('.')
        .map(|(i, _)| path.get(..i).unwrap_or(path));
    prefixes.chain([path]).find_map(|prefix| {
        let (key, &(when, op)) = changed.get_key_value(prefix)?;
        (when < at).then_some((key.as_str(), when, op))
    })
}

/// An import, and what decided its verdict: its name and what it resolves to.
struct Judging<'r> {
    import: &'r Import,
    /// `module.name` as the file spells it.
    spelled: &'r [u8],
    resolved: Option<&'r Resolved>,
    /// A changed object it resolves through: its path, and the change's position and opcode.
    through: Option<(&'r str, u64, u8)>,
}

fn report(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    pickle: &Pickle<'_>,
    judged: &Judging<'_>,
    trust: Trust,
    place: Place,
) {
    let (import, spelled) = (judged.import, judged.spelled);
    let name = excerpt(spelled, EXCERPT);
    let alias = match judged.resolved {
        Some(r) if r.path.as_bytes() != spelled => {
            format!(" ({} in Python 3)", excerpt(r.path.as_bytes(), EXCERPT))
        }
        _ => String::new(),
    };
    let how = format!(
        "{name}{alias} imported by {} at {}",
        opcodes::name(import.op),
        src.at(import.at)
    );
    let calls = calls(src, import);
    match trust {
        Trust::Unsafe => {
            let what = unsafe_consequence(pickle, &name, judged);
            let reason = unsafe_reason(src, judged);
            let message = format!("{what} — {how}, {calls}; {reason}");
            cx.report(&UNSAFE_IMPORT, place, message);
        }
        Trust::Inert => {
            let message = format!("torch.load(weights_only=True) refuses the file for {name}, which runs nothing with the data a pickle passes it — {how}, {calls}: a standard-library type or builtin that no checkpoint of weights needs");
            cx.report(&INERT_IMPORT, place, message);
        }
        Trust::Module => {
            let message = format!("loading rebuilds a whole model object, importing the framework code of {name} — {how}, {calls}: a framework class, which torch.load(weights_only=True) refuses, so the file needs weights_only=False (the model object pickled, not its state_dict)");
            cx.report(&MODULE_IMPORT, place, message);
        }
        _ => {}
    }
}

/// What loading does with an unsafe import, said first: the call it makes, with its
/// arguments, or the import alone.
fn unsafe_consequence(pickle: &Pickle<'_>, name: &str, why: &Judging<'_>) -> String {
    match (why.import.first_call, why.through) {
        (Some(call), Some((path, ..))) => format!(
            "loading calls an object reached through {}, which the pickle changed: {}",
            excerpt(path.as_bytes(), EXCERPT),
            shown::call(pickle, call.op, call.func, call.args)
        ),
        (Some(call), None) => effects::consequence(pickle, call.op, call.func, call.args),
        (None, through) => match why
            .resolved
            .filter(|_| through.is_none())
            .and_then(effects::of)
        {
            Some(effect) => {
                format!("loading imports {name}, which {effect} when called, without calling it")
            }
            None => format!("loading imports {name} without calling it"),
        },
    }
}

/// Why an import is unsafe, in words.
fn unsafe_reason(src: &Source<'_>, why: &Judging<'_>) -> String {
    const OUTSIDE: &str = "outside the safe set of data-rebuilding globals (torch.load(weights_only=True)'s, NumPy's, builtin containers)";
    if let Some((path, at, op)) = why.through {
        return format!(
            "it resolves through {}, which {} at {} changed, so it reaches whatever that state holds, not what its name says",
            excerpt(path.as_bytes(), EXCERPT),
            opcodes::name(op),
            src.at(at)
        );
    }
    match (why.resolved, why.import.ext) {
        (_, Some(_)) => format!("an extension code names whatever global the loading process registered with copyreg, and it is {OUTSIDE}"),
        (Some(r), None) if r.walk => {
            let step = match &r.dunder {
                Some(dunder) => format!(
                    "it passes {}, an attribute that leads from any object to code",
                    excerpt(dunder.as_bytes(), 60)
                ),
                None => format!("what it reaches is {OUTSIDE}"),
            };
            format!(
                "its dotted name is an attribute walk from module {} (find_class takes one getattr per dot), and {step}",
                excerpt(r.module.as_bytes(), EXCERPT)
            )
        }
        _ => format!("it is {OUTSIDE}"),
    }
}

/// How loading uses an import, in words.
fn calls(src: &Source<'_>, import: &Import) -> String {
    match import.first_call {
        Some(call) if import.calls == 1 => {
            format!(
                "called by {} at {}",
                opcodes::name(call.op),
                src.at(call.at)
            )
        }
        Some(call) => format!(
            "called {} times, first by {} at {}",
            import.calls,
            opcodes::name(call.op),
            src.at(call.at)
        ),
        None => "not called (importing it still runs its module's top-level code)".to_owned(),
    }
}

/// Adds the import to the inventory's list of what loading imports; its index there, unless
/// the budget is spent.
fn record(
    cx: &mut Sink<'_>,
    src: &Source<'_>,
    import: &Import,
    spelled: &[u8],
    trust: Trust,
) -> Option<usize> {
    let place = src.place(import.at);
    if !cx.budget.copy(spelled.len() as u64, place, cx.out) {
        return None;
    }
    let call = import.first_call.map(|call| inventory::Call {
        kind: opcodes::op(call.op).map_or("?", |o| o.name),
        offset: src.place(call.at).offset.unwrap_or(0),
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
    Some(cx.inv.imports.len() - 1)
}
