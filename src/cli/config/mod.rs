//! The configuration file: `rtenx.toml`, or `[tool.rtenx]` in `pyproject.toml`, named by
//! `--config` or found in the working directory or one of its parents, never inside a
//! checked folder ([`discover`], the trust model of docs/security.md). Its keys mirror
//! `check`'s flags; a value the file gets wrong is an error naming the file, line and column.

pub mod discover;
mod parse;
pub mod settings;

use super::choices::Format;
use globset::GlobSet;
use rtenx::check::{Action, Selector, Severity};
use std::path::PathBuf;
use std::time::Duration;

/// A configuration file, checked and ready to apply.
#[derive(Debug)]
pub struct Config {
    /// The file it was read from.
    pub path: PathBuf,
    /// Its folder, which relative paths and globs start from.
    pub dir: PathBuf,
    /// The settings for every file under it.
    pub base: Layer,
    /// `[[overrides]]`, in file order: the later of two that match a file wins.
    pub overrides: Vec<Override>,
    /// Files a folder scan leaves out.
    pub exclude: GlobSet,
    /// The output format, `format = "sarif"`.
    pub format: Option<Format>,
    /// The baseline file, `baseline = "rtenx-baseline.json"`, in the config's folder or below.
    pub baseline: Option<PathBuf>,
    /// What model signatures are verified with.
    pub signing: Signing,
}

/// The settings of `check`'s signature verification, top level only; material files are in
/// the config's folder or below.
#[derive(Debug, Default)]
pub struct Signing {
    /// `public-key = "FILE.pem"`.
    pub public_key: Option<PathBuf>,
    /// `certificate-chain = ["FILE.pem", ...]`.
    pub certificate_chain: Vec<PathBuf>,
    /// `require-signature = true`.
    pub require_signature: Option<bool>,
}

/// Per-file settings of one table of the file.
#[derive(Debug, Default, Clone)]
pub struct Layer {
    /// `deny`, `warn` and `allow`, in that order, each as written and parsed.
    pub rules: Vec<(String, Selector, Action)>,
    /// `max-size`, in bytes.
    pub max_size: Option<u64>,
    /// `timeout`.
    pub timeout: Option<Duration>,
    /// `data`: data files to pair with the model, in the config's folder or below.
    pub data: Vec<PathBuf>,
    /// `target`: the runtime whose own rules also apply.
    pub target: Option<rtenx::formats::Target>,
    /// `values`: read every tensor's values (`--values`).
    pub values: Option<bool>,
    /// `zero-tail`, in bytes: the shortest zero run at a tensor's end that VX005 reports.
    pub zero_tail: Option<u64>,
}

/// One `[[overrides]]` table: the files it applies to and what it sets.
#[derive(Debug)]
pub struct Override {
    /// `paths`, globs relative to the config's folder.
    pub paths: GlobSet,
    /// Its settings.
    pub layer: Layer,
}

/// `deny`, `warn` and `allow` (of the command line or a table), each with the severity it
/// sets; `None` drops the finding.
pub fn with_actions<T>(deny: T, warn: T, allow: T) -> [(T, Action); 3] {
    [
        (deny, Some(Severity::Error)),
        (warn, Some(Severity::Warning)),
        (allow, None),
    ]
}

/// A configuration file that cannot be used, with where the fault is.
#[derive(Debug)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line and column of the fault, when it has a place.
    pub at: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some((line, column)) = self.at {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message.trim_end())
    }
}

/// A `--exclude` pattern, as the configuration's `exclude` reads its patterns.
pub fn parse_glob(s: &str) -> Result<globset::Glob, String> {
    parse::glob(s).map_err(|e| e.kind().to_string())
}

/// A byte size: a number of bytes, or one with a unit (`KB`, `MB`, `GB`, `TB` are powers of
/// 1000; `KiB`, `MiB`, `GiB`, `TiB` of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a size such as 500MB or 20GiB"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "`{s}` has an unknown unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
            ))
        }
    };
    number
        .checked_mul(scale)
        .ok_or_else(|| format!("`{s}` is more bytes than 64 bits hold"))
}

/// A duration: a number with a unit, `ms`, `s`, `m` or `h`, such as `30s`; zero is refused.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let wrong = || format!("`{s}` is not a duration such as 500ms, 30s, 5m or 1h");
    let number: u64 = number.parse().map_err(|_| wrong())?;
    let millis = match unit.trim() {
        "ms" => Some(number),
        "s" => number.checked_mul(1_000),
        "m" => number.checked_mul(60_000),
        "h" => number.checked_mul(3_600_000),
        _ => return Err(wrong()),
    };
    match millis {
        Some(0) => Err(format!("`{s}`: a timeout must be longer than zero")),
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Err(wrong()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_parse_with_units() {
        assert_eq!(parse_size("20GB"), Ok(20_000_000_000));
        assert_eq!(parse_size("3 KiB"), Ok(3072));
        assert_eq!(parse_size("17"), Ok(17));
        assert!(parse_size("20XB").is_err());
        assert!(parse_size("99999999999TB").is_err());
        assert!(parse_size("GB").is_err());
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("30").is_err());
    }
}
