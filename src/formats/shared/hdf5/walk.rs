//! The file's objects from the root group down, each visited once, groups at most
//! [`MAX_DEPTH`] deep.

use super::group::links;
use super::layout::Layout;
use super::object::kind;
use super::rules::HDF5_LOOP;
use super::superblock::File;
use super::types::{dataspace, datatype, Dataspace, Datatype};
use super::{report, Failed, Object, MAX_DEPTH};
use crate::check::Place;
use crate::escape::excerpt;
use crate::formats::shared::bytes::Stop;
use crate::formats::shared::context::Context;
use crate::inventory::hashing::HashSet;

/// One object met on the walk.
#[derive(Debug)]
pub struct Visit<'a> {
    /// Its path from the root, names joined by `/` (empty for the root).
    pub path: Vec<u8>,
    /// Its object header.
    pub object: Object<'a>,
}

/// What a dataset is: its element type, dimensions and layout.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Its element type.
    pub datatype: Datatype,
    /// Its dimensions.
    pub dataspace: Dataspace,
    /// Where its bytes are.
    pub layout: Layout,
    /// Whether a filter pipeline (compression, checksums) applies to its chunks.
    pub filtered: bool,
}

impl<'a> Visit<'a> {
    /// The dataset the object is, if it is one.
    pub fn dataset(&self, file: &File<'a>) -> Option<Result<Dataset, Failed>> {
        let o = &self.object;
        let (space, types, layout) = (
            o.message(kind::DATASPACE)?,
            o.message(kind::DATATYPE)?,
            o.message(kind::LAYOUT)?,
        );
        let read = || {
            Ok(Dataset {
                datatype: datatype(file, types)?,
                dataspace: dataspace(file, space)?,
                layout: Layout::read(file, layout)?,
                filtered: o.message(kind::FILTERS).is_some(),
            })
        };
        Some(read())
    }
}

/// Visits every object reachable from the root group, parents before children and a
/// group's members in the order it lists them. An object that cannot be read is reported
/// and skipped, with what lies under it; a budget that runs out ends the walk.
pub fn walk<'a>(
    cx: &mut Context<'_>,
    file: &File<'a>,
    mut visit: impl FnMut(&mut Context<'_>, &Visit<'a>),
) {
    let mut seen = HashSet::default();
    // Objects to visit: address, path, depth, and where they were named.
    let mut stack = vec![(file.sb.root, Vec::new(), 0usize, file.sb.base)];
    let mut deep = false;
    while let Some((at, path, depth, from)) = stack.pop() {
        if cx.exhausted() {
            return;
        }
        if !seen.insert(at) {
            continue;
        }
        let object = match Object::read(cx, file, at, from) {
            Ok(object) => object,
            Err(stop) => {
                let out = matches!(stop, Stop::Reported);
                report(cx, stop);
                if out {
                    return;
                }
                continue;
            }
        };
        let group = match links(cx, file, &object) {
            Ok(group) => group,
            Err(stop) => {
                report(cx, stop);
                Vec::new()
            }
        };
        let seen_at = object.at;
        visit(
            cx,
            &Visit {
                path: path.clone(),
                object,
            },
        );
        if group.is_empty() {
            continue;
        }
        if depth >= MAX_DEPTH {
            if !deep {
                let message = format!("the group \"{}\" at {seen_at} is nested {depth} levels deep; rtenx reads groups at most {MAX_DEPTH} levels deep and not its members", excerpt(&path, 200));
                cx.report(&HDF5_LOOP, Place::at(seen_at), message);
                deep = true;
            }
            continue;
        }
        for link in group.iter().rev() {
            let mut child = path.clone();
            if !child.is_empty() {
                child.push(b'/');
            }
            child.extend_from_slice(link.name);
            if !cx
                .budget
                .copy(child.len() as u64, Place::at(link.at), cx.out)
            {
                return;
            }
            stack.push((link.target, child, depth + 1, link.at));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Findings;
    use crate::formats::shared::hdf5::{attributes, GlobalHeap, Superblock};
    use crate::source::ModelFile;

    /// The superblock, the paths (with their datasets' shapes), the string attributes and the
    /// codes of the findings of a fixture, as the walk finds them.
    fn read(path: &str) -> (Superblock, Vec<String>, Vec<String>, Vec<&'static str>) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let model = ModelFile::in_memory(path, std::fs::read(root.join(path)).unwrap());
        let mut out = Findings::default();
        let mut cx = Context::new(&crate::formats::keras::Keras, &model, &mut out);
        let bytes = cx.bytes;
        let base = Superblock::find(bytes).unwrap();
        let file = File {
            bytes,
            sb: Superblock::read(bytes, base).unwrap(),
        };
        let (mut paths, mut attrs, mut heap) = (vec![], vec![], GlobalHeap::default());
        walk(&mut cx, &file, |cx, visit| {
            let shape = visit.dataset(&file).map(|d| d.unwrap().dataspace.dims);
            paths.push(format!("{}{shape:?}", String::from_utf8_lossy(&visit.path)));
            for a in attributes(cx, &file, &visit.object).0 {
                let value = a.string(cx, &file, &mut heap).unwrap().unwrap_or_default();
                let (name, value) = (a.name.to_vec(), value.to_vec());
                attrs.push(format!(
                    "{}={}",
                    String::from_utf8_lossy(&name),
                    String::from_utf8_lossy(&value)
                ));
            }
        });
        let sb = file.sb;
        drop(cx);
        let codes = out.into_vec().iter().map(|f| f.rule.code).collect();
        (sb, paths, attrs, codes)
    }

    #[test]
    fn a_user_block_moves_every_address() {
        let (sb, paths, attrs, codes) = read("tests/fixtures/foreign/weights_userblock.h5");
        assert_eq!((sb.version, sb.base), (0, 512));
        assert_eq!(paths, ["None", "weightSome([2, 2])"]);
        assert!(attrs.is_empty(), "{attrs:?}");
        assert!(codes.is_empty(), "{codes:?}");
    }

    #[test]
    fn old_and_new_style_groups_and_strings_are_read() {
        let (_, paths, attrs, codes) = read("tests/fixtures/foreign/weights.h5");
        assert!(paths.contains(&"fc/biasSome([2])".to_owned()), "{paths:?}");
        assert!(
            attrs.iter().any(|a| a.starts_with("producer=")),
            "{attrs:?}"
        );
        assert!(codes.is_empty(), "{codes:?}");
        // libver="latest": version 2 object headers, link messages.
        let (sb, paths, _, deep) = read("tests/fixtures/keras/bad/HD003-deep-groups.h5");
        assert!(sb.version >= 2);
        assert!(
            paths.iter().any(|p| p.starts_with("g0/g1/g2None")),
            "{paths:?}"
        );
        // The root, layers, vars, and g0 to g63, 64 levels below the root: not their members.
        assert_eq!(paths.len(), 67);
        assert_eq!(deep, ["HD003"]);
    }
}
