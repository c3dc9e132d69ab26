//! Hostile ExecuTorch files of a few megabytes (from `rtenx::synth::executorch::hostile`)
//! stay within bounded memory and time, measured on the `rtenx` binary as a child process.
//! Each shape once took gigabytes or minutes: a string copied per reference, an entry added
//! without paying for it, or two file-controlled lists compared item by item.
#![cfg(target_os = "linux")]

mod common;

use common::bounded::{self, Run};
use rtenx::synth::executorch::hostile;
use std::path::Path;

const MIB: usize = 1 << 20;

/// Writes `bytes` as `name` in a new folder and runs `rtenx args... name` there.
fn run_on(name: &str, bytes: &[u8], args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), bytes).unwrap();
    run_in(dir.path(), name, args)
}

fn run_in(dir: &Path, name: &str, args: &[&str]) -> Run {
    let mut args = args.to_vec();
    args.push(name);
    let run = bounded::run_in(dir, &args);
    run.assert_bounded(name);
    run
}

/// `check` on `bytes` named `name`: bounded, and the codes it reports.
fn check(name: &str, bytes: &[u8]) -> String {
    let run = run_on(name, bytes, &["check", "--format", "json"]);
    assert!(matches!(run.code, Some(0 | 1)), "{name}: {}", run.stderr);
    run.stdout
}

/// 1,900 listings of an operator named by 1 MiB took a copy each (2 GB), and 200,000 calls
/// of it shared them.
#[test]
fn an_operator_listed_many_times_is_copied_once() {
    check("op.pte", &hostile::shared_operator(MIB, 1_900, 200_000));
}

/// 1,900 listings of a delegate whose backend id is 1 MiB took a copy each, and each of
/// 200,000 calls made its own `delegate ...` text.
#[test]
fn a_delegate_listed_many_times_is_copied_once() {
    check(
        "delegate.pte",
        &hostile::shared_delegate(MIB, 1_900, 200_000),
    );
}

/// A 1 MiB String argument passed 2,000 times was copied for each (2 GB).
#[test]
fn a_string_argument_used_many_times_is_copied_once() {
    check("string.pte", &hostile::shared_string_argument(MIB, 2_000));
}

/// A named-data entry with a 1 MiB key listed 1,900 times was copied twice each (4 GB).
#[test]
fn a_named_data_key_listed_many_times_is_copied_once() {
    let out = check("named.pte", &hostile::shared_named_data(MIB, 1_900));
    assert!(out.contains("ET018"), "the repeats are duplicates");
}

/// The same entry in a `.ptd` beside a program that needs data (4 GB).
#[test]
fn a_data_file_key_listed_many_times_is_copied_once() {
    let dir = tempfile::tempdir().unwrap();
    let linear = common::fixtures().join("executorch/external/linear.pte");
    std::fs::copy(linear, dir.path().join("linear.pte")).unwrap();
    let data = hostile::shared_data_keys(MIB, 1_900);
    std::fs::write(dir.path().join("keys.ptd"), data).unwrap();
    run_in(dir.path(), "linear.pte", &["check"]);
    run_in(dir.path(), "keys.ptd", &["check"]);
}

/// An EXTERNAL tensor with a 1 MiB name listed 1,900 times was copied twice each (4 GB).
#[test]
fn an_external_name_listed_many_times_is_copied_once() {
    let out = check("external.pte", &hostile::shared_external_name(MIB, 1_900));
    assert!(out.contains("ET016"), "the key is in no data file");
}

/// One method named by 1 MiB, with seven operators named by 1 MiB, listed 240 times: each
/// listing copied its name twice and its operators (2 GB).
#[test]
fn a_method_listed_many_times_copies_its_names_once() {
    check("plan.pte", &hostile::shared_plan(MIB, 7, 240));
}

/// 5M instructions of union type NONE (20 MB) added 5M nodes without paying for them.
#[test]
fn instructions_without_arguments_pay_for_their_nodes() {
    let out = check("none.pte", &hostile::empty_instructions(5_000_000));
    assert!(out.contains("RX016"), "the budget runs out");
}

/// A first-generation `.ptd` of 150,000 tensors and 150,000 segments (1.2 MB) compared
/// every segment with every tensor: past 60 s.
#[test]
fn a_first_generation_data_file_is_read_in_linear_time() {
    let out = check("legacy.ptd", &hostile::legacy_data(150_000, 150_000));
    assert!(out.contains("ET024"));
}

/// An int list of 150,000 values outside the method (1.2 MB), passed 40,000 times to one
/// call, was read again for each use: 6e9 items, 27 s.
#[test]
fn a_list_argument_is_read_once() {
    let out = check("list.pte", &hostile::list_argument(150_000, 40_000));
    assert!(out.contains("ET011"));
}

/// One call writing 400,000 values (3.2 MB) searched the outputs so far for each: 18 s.
#[test]
fn outputs_are_deduplicated_in_linear_time() {
    check("outputs.pte", &hostile::distinct_outputs(400_000));
}

/// 30,000 methods of 30 delegates each: the size table by method looked through every
/// delegate for each method (2.7e10 steps).
#[test]
fn the_size_table_by_method_is_built_in_linear_time() {
    let run = run_on(
        "methods.pte",
        &hostile::delegates_in_methods(30_000, 30),
        &["dump", "--json"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("by method"));
}

/// 200,000 instructions sharing stack traces whose one frame, listed 64 times, holds a
/// 1 MiB source line: each frame list is read once, each line at most up to a bound, and
/// the module path copied once.
#[test]
fn stack_traces_shared_by_many_instructions_are_read_once() {
    let line = format!("x = self.{}(x)", "n".repeat(MIB));
    for distinct in [false, true] {
        let bytes = hostile::stack_traces(line.as_bytes(), 64, 200_000, 200_000, distinct);
        check("stacks.pte", &bytes);
    }
    let line = "x = self.layers[0](x)".repeat(40);
    let bytes = hostile::stack_traces(line.as_bytes(), 64, 200_000, 200_000, true);
    check("calls.pte", &bytes);
}

/// One method whose inputs and outputs list its one value 131,072 times each, listed 1,900
/// times (1 MB): each listing kept its own copy of both lists, unpaid (2 GB, 6.7 s). Each
/// kept input and output now pays the budget, which runs out after 16 listings.
#[test]
fn inputs_and_outputs_of_a_method_listed_many_times_pay_for_each_listing() {
    let out = check("io.pte", &hostile::repeated_io(131_072, 1_900));
    assert!(out.contains("RX016"), "{out}");
}
