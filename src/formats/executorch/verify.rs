//! FlatBuffer verification of programs and data files, with the runtime's limits and then
//! rtenx's.

use super::rules::{EXCEEDS_RUNTIME_LIMITS, FLATBUFFER_INVALID};
use crate::check::Findings;
use crate::formats::shared::flatbuffer::{self, VerifyRules};
use flatbuffers::{InvalidFlatbuffer, VerifierOptions};

static RULES: VerifyRules = VerifyRules {
    invalid: &FLATBUFFER_INVALID,
    over_limits: &EXCEEDS_RUNTIME_LIMITS,
    runtime: "the ExecuTorch runtime",
};

/// Verifies `buf`, a FlatBuffer that starts at byte 0 of its file, with `root`, a generated
/// `root_as_*_with_opts` function; its root if it can be read.
pub fn verify<'a, T: Send>(
    buf: &'a [u8],
    root: impl Fn(&VerifierOptions, &'a [u8]) -> Result<T, InvalidFlatbuffer> + Sync,
    out: &mut Findings,
) -> Option<T> {
    flatbuffer::verify_reporting(buf, root, 0, &RULES, out)
}
