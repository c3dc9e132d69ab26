//! Data files that a model names: where they may be, and which file each one is.
//!
//! Locations come from the model and are hostile. Each distinct location is checked once,
//! lexically ([`location`]) and then on the file system ([`resolve`]), before any data file
//! is touched; its problems are reported against every item that uses it, and the locations
//! in use are listed once each, with how many items use them ([`DataFiles::used`]), for
//! what a format says once per location. Locations that
//! lead to one file (by path or by device and inode) share one inventory file, so overlaps
//! between their tensors are found. Only [`checksum`] reads a data file's bytes.

pub mod checksum;
mod folder;
pub mod location;
mod resolve;
pub mod rules;

use crate::check::{Findings, Place, Rule};
use crate::escape::sanitize;
use crate::inventory::{ByteRange, FileEntry, FileId, FileRole, Inventory, Section, SectionKind};
use crate::source::{FileIdentity, ModelFile, OpenError};
pub use folder::{remote_name, Folder};
pub use location::{Location, Problem};
use rules::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// A format's own rules for the locations its models store, applied with the shared ones.
pub trait LocationRules: Sync {
    /// Refuses a location before the shared rules look at it, such as a runtime's marker
    /// that names no file.
    fn refuse(&self, _location: &Location<'_>) -> Option<Problem> {
        None
    }
}

/// The shared rules alone, for formats that add none of their own.
pub struct SharedRules;

impl LocationRules for SharedRules {}

/// What checking a location found: the file (if usable) and the problems to report for
/// every tensor that uses it.
struct Outcome {
    file: Option<FileId>,
    problems: Vec<(&'static Rule, String)>,
    /// Whether it passed the lexical rules.
    lexical: bool,
}

/// A location and its uses.
struct Uses {
    outcome: Outcome,
    /// Its rank among the locations, by first use.
    order: usize,
    /// Where the first item that uses it is.
    first: Place,
    /// How many items use it.
    count: usize,
}

/// A location that passed the lexical rules, as the model uses it.
pub struct Used<'a> {
    /// The location.
    pub location: Location<'a>,
    /// The first item that uses it, in its data file if it leads to one.
    pub place: Place,
    /// How many items use it.
    pub count: usize,
}

/// The data files a model uses, resolved once per distinct location.
pub struct DataFiles {
    /// What is beside the model: its folder, or its repository's listing.
    folder: Folder,
    /// The name each data file was first found by, beside the model.
    names: HashMap<FileId, PathBuf>,
    resolved: HashMap<Vec<u8>, Uses>,
    /// The file each canonical path became, so that `w.data` and `./w.data` are one file and
    /// their tensors' ranges are compared with each other.
    by_path: HashMap<PathBuf, FileId>,
    /// The same by device and inode, so that two hard links to one file are one file too.
    by_identity: HashMap<FileIdentity, FileId>,
    /// What each data file was when checked, for `--verify-checksums` to open the same one.
    identities: HashMap<FileId, FileIdentity>,
    /// The model file's own identity, which no location may lead to.
    model: Option<FileIdentity>,
    /// The format's own location rules.
    rules: &'static dyn LocationRules,
}

impl DataFiles {
    /// Data files beside `model` ([`Folder`]: its folder, or a remote model's repository),
    /// whose format adds `rules`.
    pub fn new(model: &ModelFile, rules: &'static dyn LocationRules) -> Self {
        let folder = Folder::of(model);
        let identity = match folder {
            Folder::Local { .. } => std::fs::metadata(model.path()).ok(),
            _ => None,
        };
        DataFiles {
            folder,
            names: HashMap::new(),
            resolved: HashMap::new(),
            by_path: HashMap::new(),
            by_identity: HashMap::new(),
            identities: HashMap::new(),
            model: identity.and_then(|m| FileIdentity::of(&m)),
            rules,
        }
    }

    /// What is beside the model.
    pub fn folder(&self) -> &Folder {
        &self.folder
    }

    /// Opens the data file `id` that [`DataFiles::file`] checked: the same file, reached
    /// without following a symlink. One that cannot be opened, or is no longer the file
    /// that was checked, is reported (DX006) and `None`.
    pub fn open(&self, id: FileId, inv: &Inventory, out: &mut Findings) -> Option<ModelFile> {
        match self.reopen(id, inv)? {
            Ok(file) => Some(file),
            Err(e) => {
                let message = format!("cannot open the data file: {e}");
                out.add(&DATA_FILE_MISSING, Place::FILE.in_file(id), message);
                None
            }
        }
    }

    /// Opens the data file `id` as [`DataFiles::open`] does, with an error rather than a
    /// finding (`None` for no such file): for a pass over its bytes, such as a checksum's.
    pub fn reopen(&self, id: FileId, inv: &Inventory) -> Option<Result<ModelFile, OpenError>> {
        let path = &inv.files.get(id)?.path;
        let name = self.names.get(&id).map_or(path.as_path(), PathBuf::as_path);
        Some((self.folder).open(name, path, self.identities.get(&id).copied()))
    }

