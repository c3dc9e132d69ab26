//! `rtenx dump --json`: the whole inventory plus findings as one JSON document.
//!
//! The document is serialized straight to the writer, so no JSON tree is built in memory.
//! The layout is documented in the README ("JSON schema") and `schemas/dump.schema.json`, which
//! `tests/commands/schemas.rs` holds to what this writes. Compatibility rule: within one
//! `schema_version`, fields and enum values may be added but are never removed, renamed or
//! given another meaning; consumers must ignore what they do not know.

use crate::analysis::Analysis;
use crate::check::{Finding, Item, Severity};
use crate::inventory::{FileId, GraphId, Inventory, Scope, ScopeTree, Tensor, Totals};
use crate::values::{Scan, Stats};
use serde::Serialize;
use std::io::{self, Write};

/// Version of the dump layout.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    generator: &'static str,
    #[serde(flatten)]
    inventory: &'a Inventory,
    tensors: Vec<TensorOut<'a>>,
    totals: Totals,
    operators: Vec<OpCount<'a>>,
    /// The scope tree, the whole model first (see [`ScopeTree`]).
    scopes: Vec<Scope>,
    findings: Vec<FindingOut<'a>>,
}

/// A tensor, whose graph is null in a model with no graph (weights only), and with
/// `dump --values` the figures of its values.
#[derive(Serialize)]
struct TensorOut<'a> {
    #[serde(flatten)]
    tensor: &'a Tensor,
    graph: Option<GraphId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<ValuesOut>,
}

/// The figures of a tensor's values, or why they were not read.
#[derive(Serialize)]
#[serde(untagged)]
enum ValuesOut {
    Read(Stats),
    NotRead { not_read: &'static str },
}

#[derive(Serialize)]
struct OpCount<'a> {
    op_type: &'a str,
    count: u64,
}

#[derive(Serialize)]
struct FindingOut<'a> {
    code: &'static str,
    name: &'static str,
    severity: Severity,
    file: FileId,
    offset: Option<u64>,
    item: Option<Item>,
    message: &'a str,
}

impl<'a> From<&'a Finding> for FindingOut<'a> {
    fn from(f: &'a Finding) -> Self {
        FindingOut {
            code: f.rule.code,
            name: f.rule.name,
            severity: f.severity,
            file: f.file,
            offset: f.offset,
            item: f.item,
            message: &f.message,
        }
    }
}

/// Writes `analysis` as JSON to `w`, followed by a newline.
pub fn write<W: Write>(w: W, analysis: &Analysis) -> io::Result<()> {
    write_with_values(w, analysis, None)
}

/// Like [`write`], with the figures of each tensor's values that `values` read (`dump
/// --values`).
pub fn write_with_values<W: Write>(
    mut w: W,
    analysis: &Analysis,
    values: Option<&Scan>,
) -> io::Result<()> {
    let inv = &analysis.inventory;
    let values_of = |id| match values?.of(id)? {
        Ok(read) => Some(ValuesOut::Read(Stats::of(read))),
        Err(not_read) => Some(ValuesOut::NotRead { not_read }),
    };
    let doc = Document {
        schema_version: SCHEMA_VERSION,
        generator: concat!("rtenx ", env!("CARGO_PKG_VERSION")),
        inventory: inv,
        tensors: (inv.tensors.iter().enumerate())
            .map(|(id, tensor)| TensorOut {
                tensor,
                graph: Some(tensor.graph).filter(|&g| g < inv.graphs.len()),
                values: values_of(id),
            })
            .collect(),
        totals: inv.totals(),
        operators: inv
            .operator_histogram()
            .into_iter()
            .map(|(op_type, count)| OpCount { op_type, count })
            .collect(),
        scopes: ScopeTree::build(inv).scopes,
        findings: analysis.findings.iter().map(FindingOut::from).collect(),
    };
    crate::escape::write_json(&mut w, &doc, false)?;
    w.write_all(b"\n")
}
