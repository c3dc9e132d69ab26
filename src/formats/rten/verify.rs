//! FlatBuffer verification of the model data, with rten's limits and then rtenx's.

use super::rules::{EXCEEDS_RTEN_LIMITS, FLATBUFFER_INVALID};
use super::schema::{root_as_model_with_opts, Model};
use crate::check::{Findings, Place};
use crate::formats::shared::flatbuffer::{self, Verified};

/// Verifies `model` (which starts at absolute offset `base`) and returns its root.
pub fn verify<'a>(model: &'a [u8], base: u64, out: &mut Findings) -> Option<Model<'a>> {
    match flatbuffer::verify(model, root_as_model_with_opts) {
        Verified::Valid(root) => Some(root),
        Verified::OverRuntimeLimits(root, limit) => {
            let message =
                format!("rten refuses this model: {limit}; rtenx read it with higher limits");
            out.add(&EXCEEDS_RTEN_LIMITS, Place::at(base), message);
            Some(root)
        }
        Verified::Invalid(position, message) => {
            let offset = position.map_or(base, |p| base.saturating_add(p as u64));
            out.add(&FLATBUFFER_INVALID, Place::at(offset), message);
            None
        }
    }
}
