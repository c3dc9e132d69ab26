//! The commands' integration tests (`diff`, `sbom`, folders, settings, `generate`, the CI
//! gate and the GitHub Action) and the house's own checks (schemas, generated files, fuzz
//! targets, layering, README), linked as one test binary so the suite builds once rather
//! than thirteen times. `cargo test --test commands diff::` runs one module's tests.

#[path = "../common/mod.rs"]
mod common;

mod action;
mod ci;
mod diff;
mod folders;
mod fuzz_targets;
mod generate;
mod generated;
mod layering;
mod readme;
mod sbom;
mod schemas;
mod settings;
mod shrinking;
