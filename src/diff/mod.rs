//! `rtenx diff`: what changed between two models, of one format or of two.
//!
//! Both sides are [`Analysis`]es, so nothing here names a format. A summary gives the totals
//! from A to B; each section then compares one aspect: the files, the interface (graph
//! inputs and outputs), the graph (operator counts, then operators paired by name and type,
//! then by what they read and write), the tensors, their values (only when asked: the one
//! part that reads tensor bytes) and the findings.

mod files;
mod findings;
mod graph;
mod interface;
mod pairing;
mod summary;
mod tensors;
pub mod text;
mod topology;
mod values;

pub use files::{FilesDiff, MetadataChange};
pub use findings::{FindingKey, FindingsDiff};
pub use graph::{GraphDiff, HeldTensor, NodeChange, NodeRef, OpCount};
pub use interface::{InterfaceDiff, Port, PortChange};
pub use summary::{Operators, Summary};
pub use tensors::{Rename, RenameRule, RenamedBy, TensorChange, TensorSide, TensorsDiff};
pub use values::{Numeric, ValueChange, ValuesDiff};

use crate::analysis::Analysis;
use serde::Serialize;
use std::collections::HashSet;
use topology::Topology;

/// Version of the diff JSON layout (`schemas/diff.schema.json`).
pub const SCHEMA_VERSION: u32 = 1;

/// What to compare beyond structure.
#[derive(Debug, Default)]
pub struct Options {
    /// Name mappings applied to A's tensor names before they are matched with B's.
    pub renames: Vec<RenameRule>,
    /// Compare tensor bytes, and float values numerically.
    pub values: bool,
    /// The largest absolute difference between two float elements that still counts as
    /// equal.
    pub tolerance: f64,
}

/// A value on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change<T> {
    /// A's.
    pub a: T,
    /// B's.
    pub b: T,
}

impl<T: PartialEq> Change<T> {
    /// The pair, if the two differ.
    pub fn of(a: T, b: T) -> Option<Self> {
        (a != b).then_some(Change { a, b })
    }
}

/// One aspect of a diff, as `--fail-on` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Aspect {
    /// Format, version, size, producer or metadata.
    Files,
    /// Graph inputs and outputs.
    Interface,
    /// Operator counts and nodes.
    Graph,
    /// Tensor names, dtypes, shapes and sizes.
    Tensors,
    /// Tensor values beyond --tolerance (with --values).
    Values,
    /// New or fixed findings.
    Findings,
}

/// Everything that differs between A and B.
#[derive(Debug, Serialize)]
pub struct Diff {
    /// Operators, parameters and bytes from A to B.
    pub summary: Summary,
    /// The files themselves.
    pub files: FilesDiff,
    /// Graph inputs and outputs.
    pub interface: InterfaceDiff,
    /// Operators and nodes.
    pub graph: GraphDiff,
    /// Constant tensors.
    pub tensors: TensorsDiff,
    /// Tensor values; only with [`Options::values`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<ValuesDiff>,
    /// Findings that B has and A had not, and the other way round.
    pub findings: FindingsDiff,
}

impl Diff {
    /// Compares `a` with `b`.
    pub fn of(a: &Analysis, b: &Analysis, options: &Options) -> Diff {
        let (a_inv, b_inv) = (&a.inventory, &b.inventory);
        let (ta, tb) = (Topology::of(a_inv), Topology::of(b_inv));
        let mut tensors = tensors::Matching::by_name(a_inv, b_inv, options);
        let pairing = pairing::pair(&ta, &tb, &tensors.pairs);
        tensors.by_operator(&pairing.tensors(&ta, &tb));
        let tensors = tensors.finish();
        let mut differing = HashSet::new();
        let values = options.values.then(|| {
            let (mut values, pairs) =
                values::compare(a_inv, b_inv, &tensors.pairs, options.tolerance);
            differing.extend(pairs);
            values.unpaired_a = tensors.diff.removed.len() as u64;
            values.unpaired_b = tensors.diff.added.len() as u64;
            values
        });
        let graph = graph::compare((&ta, &tb), &pairing, &differing);
        Diff {
            summary: Summary::of(a_inv, b_inv, &graph),
            files: files::compare(a_inv, b_inv),
            interface: interface::compare(a_inv, b_inv),
            graph,
            tensors: tensors.diff,
            values,
            findings: findings::compare(a, b),
        }
    }

    /// What `shown` has that `other` has not (added) or has otherwise (changed), as
    /// `inspect --diff` marks it: the diff of `other` (as A) and `shown` (as B).
    pub fn against(shown: &Analysis, other: &Analysis) -> Diff {
        Diff::of(other, shown, &Options::default())
    }

    /// Whether the two differ in `aspect`.
    pub fn differs(&self, aspect: Aspect) -> bool {
        match aspect {
            Aspect::Files => !self.files.is_empty(),
            Aspect::Interface => !self.interface.is_empty(),
            Aspect::Graph => !self.graph.is_empty(),
            Aspect::Tensors => !self.tensors.is_empty(),
            Aspect::Values => self.values.as_ref().is_some_and(|v| !v.is_empty()),
            Aspect::Findings => !self.findings.is_empty(),
        }
    }

    /// Writes the diff as JSON, with the two paths and the aspects that differ.
    pub fn write_json<W: std::io::Write>(
        &self,
        mut w: W,
        paths: [&std::path::Path; 2],
        different: bool,
    ) -> std::io::Result<()> {
        #[derive(Serialize)]
        struct Document<'a> {
            schema_version: u32,
            generator: &'static str,
            a: crate::escape::JsonPath<'a>,
            b: crate::escape::JsonPath<'a>,
            different: bool,
            #[serde(flatten)]
            diff: &'a Diff,
        }
        let doc = Document {
            schema_version: SCHEMA_VERSION,
            generator: concat!("rtenx ", env!("CARGO_PKG_VERSION")),
            a: crate::escape::JsonPath(paths[0]),
            b: crate::escape::JsonPath(paths[1]),
            different,
            diff: self,
        };
        crate::escape::write_json(&mut w, &doc, true)?;
        w.write_all(b"\n")
    }
}
