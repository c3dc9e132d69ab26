//! Pairing a program with its `.ptd` data files, and resolving its external tensors
//! against them. A `.pte` does not name its data files: they come from `--data`, or from the
//! program's folder ([`super::beside`]), where the runtime never looks by itself. A file
//! found there is paired only if the program needs something it holds, so that another
//! program's data file never turns a valid program into an error.

use super::beside;
use super::data_file;
use super::entries::Entry;
use super::keys::KeyIds;
use super::program::Program;
use super::rules::{
    DATA_FILE_NOT_PAIRED, DATA_FILE_UNUSED, DUPLICATE_KEY, EXTERNAL_KEY_MISSING,
    EXTERNAL_LAYOUT_MISMATCH, UNUSED_KEY,
};
use crate::check::{Finding, Findings, Item, Place, Severity};
use crate::formats::shared::budget::Budget;
use crate::formats::shared::context::Context;
use crate::formats::shared::datafiles::rules::{cannot_open, DATA_FILE_MISSING};
use crate::formats::ReadOptions;
use crate::inventory::hashing::{HashMap, HashSet};
use crate::inventory::{FileEntry, FileId, FileRole, Inventory, NewKind};
use crate::source::ModelFile;
use std::path::{Path, PathBuf};

/// A data file read for the program, not yet part of its inventory.
struct Candidate {
    sub: Inventory,
    sub_out: Findings,
    entries: Vec<Entry>,
    /// Named with `--data`.
    explicit: bool,
    /// How it was reached, reported with it (file 0 stands for it).
    notes: Vec<Finding>,
}

impl Candidate {
    /// The path it is shown by.
    fn path(&self) -> &Path {
        &self.sub.main_file().path
    }
}

/// A data file paired with the program.
struct Paired {
    file: FileId,
    entries: Vec<Entry>,
    explicit: bool,
}

/// Pairs `model` with its data files and resolves the program's external tensors. A program
/// with neither external tensors nor delegates needs no data file and looks for none.
pub fn resolve(cx: &mut Context<'_>, options: &ReadOptions, program: &Program) {
    let (model, budget, inv, out) = (cx.file, &mut cx.budget, &mut cx.inv, &mut *cx.out);
    let candidates = if !options.data.is_empty() {
        let given = options
            .data
            .iter()
            .filter_map(|path| given(path, model, out));
        let given: Vec<_> = given
            .map(|file| (file.path().to_owned(), file, Vec::new()))
            .collect();
        read_all(given, true, budget, out)
    } else if !program.externals.is_empty() || !program.delegates.is_empty() {
        let found = beside::find(model, out).into_iter();
        read_all(
            found.map(|f| (f.path, f.file, f.notes)).collect(),
            false,
            budget,
            out,
        )
    } else {
        Vec::new()
    };
    let mut ids = KeyIds::default();
    let chosen = choose(program, model.path(), candidates, &mut ids, out);
    let paired: Vec<Paired> = chosen.into_iter().map(|c| absorb(inv, c, out)).collect();
    link(program, &paired, inv, &mut ids, out);
}

/// Opens a data file named with `--data`; reports one that cannot be opened.
fn given(path: &Path, model: &ModelFile, out: &mut Findings) -> Option<ModelFile> {
    let data = match ModelFile::open(path) {
        Ok(data) => data,
        Err(e) => {
            out.add(&DATA_FILE_MISSING, Place::FILE, cannot_open(path, &e));
            return None;
        }
    };
    if data.identity().is_some() && data.identity() == model.identity() {
        return None;
    }
    Some(data)
}

