//! Tensor values: the one pass that reads what tensors hold, shared by `check --values` (the
//! VX rules: NaN, infinities, dead and broken weights), `dump --values` (figures per tensor),
//! the browser's statistics of a tensor and `diff --values` (which compares values element by
//! element through [`decoder`] and [`Files`]).
//!
//! Every tensor's bytes are read once, through the memory map, in chunks counted on every
//! core ([`scan`]); floating-point elements are told apart by their bits with integer
//! operations that the compiler vectorises ([`float`]), and quantised blocks by the scales
//! their [`BlockType`](crate::inventory::BlockType) places ([`blocks`]). Nothing here names a
//! format: the inventory's data ranges, dtypes and block layouts are all it reads.

mod blocks;
mod decode;
pub mod float;
mod histogram;
mod moments;
mod report;
pub mod rules;
mod scan;
mod source;
mod stats;
mod tally;

pub use decode::{decoder, Decode};
pub use histogram::{Histogram, BINS};
pub use moments::Moments;
pub use report::check;
pub use rules::GROUP;
pub use scan::{scan, Kind, Options, Read, Scan, CHUNK};
pub use source::{release, Files};
pub use stats::{stats, Stats, Unit};
pub use tally::Tally;
