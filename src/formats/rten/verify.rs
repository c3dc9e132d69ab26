//! FlatBuffer verification of the model data, with rten's limits and then rtenx's.

use super::rules::{EXCEEDS_RTEN_LIMITS, FLATBUFFER_INVALID};
use super::schema::{root_as_model_with_opts, Model};
use crate::check::Findings;
use crate::formats::shared::flatbuffer::{self, VerifyRules};

static RULES: VerifyRules = VerifyRules {
    invalid: &FLATBUFFER_INVALID,
    over_limits: &EXCEEDS_RTEN_LIMITS,
    runtime: "rten",
};

/// Verifies `model` (which starts at absolute offset `base`) and returns its root.
pub fn verify<'a>(model: &'a [u8], base: u64, out: &mut Findings) -> Option<Model<'a>> {
    flatbuffer::verify_reporting(model, root_as_model_with_opts, base, &RULES, out)
}
