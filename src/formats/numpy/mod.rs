//! NumPy files: `.npy` arrays (`numpy.save`) and `.npz` archives (`numpy.savez`,
//! `savez_compressed`).
//!
//! A `.npy` file is a header (a Python dict literal of dtype, order and shape) and the array's
//! bytes, which become one tensor with their byte range; an object array's bytes are a
//! pickle, read and judged by the shared pickle machine. An `.npz` is a zip of `.npy`
//! members, each a tensor named by the key `np.load` gives it. Detection is by content: the
//! `\x93NUMPY` magic, or a zip with a `.npy` member.

mod archive;
mod array;
mod header;
mod literal;
pub mod rules;

use crate::check::Findings;
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::Located;
use crate::formats::shared::zip;
use crate::formats::{About, Detection, Format, ReadOptions};
use crate::inventory::{ByteRange, Inventory, Name, Section, SectionKind, Storage};
use crate::source::fetched::Fetched;
use crate::source::ModelFile;
use array::Where;

/// The alignment `numpy.save` pads headers to, so that data can be memory-mapped.
const ALIGNMENT: u64 = 64;

/// NumPy files.
pub struct NumPy;

static ABOUT: About = About {
    name: "numpy",
    extensions: &["npy", "npz"],
    rules: &rules::GROUP,
};

impl Format for NumPy {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        let npz = || {
            let names = zip::peek_names(bytes, usize::MAX);
            names.iter().any(|n| n.ends_with(b".npy"))
        };
        if bytes.starts_with(header::MAGIC) || (zip::is_zip(bytes) && npz()) {
            Detection::Magic
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        if zip::is_zip(cx.bytes) {
            archive::read(&mut cx);
        } else {
            npy(&mut cx, file);
        }
        cx.whole_if_unread();
        cx.inv.fill_gaps();
        cx.inv
    }

    /// An `.npz`'s end records, directory, local headers and the start of each member (its
    /// `.npy` header); an `.npy` file whole.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        if !zip::is_zip(bytes) {
            return vec![ByteRange::between(0, bytes.len() as u64)];
        }
        zip::fetch_plan(bytes, fetched, &|_| zip::MEMBER_START)
    }
}

/// Reads the `.npy` file of `cx`, naming its array after the file.
fn npy(cx: &mut Context<'_>, file: &ModelFile) {
    cx.inv.preferred_alignment = Some(ALIGNMENT);
    let at = Where {
        bytes: cx.bytes,
        start: 0,
        located: Located::File,
        about_tensor: false,
        storage: Storage::External,
    };
    let stem = file
        .path()
        .file_name()
        .map(|n| n.as_encoded_bytes())
        .unwrap_or_default();
    let name = Name::from(stem);
    let Some((header, end)) = array::read(cx, &at, name) else {
        return;
    };
    cx.inv.format_version = format!("npy {}", header.version);
    cx.inv.property("descr", &header.descr, Some(10));
    cx.inv.property("fortran_order", header.fortran, Some(10));
    let size = cx.bytes.len() as u64;
    let data = if header.is_object() {
        SectionKind::ModelData
    } else {
        SectionKind::TensorData
    };
    let end = end.unwrap_or(size).min(size);
    for (kind, range) in [
        (SectionKind::Header, ByteRange::between(0, header.data)),
        (data, ByteRange::between(header.data, end)),
    ] {
        cx.inv.sections.push(Section {
            file: 0,
            kind,
            range,
        });
    }
}
