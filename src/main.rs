//! The `rtenx` command line.

mod cli;

/// mimalloc: reading a model makes many small allocations, which the system allocator serves
/// markedly slower (see BENCHMARKS.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}
