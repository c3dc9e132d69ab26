//! External data references: parsing the key/value entries and resolving data files.

use super::paths;
use super::rules::*;
use crate::check::{Finding, Findings, Item, Rule};
use crate::inventory::{ByteRange, FileEntry, FileId, FileRole, Inventory, Section, SectionKind};
use crate::source::FileIdentity;
use crate::text::{excerpt, sanitize};
use ahash::HashSet;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Characters of a key or value shown in a message.
const SHOWN: usize = 100;

/// The parsed `external_data` entries of one tensor.
#[derive(Debug, Default)]
pub struct ExternalRef<'a> {
    /// `location`, if present, as the bytes the model stores.
    pub location: Option<&'a [u8]>,
    /// `offset`, if present and valid.
    pub offset: Option<u64>,
    /// `length`, if present and valid.
    pub length: Option<u64>,
    /// `checksum`, if present.
    pub checksum: Option<String>,
    /// False if an entry was unusable, so the tensor's range is unknown.
    pub usable: bool,
}

/// Parses `entries`, reporting unknown, duplicate and malformed keys against `item`.
pub fn parse<'a>(
    entries: &[(&'a [u8], &'a [u8])],
    item: Item,
    out: &mut Findings,
) -> ExternalRef<'a> {
    let mut r = ExternalRef {
        usable: true,
        ..ExternalRef::default()
    };
    let mut seen = HashSet::default();
    for &(key, value) in entries {
        let key_text = || excerpt(key, SHOWN);
        if !seen.insert(key) {
            let key_text = key_text();
            out.push(Finding::new(&DUPLICATE_EXTERNAL_KEY, format!(
                "external_data key \"{key_text}\" appears more than once; readers disagree on which value wins"))
                .item(item));
            r.usable = false;
        }
        match key {
            b"location" => r.location = Some(value),
            b"offset" => r.offset = number("offset", value, item, out, &mut r.usable),
            b"length" => r.length = number("length", value, item, out, &mut r.usable),
            b"checksum" => r.checksum = Some(String::from_utf8_lossy(value).into_owned()),
            _ => {
                let key_text = key_text();
                out.push(Finding::new(&UNKNOWN_EXTERNAL_KEY, format!(
                "external_data key \"{key_text}\" is not location, offset, length or checksum; onnxruntime refuses it"))
                .item(item))
            }
        }
    }
    if r.location.is_none() {
        out.push(Finding::new(&LOCATION_MISSING, "EXTERNAL tensor has no location key").item(item));
        r.usable = false;
    }
    r
}

/// A plain ASCII decimal that fits in u64, or a finding.
fn number(
    key: &str,
    value: &[u8],
    item: Item,
    out: &mut Findings,
    usable: &mut bool,
) -> Option<u64> {
    let parsed = (!value.is_empty() && value.iter().all(u8::is_ascii_digit))
        .then(|| std::str::from_utf8(value).ok()?.parse::<u64>().ok())
        .flatten();
    if parsed.is_none() {
        *usable = false;
        let shown = excerpt(value, SHOWN);
        out.push(
            Finding::new(
                &OFFSET_LENGTH_INVALID,
                format!(
                    "external_data {key} = \"{shown}\" is not a decimal integer from 0 to {}",
                    u64::MAX
                ),
            )
            .item(item),
        );
    }
    parsed
}