/// Reads the `.ptd` files among `files` (each with the path it is shown by and its notes),
/// each into its own inventory, paying from `budget`; a `--data` file that is no `.ptd` is
/// reported.
fn read_all(
    files: Vec<(PathBuf, ModelFile, Vec<Finding>)>,
    explicit: bool,
    budget: &mut Budget,
    out: &mut Findings,
) -> Vec<Candidate> {
    let mut read = Vec::new();
    for (path, file, notes) in files {
        if file.bytes().get(4..6) != Some(b"FT") {
            if explicit {
                let shown = crate::escape::path(file.path());
                let message = format!("data file {shown} is not an ExecuTorch .ptd file");
                out.add(&DATA_FILE_UNUSED, Place::FILE, message);
            }
            continue;
        }
        let mut sub_out = Findings::default();
        budget.add_file(file.bytes().len() as u64);
        // The data file is read as a file of its own, paying from the program's budget.
        let mut cx = Context::new(&super::ExecuTorch, &file, &mut sub_out);
        if let Some(main) = cx.inv.files.first_mut() {
            main.path = path;
        }
        cx.budget = std::mem::take(budget);
        let entries = data_file::read(&mut cx);
        *budget = cx.budget;
        let sub = cx.inv;
        // What was read from a file that changed meanwhile describes no file at all.
        if let Some(change) = file.changed() {
            sub_out.add(&DATA_FILE_MISSING, Place::FILE, change.to_string());
        }
        read.push(Candidate {
            entries: entries.unwrap_or_default(),
            sub,
            sub_out,
            explicit,
            notes,
        });
    }
    read
}

/// The candidates the program is paired with: every file named with `--data`, or of those
/// found beside it each that holds a key of an external tensor that no file chosen before
/// holds (files that hold the most are looked at first) and, for a program with delegates
/// (whose blobs name the keys they load only inside their own data), the file with the
/// program's name if it holds blob keys and none that the program or a chosen file holds. A
/// file not chosen is noted (ET027) when it has the program's name, shares keys with it or
/// has errors of its own.
fn choose(
    program: &Program,
    model: &Path,
    candidates: Vec<Candidate>,
    ids: &mut KeyIds,
    out: &mut Findings,
) -> Vec<Candidate> {
    if candidates.iter().all(|c| c.explicit) {
        return candidates;
    }
    let needed: HashSet<u32> = program.externals.iter().map(|e| ids.id(&e.key)).collect();
    let own: HashSet<u32> = program.named.iter().map(|e| ids.id(&e.key)).collect();
    let stem = |c: &Candidate| c.path().file_stem() == model.file_stem();
    let mut keyed: Vec<(Candidate, Vec<u32>)> = candidates
        .into_iter()
        .map(|c| {
            let keys = c.entries.iter().map(|e| ids.id(&e.key)).collect();
            (c, keys)
        })
        .collect();
    let wanted = |keys: &[u32]| keys.iter().filter(|k| needed.contains(k)).count();
    keyed.sort_by_cached_key(|(c, keys)| (std::cmp::Reverse(wanted(keys)), !stem(c)));
    // Which file supplies each key: the program (None) or a chosen file.
    let mut supplied: HashMap<u32, Option<usize>> = own.iter().map(|&k| (k, None)).collect();
    let mut chosen: Vec<Candidate> = Vec::new();
    for (c, keys) in keyed {
        let needs = keys
            .iter()
            .any(|k| needed.contains(k) && !supplied.contains_key(k));
        let blob = (c.entries.iter().zip(&keys))
            .any(|(e, k)| e.desc.is_none() && !supplied.contains_key(k));
        let shared = keys.iter().position(|k| supplied.contains_key(k));
        if needs || (!program.delegates.is_empty() && stem(&c) && blob && shared.is_none()) {
            for &k in &keys {
                supplied.entry(k).or_insert(Some(chosen.len()));
            }
            chosen.push(c);
            continue;
        }
        let errors = (c.sub_out.iter())
            .filter(|f| f.severity == Severity::Error)
            .count();
        let key = |i: usize| c.entries.get(i).map(|e| e.key.clone()).unwrap_or_default();
        let by = |i: usize| keys.get(i).and_then(|k| supplied.get(k)).copied().flatten();
        let why = match shared {
            Some(i) => match by(i).and_then(|f| chosen.get(f)) {
                None => format!(
                    "it holds keys of the program's own named data (such as \"{}\"), so it belongs to another export",
                    key(i)
                ),
                Some(other) => format!(
                    "keys it holds (such as \"{}\") come from {} already",
                    key(i),
                    crate::escape::path(other.path())
                ),
            },
            None if errors > 0 => format!("it has {errors} errors of its own"),
            None if stem(&c) => "it holds nothing the program needs".to_owned(),
            None => continue,
        };
        let message = format!(
            "data file {} beside the program is not paired with it: {why}; check it with its own program, or pass it with --data",
            crate::escape::path(c.path())
        );
        out.add(&DATA_FILE_NOT_PAIRED, Place::FILE, message);
    }
    chosen
}

