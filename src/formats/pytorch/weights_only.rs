//! What `torch.load(weights_only=True)` would refuse in a checkpoint that is otherwise safe.

use super::rules::WEIGHTS_ONLY_REFUSES;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::{opcode_name, Pickle, Source, Tree, WEIGHTS_ONLY};
use crate::inventory::Trust;

/// Reports the first global or opcode of `p` (read from `src`) that the weights-only
/// unpickler refuses, if every import is safe (otherwise the imports are the finding).
pub fn check(cx: &mut Context<'_>, src: &Source<'_>, p: &Pickle<'_>, trusts: &[Trust]) {
    if !trusts.iter().all(|t| t.is_safe()) {
        return;
    }
    let global = (p.imports.iter().zip(trusts))
        .find(|(_, &t)| t != Trust::Safe)
        .map(|(import, _)| {
            let what = format!(
                "{} is not in its allowlist",
                excerpt(&p.spelled(import), EXCERPT)
            );
            (import.at, what)
        });
    let opcode = (p.used.iter())
        .find(|(code, _)| !WEIGHTS_ONLY.contains(code))
        .map(|&(code, at)| {
            (
                at,
                format!("it does not implement opcode {}", opcode_name(code)),
            )
        });
    let first = match (global, opcode) {
        (Some(g), Some(o)) => Some(if o.0 < g.0 { o } else { g }),
        (g, o) => g.or(o),
    };
    if let Some((at, what)) = first {
        let message = format!("torch.load(weights_only=True), the default since torch 2.6, refuses this checkpoint at {}: {what}; the file is safe, but its users must pass weights_only=False, which lets any global run", src.at(at));
        cx.report(&WEIGHTS_ONLY_REFUSES, src.place(at), message);
    }
}