/// What checking a location found: the file (if usable) and the problems to report for
/// every tensor that uses it.
struct Outcome {
    file: Option<FileId>,
    problems: Vec<(&'static Rule, String)>,
}

/// The data files a model uses, resolved once per distinct location.
pub struct DataFiles {
    /// Canonical folder of the model, or why it could not be found.
    model_dir: Result<PathBuf, String>,
    resolved: HashMap<Vec<u8>, Outcome>,
    /// The file each canonical path became, so that `w.data` and `./w.data` are one file and
    /// their tensors' ranges are compared with each other.
    by_path: HashMap<PathBuf, FileId>,
    /// The same by device and inode, so that two hard links to one file are one file too.
    by_identity: HashMap<FileIdentity, FileId>,
    /// What each data file was when checked, for `--verify-checksums` to open the same one.
    identities: HashMap<FileId, FileIdentity>,
    /// The model file's own identity, which no location may lead to.
    model: Option<FileIdentity>,
}

impl DataFiles {
    /// Data files relative to the model at `model_path`.
    pub fn new(model_path: &Path) -> Self {
        let parent = model_path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let model_dir =
            std::fs::canonicalize(parent).map_err(|e| format!("{}: {e}", parent.display()));
        let model = std::fs::metadata(model_path)
            .ok()
            .and_then(|m| FileIdentity::of(&m));
        DataFiles {
            model_dir,
            resolved: HashMap::new(),
            by_path: HashMap::new(),
            by_identity: HashMap::new(),
            identities: HashMap::new(),
            model,
        }
    }

    /// The identity each usable data file had when it was checked.
    pub fn identities(&self) -> &HashMap<FileId, FileIdentity> {
        &self.identities
    }

    /// The file id of `location`, or `None` if it is unsafe or missing. The location is
    /// checked the first time it is seen; its problems are reported against every `item`
    /// that uses it.
    pub fn file(
        &mut self,
        location: &[u8],
        item: Item,
        inv: &mut Inventory,
        out: &mut Findings,
    ) -> Option<FileId> {
        if !self.resolved.contains_key(location) {
            let outcome = self.check(&paths::Location::new(location), inv);
            self.resolved.insert(location.to_owned(), outcome);
        }
        let outcome = self.resolved.get(location)?;
        for (rule, message) in &outcome.problems {
            let finding = Finding::new(rule, message.clone()).item(item);
            out.push(match outcome.file {
                Some(file) => finding.in_file(file),
                None => finding,
            });
        }
        outcome.file
    }

    fn check(&mut self, location: &paths::Location<'_>, inv: &mut Inventory) -> Outcome {
        let mut problems = Vec::new();
        // Locations and paths in the messages are escaped already; the model's own folder is not.
        let mut note =
            |p: paths::Problem| problems.push((p.rule, sanitize(&p.message).into_owned()));
        if let Err(p) = paths::check_lexically(location) {
            note(p);
            return Outcome {
                file: None,
                problems,
            };
        }
        if let Some(message) = paths::not_portable(location) {
            note(paths::Problem {
                rule: &LOCATION_NOT_PORTABLE,
                message,
            });
        }
        if let Some(message) = paths::rten_refuses(location) {
            note(paths::Problem {
                rule: &RTEN_REFUSES_LOCATION,
                message,
            });
        }
        let resolved = match &self.model_dir {
            Ok(dir) => paths::resolve(dir, location),
            Err(e) => Err(paths::Problem {
                rule: &DATA_FILE_MISSING,
                message: format!("cannot resolve \"{}\": model folder {e}", location.shown()),
            }),
        };
        let resolved = match resolved {
            Ok(r) => r,
            Err(p) => {
                note(p);
                return Outcome {
                    file: None,
                    problems,
                };
            }
        };
        resolved.warnings.into_iter().for_each(&mut note);
        if resolved.identity.is_some() && resolved.identity == self.model {
            note(paths::Problem {
                rule: &LOCATION_IS_MODEL,
                message: format!(
                    "location \"{}\" leads to the model file itself",
                    location.shown()
                ),
            });
            return Outcome {
                file: None,
                problems,
            };
        }
        let known = resolved.identity.and_then(|i| self.by_identity.get(&i));
        if let Some(&id) = known.or_else(|| self.by_path.get(&resolved.path)) {
            return Outcome {
                file: Some(id),
                problems,
            };
        }
        let id = inv.files.len();
        self.by_path.insert(resolved.path.clone(), id);
        if let Some(identity) = resolved.identity {
            self.identities.insert(id, identity);
            self.by_identity.insert(identity, id);
        }
        inv.files.push(FileEntry {
            path: resolved.path,
            size: Some(resolved.size),
            role: FileRole::ExternalData,
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
        }
    }
}