/// Moves candidate `c` (its file 0) into `inv` as a new file, with its sections, tensors
/// and findings, and the notes on how it was reached.
fn absorb(inv: &mut Inventory, c: Candidate, out: &mut Findings) -> Paired {
    let Candidate {
        sub,
        sub_out,
        entries,
        explicit,
        notes,
        ..
    } = c;
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
    for mut f in notes.into_iter().chain(sub_out.into_vec()) {
        f.file = file;
        if let Some(Item::Tensor { tensor }) = f.item {
            f.item = Some(Item::Tensor {
                tensor: tensor + base,
            });
        }
        out.push(f);
    }
    let entries = entries
        .into_iter()
        .map(|e| Entry {
            tensor: e.tensor + base,
            ..e
        })
        .collect();
    Paired {
        file,
        entries,
        explicit,
    }
}

/// Links each external tensor to the entry that holds its key, and reports missing keys,
/// layouts that differ, duplicate and unused keys and data files no one uses.
fn link(
    program: &Program,
    paired: &[Paired],
    inv: &mut Inventory,
    ids: &mut KeyIds,
    out: &mut Findings,
) {
    let mut keys: HashMap<u32, (FileId, &Entry)> = HashMap::default();
    for e in &program.named {
        keys.entry(ids.id(&e.key)).or_insert((0, e));
    }
    for p in paired {
        for e in &p.entries {
            let id = ids.id(&e.key);
            match keys.get(&id) {
                Some(&(first, _)) if first != p.file => {
                    let other = match inv.files.get(first) {
                        Some(file) if first != 0 => file.path.display().to_string(),
                        _ => "the program".to_owned(),
                    };
                    let message = format!(
                        "key \"{}\" is also in {}; the runtime refuses duplicate keys",
                        e.key,
                        crate::escape::sanitize(&other)
                    );
                    let place = Place::at(inv.tensors.get(e.tensor).and_then(|t| t.decl_offset))
                        .in_file(p.file)
                        .item(Item::Tensor { tensor: e.tensor });
                    out.add(&DUPLICATE_KEY, place, message);
                }
                Some(_) => {}
                None => {
                    keys.insert(id, (p.file, e));
                }
            }
        }
    }
    let mut used: HashSet<u32> = HashSet::default();
    for ext in &program.externals {
        let id = ids.id(&ext.key);
        let place = Place::at(ext.at).item(Item::Node {
            graph: ext.graph,
            node: ext.node,
        });
        let Some(&(file, entry)) = keys.get(&id) else {
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
        used.insert(id);
        match &entry.desc {
            None => {
                let message = format!("key \"{}\" in {} is an opaque blob with no tensor_layout, so it cannot back a tensor", ext.key, where_(inv, file));
                out.add(&EXTERNAL_LAYOUT_MISMATCH, place, message);
            }
            Some(desc) if *desc != ext.desc && !same_layout(desc, &ext.desc) => {
                let message = format!(
                    "key \"{}\" in {} is scalar type {} with sizes {:?} and dim_order {:?}; the program expects {} with sizes {:?} and dim_order {:?}",
                    ext.key, where_(inv, file),
                    super::dtypes::name(desc.scalar_type), desc.sizes, desc.dim_order.as_deref().unwrap_or_default(),
                    super::dtypes::name(ext.desc.scalar_type), ext.desc.sizes, ext.desc.dim_order.as_deref().unwrap_or_default(),
                );
                out.add(&EXTERNAL_LAYOUT_MISMATCH, place, message);
            }
            Some(_) => {}
        }
        if let Some(g) = inv.graphs.get_mut(ext.graph) {
            let tensor = entry.tensor;
            g.nodes.set_kind(ext.node, NewKind::Constant { tensor });
        }
    }
    for p in paired {
        let mut useful = !program.delegates.is_empty();
        for e in &p.entries {
            let id = ids.id(&e.key);
            useful |= used.contains(&id);
            if e.desc.is_none() || used.contains(&id) {
                continue;
            }
            let message = format!("no method of the program uses tensor \"{}\"", e.key);
            let place = Place::at(inv.tensors.get(e.tensor).and_then(|t| t.decl_offset))
                .in_file(p.file)
                .item(Item::Tensor { tensor: e.tensor });
            out.add(&UNUSED_KEY, place, message);
        }
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
