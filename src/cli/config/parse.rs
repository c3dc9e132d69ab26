//! Reading a configuration file: TOML into the raw tables, then every value checked, each
//! error placed at its line and column.

use super::{Config, ConfigError, Layer, Override};
use crate::cli::check::Format;
use clap::ValueEnum;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use rtenx::check::Selector;
use rtenx::formats::registry;
use serde::Deserialize;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// A table of `rtenx.toml` (or `[tool.rtenx]`): the top level, or one `[[overrides]]`. Both
/// take the same keys; [`read`] refuses the ones that belong to the other.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawTable {
    #[serde(default)]
    deny: Vec<Spanned<String>>,
    #[serde(default)]
    warn: Vec<Spanned<String>>,
    #[serde(default)]
    allow: Vec<Spanned<String>>,
    max_size: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
    #[serde(default)]
    data: Vec<Spanned<String>>,
    /// Top level only.
    exclude: Option<Spanned<Vec<Spanned<String>>>>,
    /// Top level only.
    format: Option<Spanned<String>>,
    /// Top level only.
    baseline: Option<Spanned<String>>,
    /// Top level only.
    overrides: Option<Spanned<Vec<RawTable>>>,
    /// `[[overrides]]` only.
    paths: Option<Spanned<Vec<Spanned<String>>>>,
}

/// `pyproject.toml`, of which only `[tool.rtenx]` is read.
#[derive(Deserialize)]
struct PyProject {
    tool: Option<Tools>,
}

#[derive(Deserialize)]
struct Tools {
    rtenx: Option<RawTable>,
}

/// Reads the configuration at `path`: a `pyproject.toml` is read for its `[tool.rtenx]`
/// table, and is `Ok(None)` without one; any other file is read whole.
pub fn read(path: &Path) -> Result<Option<Config>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: path.to_owned(),
        at: None,
        message: format!("cannot read: {e}"),
    })?;
    let fail = |span: Option<Range<usize>>, message: String| ConfigError {
        path: path.to_owned(),
        at: span.map(|s| line_column(&text, s.start)),
        message,
    };
    let toml_error = |e: toml::de::Error| fail(e.span(), e.message().to_owned());
    let raw: RawTable = if path.file_name().is_some_and(|n| n == "pyproject.toml") {
        let project: PyProject = toml::from_str(&text).map_err(toml_error)?;
        match project.tool.and_then(|t| t.rtenx) {
            Some(table) => table,
            None => return Ok(None),
        }
    } else {
        toml::from_str(&text).map_err(toml_error)?
    };
    if let Some(paths) = &raw.paths {
        let message = "`paths` belongs in an [[overrides]] table".to_owned();
        return Err(fail(Some(paths.span()), message));
    }
    let dir = path.parent().unwrap_or(Path::new(".")).to_owned();
    let exclude = match &raw.exclude {
        Some(list) => globs(list.get_ref(), &fail)?,
        None => GlobSet::empty(),
    };
    let format = raw
        .format
        .as_ref()
        .map(|f| {
            Format::from_str(f.get_ref(), true).map_err(|_| {
                let message = format!(
                    "unknown format `{}` (text, json, sarif, github)",
                    f.get_ref()
                );
                fail(Some(f.span()), message)
            })
        })
        .transpose()?;
    let mut overrides = Vec::new();
    if let Some(list) = &raw.overrides {
        for o in list.get_ref() {
            let misplaced = [
                o.exclude.as_ref().map(|v| ("exclude", v.span())),
                o.format.as_ref().map(|v| ("format", v.span())),
                o.baseline.as_ref().map(|v| ("baseline", v.span())),
                o.overrides.as_ref().map(|v| ("overrides", v.span())),
            ];
            if let Some((key, span)) = misplaced.into_iter().flatten().next() {
                let message = format!("`{key}` belongs at the top level, not in [[overrides]]");
                return Err(fail(Some(span), message));
            }
            let Some(paths) = &o.paths else {
                let message = "an [[overrides]] table needs `paths`".to_owned();
                return Err(fail(Some(list.span()), message));
            };
            overrides.push(Override {
                paths: globs(paths.get_ref(), &fail)?,
                layer: layer(o, &dir, &fail)?,
            });
        }
    }
    let baseline = raw.baseline.as_ref().map(|b| dir.join(b.get_ref()));
    Ok(Some(Config {
        path: path.to_owned(),
        baseline,
        base: layer(&raw, &dir, &fail)?,
        dir,
        overrides,
        exclude,
        format,
    }))
}

