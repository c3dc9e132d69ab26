//! Pairing a program with its `.ptd` data files, and resolving its external tensors
//! against them. A `.pte` does not name its data files: they come from `--data`, or from the
//! program's folder.

use super::data_file;
use super::entries::Entry;
use super::program::Program;
use super::rules::{
    DATA_FILE_UNUSED, DUPLICATE_KEY, EXTERNAL_KEY_MISSING, EXTERNAL_LAYOUT_MISMATCH, UNUSED_KEY,
};
use crate::check::{Findings, Item, Place};
use crate::formats::shared::budget::Budget;
use crate::formats::shared::datafiles::rules::DATA_FILE_MISSING;
use crate::formats::ReadOptions;
use crate::inventory::{FileEntry, FileFormat, FileId, FileRole, Inventory, Name, NodeKind};
use crate::source::ModelFile;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Data files a folder scan opens at most.
const MAX_CANDIDATES: usize = 64;

/// A data file paired with the program.
struct Paired {
    file: FileId,
    entries: Vec<Entry>,
    explicit: bool,
}

/// Pairs `model` with its data files and resolves the program's external tensors.
pub fn resolve(
    model: &ModelFile,
    options: &ReadOptions,
    program: &Program,
    budget: &mut Budget,
    inv: &mut Inventory,
    out: &mut Findings,
) {
    let needed: HashSet<&Name> = program.externals.iter().map(|e| &e.key).collect();
    let explicit = !options.data.is_empty();
    let candidates = if explicit {
        options.data.to_vec()
    } else {
        beside(model.path())
    };
    let mut paired = Vec::new();
    for path in candidates {
        let Some(data) = open(&path, explicit, model, out) else {
            continue;
        };
        let mut sub = Inventory::of_model(FileFormat::Read("executorch"), &data);
        let mut sub_out = Findings::default();
        let entries = data_file::read(data.bytes(), &mut sub, budget, &mut sub_out);
        let entries = entries.unwrap_or_default();
        let same_stem = path.file_stem() == model.path().file_stem();
        // Delegates name the blobs they load only inside their own data, so a program with
        // delegates takes every data file beside it that holds blobs.
        let blobs = !program.delegates.is_empty() && entries.iter().any(|e| e.desc.is_none());
        if explicit || same_stem || blobs || entries.iter().any(|e| needed.contains(&e.key)) {
            let (file, base) = absorb(inv, sub, sub_out, out);
            let entries = entries
                .into_iter()
                .map(|e| Entry {
                    tensor: e.tensor + base,
                    ..e
                })
                .collect();
            paired.push(Paired {
                file,
                entries,
                explicit,
            });
        }
    }
    link(program, &paired, inv, out);
}

/// The `.ptd` files in the program's folder, by name, at most [`MAX_CANDIDATES`]; symbolic
/// links are not followed.
fn beside(model: &Path) -> Vec<PathBuf> {
    let dir = model
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(list) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = list
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| crate::formats::extension(p).as_deref() == Some("ptd"))
        .take(MAX_CANDIDATES * 16)
        .collect();
    found.sort();
    found.truncate(MAX_CANDIDATES);
    found
}

/// Opens a data file; reports one named with `--data` that cannot be opened or is no
/// `.ptd`.
fn open(path: &Path, explicit: bool, model: &ModelFile, out: &mut Findings) -> Option<ModelFile> {
    let shown = crate::escape::path(path);
    let data = match ModelFile::open(path) {
        Ok(data) => data,
        Err(e) => {
            if explicit {
                let message = format!("cannot open data file {shown}: {e}");
                out.add(&DATA_FILE_MISSING, Place::FILE, message);
            }
            return None;
        }
    };
    if data.identity().is_some() && data.identity() == model.identity() {
        return None;
    }
    let is_data = data.bytes().get(4..6) == Some(b"FT");
    if !is_data && explicit {
        let message = format!("data file {shown} is not an ExecuTorch .ptd file");
        out.add(&DATA_FILE_UNUSED, Place::FILE, message);
    }
    is_data.then_some(data)
}

/// Moves data file `sub` (its file 0) into `inv` as a new file, with its sections, tensors
/// and findings; returns the new file's id and the id its first tensor got.
fn absorb(
    inv: &mut Inventory,
    sub: Inventory,
    sub_out: Findings,
    out: &mut Findings,
) -> (FileId, usize) {
    let file = inv.files.len();
    let base = inv.tensors.len();
    let main = sub.main_file().clone();
    inv.property(
        "data_file",
        format!("{} ({})", main.path.display(), sub.format_version),
        None,
    );
    inv.files.push(FileEntry {
        role: FileRole::ExternalData,
        ..main
    });
    inv.sections.extend(
        sub.sections
            .into_iter()
            .map(|s| crate::inventory::Section { file, ..s }),
    );
    inv.tensors.extend(sub.tensors.into_iter().map(|mut t| {
        t.data = t.data.map(|d| crate::inventory::DataRange { file, ..d });
        t
    }));
    for mut f in sub_out.into_vec() {
        f.file = file;
        if let Some(Item::Tensor { tensor }) = f.item {
            f.item = Some(Item::Tensor {
                tensor: tensor + base,
            });
        }
        out.push(f);
    }
    (file, base)
}

