//! Values that options take both on the command line and in settings files, parsed once
//! for both.

use clap::ValueEnum;

/// Output formats, on the command line and in the configuration (`format = "sarif"`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

/// Runtimes `--target` and the `target` setting name.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Runtime {
    Rten,
}

/// A `target` setting's value.
pub fn parse_target(s: &str) -> Result<rtenx::formats::Target, String> {
    Runtime::from_str(s, true)
        .map(Runtime::target)
        .map_err(|_| format!("`{s}` is not a runtime rtenx knows the rules of (rten)"))
}

impl Runtime {
    pub fn target(self) -> rtenx::formats::Target {
        match self {
            Runtime::Rten => rtenx::formats::Target::Rten,
        }
    }
}
