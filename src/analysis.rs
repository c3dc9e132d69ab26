//! The pipeline: open, detect, read, run the format-neutral rules.

use crate::check::{generic, Finding, Findings};
use crate::formats::{self, ReadOptions};
use crate::inventory::{FileEntry, FileRole, Inventory};
use crate::source::{ModelFile, OpenError};
use std::path::Path;

/// Everything known about one model file.
#[derive(Debug)]
pub struct Analysis {
    /// The inventory.
    pub inventory: Inventory,
    /// Findings, ordered by file and offset.
    pub findings: Vec<Finding>,
}

/// Opens, reads and checks the model file at `path`.
pub fn analyze(path: &Path) -> Result<Analysis, OpenError> {
    analyze_with(path, &ReadOptions::default())
}

/// Like [`analyze`], with options.
pub fn analyze_with(path: &Path, options: &ReadOptions) -> Result<Analysis, OpenError> {
    let file = ModelFile::open(path)?;
    Ok(analyze_file_with(&file, options))
}

/// Reads and checks an already opened model file.
pub fn analyze_file(file: &ModelFile) -> Analysis {
    analyze_file_with(file, &ReadOptions::default())
}

/// Like [`analyze_file`], with options.
pub fn analyze_file_with(file: &ModelFile, options: &ReadOptions) -> Analysis {
    let mut findings = Findings::default();
    let inventory = match formats::detect(file) {
        Some(format) => format.read(file, options, &mut findings),
        None => {
            let entry = FileEntry {
                path: file.path().to_owned(),
                size: Some(file.bytes().len() as u64),
                role: FileRole::Model,
            };
            let inv = Inventory::new("unknown", "", entry);
            findings.push(Finding::new(&generic::UNKNOWN_FORMAT, unknown_message(file)).at(0));
            inv
        }
    };
    if inventory.format != "unknown" {
        generic::run(&inventory, file.bytes(), &mut findings);
    }
    let mut findings = findings.into_vec();
    findings.sort_by_key(|f| (f.file, f.offset.is_none(), f.offset, f.rule.code));
    Analysis {
        inventory,
        findings,
    }
}

fn unknown_message(file: &ModelFile) -> String {
    let bytes = file.bytes();
    let head: String = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
    match bytes.len() {
        0 => "the file is empty".to_owned(),
        n => format!("{n}-byte file starting with {head} matches no supported format"),
    }
}