type Fail<'a> = dyn Fn(Option<Range<usize>>, String) -> ConfigError + 'a;

/// The per-file settings of a table.
fn layer(t: &RawTable, dir: &Path, fail: &Fail) -> Result<Layer, ConfigError> {
    let mut rules = Vec::new();
    for (list, action) in super::with_actions(&t.deny, &t.warn, &t.allow) {
        for s in list {
            let selector = Selector::parse(s.get_ref(), registry::lookup)
                .map_err(|e| fail(Some(s.span()), e.to_string()))?;
            rules.push((s.get_ref().clone(), selector, action));
        }
    }
    let located = |v: &Spanned<String>, f: fn(&str) -> Result<_, String>| {
        f(v.get_ref()).map_err(|m| fail(Some(v.span()), m))
    };
    let max_size = t
        .max_size
        .as_ref()
        .map(|v| located(v, super::parse_size))
        .transpose()?;
    let timeout = t
        .timeout
        .as_ref()
        .map(|v| super::parse_duration(v.get_ref()).map_err(|m| fail(Some(v.span()), m)))
        .transpose()?;
    let mut data = Vec::new();
    for d in &t.data {
        let file = dir.join(d.get_ref());
        if !file.is_file() {
            let message = format!("data file `{}` does not exist", d.get_ref());
            return Err(fail(Some(d.span()), message));
        }
        data.push(file);
    }
    Ok(Layer {
        rules,
        max_size,
        timeout,
        data,
    })
}

/// The globs of `list` (see [`glob`]).
fn globs(list: &[Spanned<String>], fail: &Fail) -> Result<GlobSet, ConfigError> {
    let mut set = GlobSetBuilder::new();
    for pattern in list {
        let glob = glob(pattern.get_ref())
            .map_err(|e| fail(Some(pattern.span()), e.kind().to_string()))?;
        set.add(glob);
    }
    set.build().map_err(|e| fail(None, e.to_string()))
}

/// A pattern matched against paths relative to a folder with `/` between components: `*`
/// stays within a component, `**` crosses them, and a pattern with no `/` matches a file
/// name in any folder.
pub fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    let text = pattern.trim_start_matches("./");
    let text = if text.contains('/') {
        text.to_owned()
    } else {
        format!("**/{text}")
    };
    GlobBuilder::new(&text).literal_separator(true).build()
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(name: &str, text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let e = read(&path).unwrap_err();
        e.to_string()
            .replace(&dir.path().display().to_string(), "DIR")
    }

    #[test]
    fn errors_name_file_line_and_column() {
        assert_eq!(
            error("rtenx.toml", "deny = [\"warning\"]\nwarn = [\"RX999\"]\n"),
            "DIR/rtenx.toml:2:9: unknown rule code or level `RX999` (levels: error, warning, \
             info; `rtenx explain` lists codes)"
        );
        assert!(error("rtenx.toml", "colour = 1\n")
            .starts_with("DIR/rtenx.toml:1:1: unknown field `colour`"));
        assert_eq!(
            error("rtenx.toml", "\n\nmax-size = \"3 parsecs\"\n"),
            "DIR/rtenx.toml:3:12: `3 parsecs` has an unknown unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
        );
        assert!(error(
            "pyproject.toml",
            "[tool.rtenx]\n[[tool.rtenx.overrides]]\nallow = [\"RX005\"]\n"
        )
        .starts_with("DIR/pyproject.toml:2:"));
        assert_eq!(
            error("rtenx.toml", "[[overrides]]\npaths = [\"a/[\"]\n"),
            "DIR/rtenx.toml:2:10: unclosed character class; missing ']'"
        );
        assert!(error("rtenx.toml", "timeout = [").starts_with("DIR/rtenx.toml:1:12:"));
    }

    #[test]
    fn a_pyproject_without_the_table_is_no_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pyproject.toml");
        std::fs::write(&path, "[tool.ruff]\nline-length = 100\n").unwrap();
        assert!(read(&path).unwrap().is_none());
    }
}
