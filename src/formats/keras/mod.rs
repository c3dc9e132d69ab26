//! Keras 3 archives (`.keras`, `model.save`): a zip of `metadata.json` (the Keras version),
//! `config.json` (the model as nested serialized objects) and `model.weights.h5` (the weights
//! in HDF5), read through the shared zip reader. The config decides what loading imports and
//! runs, so every object in it is judged as Keras' loader takes it ([`config`]); its layers
//! become the graph and the scope tree ([`graph`]). The weights member is listed, not read:
//! Keras' weights are inert data. Detection is by content: a zip with `config.json` and
//! `metadata.json`, or `model.weights.h5`. Legacy HDF5 files (`model.save("x.h5")`,
//! `.weights.h5`) are read through the shared HDF5 reader ([`h5`]), their `model_config`
//! judged as `config.json` is. See `../shared/reference/tflite-keras.md`.

mod archive;
mod config;
mod graph;
mod h5;
mod metadata;
pub mod rules;
mod tree;

use crate::check::Findings;
use crate::formats::shared::context::Context;
use crate::formats::shared::{hdf5, zip};
use crate::formats::{extension, About, Detection, Format, ReadOptions, Scan};
use crate::inventory::ByteRange;
use crate::inventory::Inventory;
use crate::source::fetched::Fetched;
use crate::source::ModelFile;
use std::path::Path;

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
        let archive = zip::is_zip(bytes) && archive::is_keras(&zip::peek_names(bytes, 64));
        let h5 = matches!(
            hdf5::hint(bytes, hdf5::FIRST_PAGE),
            Some(hdf5::Hint::KerasModel | hdf5::Hint::KerasWeights)
        );
        if archive || h5 {
            Detection::Magic
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        match zip::is_zip(cx.bytes) {
            true => archive::read(&mut cx),
            false => h5::read(&mut cx),
        }
        cx.whole_if_unread();
        cx.inv.fill_gaps();
        cx.inv
    }

    /// `.keras` files; `.h5` files whose content is Keras' (other HDF5 files are data).
    fn scan(&self, path: &Path) -> Scan {
        match extension(path).as_deref() {
            Some("keras") => Scan::Model,
            Some("h5") => Scan::ModelIfDetected,
            _ => Scan::Skip,
        }
    }

    /// The end records, directory, local headers, and the JSON members whole; not the
    /// weights. An HDF5 file whole.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        if !zip::is_zip(bytes) {
            return vec![ByteRange::between(0, bytes.len() as u64)];
        }
        zip::fetch_plan(bytes, fetched, &|name| match archive::is_json(name) {
            true => zip::MEMBER_WHOLE,
            false => 0,
        })
    }
}
