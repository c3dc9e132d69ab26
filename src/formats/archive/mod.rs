//! Zip archives that are no model format's: every member is judged by what it holds, as a
//! person or a script that unpacks the archive and loads a member would load it. A member that
//! is a pickle, or an `.npy` of objects (whose data is a pickle), is read by the shared pickle
//! machine and its imports judged, whatever its name; picklescan, modelscan and ModelAudit read
//! the pickles of any zip too. An archive that holds none is reported as not checked, as it
//! was before rtenx read any: it is no model rtenx knows.
//!
//! Archives in a model format (PyTorch, NumPy, Keras) are claimed by that format's stronger
//! detection; this one takes the rest.

pub mod rules;

use crate::check::{generic, Findings, Place};
use crate::escape::EXCERPT;
use crate::formats::shared::context::Context;
use crate::formats::shared::zip;
use crate::formats::{About, Detection, Format, ReadOptions};
use crate::inventory::{ByteRange, FileFormat, Inventory, SectionKind};
use crate::source::fetched::Fetched;
use crate::source::ModelFile;
use rules::PICKLE_MEMBER;
use std::collections::HashSet;

/// Zip archives of no model format.
pub struct Archives;

static ABOUT: About = About {
    name: "zip",
    extensions: &["zip"],
    rules: &rules::GROUP,
};

impl Format for Archives {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn detect(&self, bytes: &[u8]) -> Detection {
        if zip::is_zip(bytes) {
            Detection::Plausible
        } else {
            Detection::No
        }
    }

    fn read(&self, file: &ModelFile, _: &ReadOptions, out: &mut Findings) -> Inventory {
        let mut cx = Context::new(self, file, out);
        let bytes = cx.bytes;
        let whole = ByteRange {
            start: 0,
            len: bytes.len() as u64,
        };
        let Some(archive) = zip::read(&mut cx, bytes, whole) else {
            cx.whole_if_unread();
            return cx.inv;
        };
        // Each name as zipfile serves it: the last member of that name.
        let served = (archive.members.iter()).filter(|m| {
            archive
                .get(m.name)
                .is_some_and(|last| last.header == m.header)
        });
        let mut pickles = 0u64;
        let mut judged = HashSet::new();
        for member in served {
            if zip::pickle_member(&mut cx, bytes, member, &|_, _| None) {
                pickles += 1;
                judged.insert(member.header);
                let message = format!("member \"{}\" at {} is a pickle: loading it runs what it imports, which rtenx judges", crate::escape::excerpt(member.name, EXCERPT), member.header);
                cx.report(&PICKLE_MEMBER, Place::at(member.header), message);
            }
        }
        zip::declare(&mut cx, &archive, |m| {
            if judged.contains(&m.header) {
                SectionKind::ModelData
            } else {
                SectionKind::BlobData
            }
        });
        if pickles == 0 {
            cx.inv.format = FileFormat::NotRead(ABOUT.name);
            let message =
                "this is a zip archive that holds no pickle and no model rtenx reads: not checked";
            cx.report(&generic::NOT_CHECKED, Place::at(0), message);
        } else {
            cx.inv.format_version = format!("{pickles} pickle members");
        }
        cx.inv
    }

    /// The end records, directory, local headers and the start of each member, which is
    /// judged if it is a pickle.
    fn fetch_plan(&self, bytes: &[u8], fetched: &Fetched) -> Vec<ByteRange> {
        zip::fetch_plan(bytes, fetched, &|_| zip::MEMBER_START)
    }
}