/// Links each external tensor to the entry that holds its key, and reports missing keys,
/// layouts that differ, duplicate and unused keys and data files no one uses.
fn link(program: &Program, paired: &[Paired], inv: &mut Inventory, out: &mut Findings) {
    let mut keys: HashMap<&Name, (FileId, &Entry)> = HashMap::new();
    for e in &program.named {
        keys.entry(&e.key).or_insert((0, e));
    }
    for p in paired {
        for e in &p.entries {
            match keys.get(&e.key) {
                Some(&(first, _)) if first != p.file => {
                    let other = if first == 0 {
                        "the program".to_owned()
                    } else {
                        inv.files[first].path.display().to_string()
                    };
                    let message = format!(
                        "key \"{}\" is also in {}; the runtime refuses duplicate keys",
                        e.key,
                        crate::escape::sanitize(&other)
                    );
                    let place = Place::at(inv.tensors[e.tensor].decl_offset)
                        .in_file(p.file)
                        .item(Item::Tensor { tensor: e.tensor });
                    out.add(&DUPLICATE_KEY, place, message);
                }
                Some(_) => {}
                None => {
                    keys.insert(&e.key, (p.file, e));
                }
            }
        }
    }
    let mut used: HashSet<&Name> = HashSet::new();
    for ext in &program.externals {
        let place = Place::at(ext.at).item(Item::Node {
            graph: ext.graph,
            node: ext.node,
        });
        let Some(&(file, entry)) = keys.get(&ext.key) else {
            let files = if paired.is_empty() {
                "no .ptd file was given with --data or found beside the program".to_owned()
            } else {
                format!("none of the {} data files holds it", paired.len())
            };
            let message = format!(
                "external tensor \"{}\" is not in any data file: {files}",
                ext.key
            );
            out.add(&EXTERNAL_KEY_MISSING, place, message);
            continue;
        };
        used.insert(&ext.key);
        match &entry.desc {
            None => {
                let message = format!("key \"{}\" in {} is an opaque blob with no tensor_layout, so it cannot back a tensor", ext.key, where_(inv, file));
                out.add(&EXTERNAL_LAYOUT_MISMATCH, place, message);
            }
            Some(desc) if *desc != ext.desc && !same_layout(desc, &ext.desc) => {
                let message = format!(
                    "key \"{}\" in {} is scalar type {} with sizes {:?} and dim_order {:?}; the program expects {} with sizes {:?} and dim_order {:?}",
                    ext.key, where_(inv, file),
                    super::scalar::name(desc.scalar_type), desc.sizes, desc.dim_order.as_deref().unwrap_or_default(),
                    super::scalar::name(ext.desc.scalar_type), ext.desc.sizes, ext.desc.dim_order.as_deref().unwrap_or_default(),
                );
                out.add(&EXTERNAL_LAYOUT_MISMATCH, place, message);
            }
            Some(_) => {}
        }
        if let Some(node) = inv
            .graphs
            .get_mut(ext.graph)
            .and_then(|g| g.nodes.get_mut(ext.node as usize))
        {
            node.kind = NodeKind::Constant {
                tensor: entry.tensor,
            };
        }
    }
    for p in paired {
        for e in p
            .entries
            .iter()
            .filter(|e| e.desc.is_some() && !used.contains(&e.key))
        {
            let message = format!("no method of the program uses tensor \"{}\"", e.key);
            let place = Place::at(inv.tensors[e.tensor].decl_offset)
                .in_file(p.file)
                .item(Item::Tensor { tensor: e.tensor });
            out.add(&UNUSED_KEY, place, message);
        }
        let useful =
            p.entries.iter().any(|e| used.contains(&e.key)) || !program.delegates.is_empty();
        if p.explicit && !useful {
            let message = format!(
                "no key of data file {} is used by the program, which has no delegates",
                where_(inv, p.file)
            );
            out.add(&DATA_FILE_UNUSED, Place::FILE.in_file(p.file), message);
        }
    }
}

/// Layouts are equal when the dim order is absent from one side and the identity.
fn same_layout(a: &super::desc::Desc, b: &super::desc::Desc) -> bool {
    let identity = |d: &super::desc::Desc| {
        d.dim_order
            .as_ref()
            .is_none_or(|o| o.iter().enumerate().all(|(i, &x)| usize::from(x) == i))
    };
    a.scalar_type == b.scalar_type && a.sizes == b.sizes && identity(a) && identity(b)
}

/// A file's name for messages.
fn where_(inv: &Inventory, file: FileId) -> String {
    let path = inv
        .files
        .get(file)
        .map(|f| f.path.display().to_string())
        .unwrap_or_default();
    if file == 0 {
        "the program".to_owned()
    } else {
        crate::escape::sanitize(&path).into_owned()
    }
}
