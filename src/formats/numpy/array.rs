//! One array: its header, then its data in place, or the pickle of an object array.

use super::header::{self, Header};
use super::rules::{NPY_HEADER_INVALID, OBJECT_ARRAY};
use crate::check::{Item, Place};
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::{self, Located, Options, Source};
use crate::inventory::{DataRange, Name, Storage, Tensor};

/// Where an array's bytes are.
pub struct Where<'a> {
    /// The buffer holding the `.npy` bytes.
    pub bytes: &'a [u8],
    /// Where in it the `.npy` starts.
    pub start: u64,
    /// Where the buffer is in the file.
    pub located: Located,
    /// Whether the array's findings are about its tensor (a member of an `.npz`).
    pub about_tensor: bool,
    /// How its data is stored: in place in an `.npy` file, or inline in an `.npz` member,
    /// which numpy always copies.
    pub storage: Storage,
}

impl Where<'_> {
    fn place(&self, pos: u64, item: Option<Item>) -> Place {
        let place = match self.located {
            Located::File => Place::at(pos),
            Located::Data { file } => Place::at(pos).in_file(file),
            Located::Member { header, .. } => Place::at(header),
        };
        match item.filter(|_| self.about_tensor) {
            Some(item) => place.item(item),
            None => place,
        }
    }
}

/// Reads the `.npy` at `at` as the tensor `name`; `None` if its header is unusable. Returns
/// the header and where the array's bytes end, if known.
pub fn read(cx: &mut Context<'_>, at: &Where<'_>, name: Name) -> Option<(Header, Option<u64>)> {
    let index = cx.inv.tensors.len();
    let item = Item::Tensor { tensor: index };
    let header = match header::read(at.bytes, at.start) {
        Ok(header) => header,
        Err((pos, problem)) => {
            let message = format!("numpy.load refuses {}: {problem}", name.display());
            cx.report(&NPY_HEADER_INVALID, at.place(pos, None), message);
            return None;
        }
    };
    if !cx.spend(1, at.place(at.start, None)) {
        return None;
    }
    let decl = at.place(at.start, None).offset.unwrap_or(0);
    let mut tensor = Tensor::declared(name, header.element(), header.shape.clone(), decl);
    let len = header.data_len();
    let mut end = header.data.checked_add(len.unwrap_or(0));
    if header.is_object() {
        let message = format!("numpy.load refuses {} unless allow_pickle=True, which runs its pickle: an object array ({}), whose data is a pickle", tensor.name.display(), header.descr);
        cx.report(&OBJECT_ARRAY, at.place(at.start, Some(item)), message);
        let src = Source {
            bytes: at.bytes,
            start: header.data,
            located: at.located.clone(),
            item: at.about_tensor.then_some(item),
            nth: 0,
        };
        let options = Options::reporting(false);
        let p = pickle::read(cx, &src, options);
        pickle::judge(cx, &src, &p, options, &|_| None);
        end = Some(p.end);
        tensor.byte_size = None;
        tensor.storage = Storage::Inline;
    } else {
        let offset = match at.located {
            Located::File => Some(header.data),
            Located::Data { .. } | Located::Member { .. } => None,
        };
        tensor = match (offset, len) {
            (Some(offset), Some(len)) => tensor.stored(
                at.storage,
                DataRange {
                    file: 0,
                    offset,
                    len,
                },
            ),
            _ => Tensor {
                storage: Storage::Inline,
                ..tensor
            },
        };
    }
    let swapped = matches!(&header.dtype, header::Dtype::Simple(d) if d.order == b'>');
    if swapped && tensor.data.is_some() {
        cx.inv.big_endian.push(index);
    }
    cx.inv.tensors.push(tensor);
    Some((header, end))
}