    /// Reports the data file `id` if it changed while it was read.
    pub fn report_change(file: &ModelFile, id: FileId, out: &mut Findings) {
        if let Some(change) = file.changed() {
            out.add(
                &DATA_FILE_MISSING,
                Place::FILE.in_file(id),
                change.to_string(),
            );
        }
    }

    /// The identity each usable data file had when it was checked.
    pub fn identities(&self) -> &HashMap<FileId, FileIdentity> {
        &self.identities
    }

    /// The file id of `location`, or `None` if it is unsafe or missing. The location is
    /// checked the first time it is seen; its problems are reported at the `place` of every
    /// item that uses it.
    pub fn file(
        &mut self,
        location: &[u8],
        place: Place,
        inv: &mut Inventory,
        out: &mut Findings,
    ) -> Option<FileId> {
        if !self.resolved.contains_key(location) {
            let outcome = self.check(&Location::new(location), inv);
            // A problem in a data file has no offset in it; one with no file stays at `place`.
            let first = match outcome.file {
                Some(file) => place.in_file(file).offset(None),
                None => place,
            };
            let order = self.resolved.len();
            let uses = Uses {
                outcome,
                order,
                first,
                count: 0,
            };
            self.resolved.insert(location.to_owned(), uses);
        }
        let uses = self.resolved.get_mut(location)?;
        uses.count += 1;
        let place = match uses.outcome.file {
            Some(file) => place.in_file(file).offset(None),
            None => place,
        };
        for (rule, message) in &uses.outcome.problems {
            out.add(rule, place, message.clone());
        }
        uses.outcome.file
    }

    /// The locations that passed the lexical rules, in the order of their first use.
    pub fn used(&self) -> Vec<Used<'_>> {
        let mut used: Vec<(usize, Used<'_>)> = (self.resolved.iter())
            .filter(|(_, uses)| uses.outcome.lexical)
            .map(|(location, uses)| {
                let used = Used {
                    location: Location::new(location),
                    place: uses.first,
                    count: uses.count,
                };
                (uses.order, used)
            })
            .collect();
        used.sort_unstable_by_key(|(order, _)| *order);
        used.into_iter().map(|(_, used)| used).collect()
    }

    fn check(&mut self, location: &Location<'_>, inv: &mut Inventory) -> Outcome {
        let mut problems = Vec::new();
        // Locations and paths in the messages are escaped already; the model's own folder is not.
        let mut note = |p: Problem| problems.push((p.rule, sanitize(&p.message).into_owned()));
        if let Some(p) = self.rules.refuse(location) {
            note(p);
            return Outcome {
                file: None,
                problems,
                lexical: false,
            };
        }
        if let Err(p) = location::check_lexically(location) {
            note(p);
            return Outcome {
                file: None,
                problems,
                lexical: false,
            };
        }
        if let Some(message) = location::not_portable(location) {
            note(Problem {
                rule: &LOCATION_NOT_PORTABLE,
                message,
            });
        }
        let resolved = match self.folder.resolve(location) {
            Ok(r) => r,
            Err(p) => {
                note(p);
                return Outcome {
                    file: None,
                    problems,
                    lexical: true,
                };
            }
        };
        resolved.warnings.into_iter().for_each(&mut note);
        if resolved.model || (resolved.identity.is_some() && resolved.identity == self.model) {
            note(Problem {
                rule: &LOCATION_IS_MODEL,
                message: format!(
                    "location \"{}\" leads to the model file itself",
                    location.shown()
                ),
            });
            return Outcome {
                file: None,
                problems,
                lexical: true,
            };
        }
        let known = resolved.identity.and_then(|i| self.by_identity.get(&i));
        if let Some(&id) = known.or_else(|| self.by_path.get(&resolved.path)) {
            return Outcome {
                file: Some(id),
                problems,
                lexical: true,
            };
        }
        let id = inv.files.len();
        self.by_path.insert(resolved.path.clone(), id);
        if let Some(name) = location.path() {
            self.names.insert(id, name.to_owned());
        }
        if let Some(identity) = resolved.identity {
            self.identities.insert(id, identity);
            self.by_identity.insert(identity, id);
        }
        inv.files.push(FileEntry {
            path: resolved.path,
            size: Some(resolved.size),
            role: FileRole::ExternalData,
            identity: resolved.identity,
        });
        inv.sections.push(Section {
            file: id,
            kind: SectionKind::ExternalData,
            range: ByteRange {
                start: 0,
                len: resolved.size,
            },
        });
        Outcome {
            file: Some(id),
            problems,
            lexical: true,
        }
    }
}
