//! LiteRT-LM bundles (`.litertlm`): the container Google's on-device LLM runtime loads.
//!
//! A 32-byte header (the magic `LITERTLM`, major, minor and patch versions, and at byte 24
//! where the header ends), then a FlatBuffer `LiteRTLMMetaData` of system metadata and a
//! section table, then the sections, each aligned to 16 KiB: TFLite models and their weights,
//! tokenizers, and metadata as protobuf. Reading goes header → metadata → each section's
//! bounds, overlaps and type → each TFLite section read as a `.tflite` in place, its offsets
//! in the bundle. Facts: `../shared/reference/tflite-keras.md`.

mod header;
pub mod rules;
mod sections;
mod table;

use crate::check::Findings;
use crate::formats::shared::context::Context;
use crate::formats::{About, Detection, Format, ReadOptions};
use crate::inventory::Inventory;
use crate::source::ModelFile;

/// The magic every bundle starts with.
const MAGIC: &[u8; 8] = b"LITERTLM";

/// The LiteRT-LM bundle format.
pub struct LiteRtLm;

static ABOUT: About = About {
    name: "litertlm",
    extensions: &["litertlm"],
    rules: &rules::GROUP,
};

impl Format for LiteRtLm {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if bytes.starts_with(MAGIC) {
            Detection::Magic
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        if let Some(header) = header::read(&mut cx) {
            if let Some(table) = table::read(&mut cx, &header) {
                sections::read(&mut cx, &header, &table);
            }
        }
        cx.whole_if_unread();
        cx.inv
    }
}
