//! `.npz` archives: a zip of `.npy` members, stored (`numpy.savez`) or deflated
//! (`numpy.savez_compressed`). A stored member's array is placed in the archive; a deflated
//! one's header is read from its first decompressed bytes, and an object array's pickle from
//! the whole member, within the budget.
//!
//! Members are taken as `numpy.load` serves them (`NpzFile.__getitem__`): by `zipfile`, so the
//! last of a name; every member that starts with the `.npy` magic is an array, whatever its
//! name, under the key `np.load` gives it (its name without `.npy`); any other member is
//! returned as bytes, and judged only if it is a pickle by content.

use super::array::{self, Where};
use super::header::{self, MAX_HEADER};
use crate::check::Place;
use crate::formats::shared::bytes;
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::Located;
use crate::formats::shared::zip::{self, Member, DEFLATED};
use crate::inventory::{ByteRange, Name, SectionKind, Storage};

/// Reads the `.npz` archive of `cx`.
pub fn read(cx: &mut Context<'_>) {
    let file = cx.bytes;
    let whole = ByteRange {
        start: 0,
        len: bytes::len(file),
    };
    let Some(archive) = zip::read(cx, file, whole) else {
        return;
    };
    cx.inv.format_version = "npz".to_owned();
    let served = (archive.members.iter()).filter(|m| {
        archive
            .get(m.name)
            .is_some_and(|last| last.header == m.header)
    });
    for member in served {
        if !is_array(file, member) {
            zip::pickle_member(cx, file, member, &|_, _| None);
            continue;
        }
        let key = member.name.strip_suffix(b".npy").unwrap_or(member.name);
        let name = cx.name(key);
        if member.stored() {
            let at = Where {
                bytes: bytes::range(file, 0, member.range().end()).unwrap_or_default(),
                start: member.data,
                located: Located::File,
                about_tensor: true,
                storage: Storage::Inline,
            };
            array::read(cx, &at, name);
        } else if member.method == DEFLATED {
            deflated(cx, file, member, name);
        }
    }
    zip::declare(cx, &archive, |_| SectionKind::ModelData);
}

/// Whether a member starts with the `.npy` magic, as `numpy.load` tells arrays from bytes.
fn is_array(file: &[u8], member: &Member<'_>) -> bool {
    let magic = header::MAGIC;
    if member.stored() {
        member.raw(file).is_some_and(|raw| raw.starts_with(magic))
    } else {
        zip::inflate(file, member, magic.len() as u64).is_some_and(|h| h.bytes.starts_with(magic))
    }
}

/// A deflated member: its header from the first bytes, all of it for an object array.
fn deflated(cx: &mut Context<'_>, file: &[u8], member: &Member<'_>, name: Name) {
    let Some(head) = zip::inflate(file, member, MAX_HEADER + 16) else {
        return;
    };
    let object = header::read(&head.bytes, 0).is_ok_and(|h| h.is_object());
    let inflated = if object && !head.whole {
        // Paid from the budget as it is inflated: many members that inflate to a lot cost no
        // more than the budget.
        let Some(all) = zip::inflate_paid(cx, file, member) else {
            return;
        };
        all
    } else {
        if !cx
            .budget
            .copy(head.bytes.len() as u64, Place::at(member.header), cx.out)
        {
            return;
        }
        head.bytes
    };
    let at = Where {
        bytes: &inflated,
        start: 0,
        located: Located::Member {
            header: member.header,
            name: name.clone(),
        },
        about_tensor: true,
        storage: Storage::Inline,
    };
    array::read(cx, &at, name);
}
