//! PyTorch files: zip checkpoints (`torch.save` since 1.6), legacy checkpoints and legacy
//! `.tar` checkpoints, TorchScript archives (`torch.jit.save`) and `torch.export` archives
//! (`.pt2`), read without unpickling; and any other file `torch.load` would unpickle (a bare
//! pickle named as a checkpoint), judged as it would unpickle it.
//!
//! A checkpoint's `data.pkl` is read by the shared pickle machine and judged; each tensor
//! (`_rebuild_tensor_v2` and its relatives) is placed at its storage's bytes, a stored
//! `data/<key>` member or a stretch of the legacy storage stream, with its dtype, shape,
//! strides and storage offset. TorchScript code and `torch.export` programs are listed as
//! what loading runs. Detection is by content: a zip with PyTorch's record names, or the
//! legacy magic number.

mod archive;
mod dtypes;
mod export;
mod legacy;
mod legacy_tar;
pub mod rules;
mod tensors;
mod torchscript;
mod weights_only;

use crate::check::Findings;
use crate::formats::shared::context::Context;
use crate::formats::shared::hf;
use crate::formats::shared::{pickle, tar, zip};
use crate::formats::{extension, About, Detection, Format, ReadOptions, Scan};
use crate::inventory::{ByteRange, Inventory};
use crate::source::fetched::Fetched;
use crate::source::ModelFile;
use std::path::Path;

/// Opcodes that must read cleanly for a file to be a bare pickle `torch.load` would unpickle:
/// enough that a `.bin` of tensor data is never taken for one.
const BARE_PICKLE: u64 = 8;

/// PyTorch files.
pub struct PyTorch;

static ABOUT: About = About {
    name: "pytorch",
    extensions: &["pt", "pth", "ckpt", "pt2", "bin"],
    rules: &rules::GROUP,
};

impl Format for PyTorch {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        // Records may be anywhere in the directory, in any case.
        let torch_zip = || archive::is_torch(&zip::peek_names(bytes, usize::MAX));
        let legacy = || {
            bytes
                .get(legacy::START.len()..)
                .is_some_and(|b| b.starts_with(legacy::MAGIC))
        };
        if (zip::is_zip(bytes) && torch_zip()) || (bytes.starts_with(legacy::START) && legacy()) {
            Detection::Magic
        } else if zip::is_zip(bytes)
            || tar::is_tar(bytes)
            || bytes.starts_with(legacy::START)
            || pickle::sniff(bytes, BARE_PICKLE)
        {
            // torch.load opens any zip, and unpickles any other file's first pickle before
            // it finds the magic number wrong.
            Detection::Plausible
        } else {
            Detection::No
        }
    }

    /// `.bin` is PyTorch's `pytorch_model.bin`, but also many another format's: such a file
    /// is a model only if its content is PyTorch's.
    fn scan(&self, path: &Path) -> Scan {
        match extension(path).as_deref() {
            Some("bin") => Scan::ModelIfDetected,
            Some(ext) if self.about().extensions.contains(&ext) => Scan::Model,
            _ => Scan::Skip,
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        let bytes = cx.bytes;
        if zip::is_zip(bytes) {
            let whole = ByteRange {
                start: 0,
                len: bytes.len() as u64,
            };
            archive::read(&mut cx, whole, false);
        } else if tar::is_tar(bytes) {
            legacy_tar::read(&mut cx);
        } else {
            legacy::read(&mut cx);
        }
        cx.whole_if_unread();
        cx.inv.fill_gaps();
        hf::check(&mut cx);
        cx.inv
    }

    /// A zip checkpoint's end records, directory, local headers and every member but the
    /// storages under `data/`; a legacy or tar checkpoint whole.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        if !zip::is_zip(bytes) {
            return vec![ByteRange::between(0, bytes.len() as u64)];
        }
        zip::fetch_plan(bytes, fetched, &|name| match archive::is_storage(name) {
            true => 0,
            false => zip::MEMBER_WHOLE,
        })
    }
}
