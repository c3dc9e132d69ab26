//! Keras 3 archives (`.keras`, `model.save`): a zip of `metadata.json` (the Keras version),
//! `config.json` (the model as nested serialized objects) and `model.weights.h5` (the weights
//! in HDF5), read through the shared zip reader. The config decides what loading imports and
//! runs, so every object in it is judged as Keras' loader takes it ([`config`]); its layers
//! become the graph and the scope tree ([`graph`]). The weights member is listed, not read:
//! Keras' weights are inert data. Detection is by content: a zip with `config.json` and
//! `metadata.json`, or `model.weights.h5`. See `../shared/reference/tflite-keras.md`.

mod archive;
mod config;
mod graph;
mod metadata;
pub mod rules;
mod tree;

use crate::check::Findings;
use crate::formats::shared::context::Context;
use crate::formats::shared::zip;
use crate::formats::{About, Detection, Format, ReadOptions};
use crate::inventory::ByteRange;
use crate::inventory::Inventory;
use crate::source::fetched::Fetched;
use crate::source::ModelFile;

/// Keras archives.
pub struct Keras;

static ABOUT: About = About {
    name: "keras",
    extensions: &["keras"],
    rules: &rules::GROUP,
};

impl Format for Keras {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if zip::is_zip(bytes) && archive::is_keras(&zip::peek_names(bytes, 64)) {
            Detection::Magic
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        archive::read(&mut cx);
        cx.whole_if_unread();
        cx.inv.fill_gaps();
        cx.inv
    }

    /// The end records, directory, local headers, and the JSON members whole; not the
    /// weights.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        zip::fetch_plan(bytes, fetched, &|name| match archive::is_json(name) {
            true => zip::MEMBER_WHOLE,
            false => 0,
        })
    }
}
